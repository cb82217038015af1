package topicstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// The index (dir/index.json) annotates the topic files: a name, a creation
// time and the session id each account had in the topic. The directory is
// the truth: a topic file the index lacks is picked up by List, and an entry
// without a file is still listed. The index is rewritten only for a
// deliberate act, always whole, through a temporary file in the same
// directory that is synced and renamed over the old one.

const (
	indexName  = "index.json"
	topicExt   = ".jsonl"
	attachName = "attachments"
)

// indexFile is the JSON form of index.json.
type indexFile struct {
	Topics map[string]*indexEntry `json:"topics"`
}

// indexEntry is one topic's annotation. Created is kept as written (RFC
// 3339) so that rewriting the index never alters an entry it did not touch.
type indexEntry struct {
	Name     string            `json:"name,omitempty"`
	Created  string            `json:"created"`
	Sessions map[string]string `json:"sessions,omitempty"`
}

// created returns the entry's creation time, or the zero time when the
// index holds something that is not RFC 3339.
func (e *indexEntry) created() time.Time {
	t, err := time.Parse(time.RFC3339Nano, e.Created)
	if err != nil {
		return time.Time{}
	}
	return t
}

// formatTime is how the store writes a creation time.
func formatTime(t time.Time) string {
	return t.UTC().Format(time.RFC3339Nano)
}

// loadIndex reads index.json. When there is none yet, this is the first
// time the index is built: a legacy log beside the directory is moved into
// a new topic and the index is written with its entry. Without a legacy log
// it returns an empty index and writes nothing. The caller holds s.mu.
func (s *Store) loadIndex() (*indexFile, error) {
	path := filepath.Join(s.dir, indexName)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		idx := &indexFile{Topics: map[string]*indexEntry{}}
		return idx, s.migrateLegacy(idx)
	}
	if err != nil {
		return nil, fmt.Errorf("topicstore: read index %s: %w", path, err)
	}
	var idx indexFile
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, fmt.Errorf("topicstore: index %s: %w: %w", path, ErrBadIndex, err)
	}
	if idx.Topics == nil {
		idx.Topics = map[string]*indexEntry{}
	}
	for id, e := range idx.Topics {
		if e == nil {
			idx.Topics[id] = &indexEntry{}
		}
	}
	return &idx, nil
}

// legacyPath is the single log older versions kept for the whole room:
// logs/main.jsonl beside the directory logs/main.
func (s *Store) legacyPath() string {
	return filepath.Join(filepath.Dir(s.dir), filepath.Base(s.dir)+topicExt)
}

// migrateLegacy moves the legacy log, if there is one, into a new topic of
// idx and writes the index. The file is renamed, never copied: one
// conversation in two files would have two orders. If writing the index
// fails after the move, the file is already a topic file and List picks it
// up. The caller holds s.mu.
func (s *Store) migrateLegacy(idx *indexFile) error {
	old := s.legacyPath()
	info, err := os.Lstat(old)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("topicstore: legacy log %s: %w", old, err)
	}
	if !info.Mode().IsRegular() {
		return nil
	}
	id := NewID()
	dst := s.topicPath(id)
	if err := os.Rename(old, dst); err != nil {
		return fmt.Errorf("topicstore: move legacy log %s to %s: %w", old, dst, err)
	}
	e, err := s.entryFromFile(id)
	if err != nil {
		return err
	}
	idx.Topics[id] = e
	return s.writeIndex(idx)
}

// entryFromFile builds the entry of a topic file the index lacks: the name
// from its first readable post, the creation time from the file's
// modification time.
func (s *Store) entryFromFile(id string) (*indexEntry, error) {
	path := s.topicPath(id)
	info, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("topicstore: topic %s: %w", id, err)
	}
	first, err := s.firstPost(id)
	if err != nil {
		return nil, err
	}
	return &indexEntry{Name: nameFrom(first.Content), Created: formatTime(info.ModTime())}, nil
}

// writeIndex replaces index.json with idx atomically: a temporary file in
// the same directory (mode 0600), synced, then renamed over the old one; the
// directory is synced after. The caller holds s.mu.
func (s *Store) writeIndex(idx *indexFile) (err error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(idx); err != nil {
		return fmt.Errorf("topicstore: encode index: %w", err)
	}
	tmp, err := os.CreateTemp(s.dir, ".index-*.tmp")
	if err != nil {
		return fmt.Errorf("topicstore: write index: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(0o600); err != nil {
		return fmt.Errorf("topicstore: write index %s: %w", tmp.Name(), err)
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("topicstore: write index %s: %w", tmp.Name(), err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("topicstore: sync index %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("topicstore: close index %s: %w", tmp.Name(), err)
	}
	path := filepath.Join(s.dir, indexName)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("topicstore: replace index %s: %w", path, err)
	}
	if d, derr := os.Open(s.dir); derr == nil {
		_ = d.Sync() // best effort: the rename is already done
		_ = d.Close()
	}
	return nil
}
