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
	// answersName is the folder of the needs-you answers' records, one
	// answers/{topic}.jsonl per topic: in a folder, so it never reads as a
	// topic.
	answersName = "answers"
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
// it returns an empty index and writes nothing. An index.json that cannot
// be read as an index is recovered (recoverIndex). The caller holds s.mu.
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
	idx, err := parseIndex(data)
	if err != nil {
		return s.recoverIndex(data, err)
	}
	return idx, nil
}

// parseIndex reads the bytes of index.json.
func parseIndex(data []byte) (*indexFile, error) {
	var idx indexFile
	if err := json.Unmarshal(data, &idx); err != nil {
		return nil, err
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

// checkIndex recovers index.json now if it exists and cannot be read; it
// writes nothing otherwise (a missing index stays missing). Open calls it.
func (s *Store) checkIndex() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, err := os.ReadFile(filepath.Join(s.dir, indexName))
	if err != nil {
		return nil // missing, or unreadable as a file: the next use says so
	}
	if _, err := parseIndex(data); err != nil {
		_, err = s.recoverIndex(data, err)
		return err
	}
	return nil
}

// recoverIndex replaces an index.json that cannot be read (data, which
// failed with cause) with one rebuilt from the directory: the directory is
// the truth and the index its annotation (spec 003 部屋のログ). The damaged
// file is kept beside it first, byte for byte, as
// index.json.corrupt-<UTC time> (never overwritten: a second recovery in
// the same second gets -2, -3, …). Every entry the damaged file still holds
// is kept, field by field (salvageIndex), so the session records and names
// that can still be read survive; every topic file without a salvaged entry
// gets the entry List would give it (named from its first post, created at
// the file's modification time). The new index is then written as usual.
// Recovered says what happened. When the damaged file cannot be kept or the
// new index cannot be written, nothing is replaced and the error wraps
// ErrBadIndex. The caller holds s.mu.
func (s *Store) recoverIndex(data []byte, cause error) (*indexFile, error) {
	path := filepath.Join(s.dir, indexName)
	idx := &indexFile{Topics: salvageIndex(data)}
	salvaged := len(idx.Topics)
	files, err := s.topicFiles()
	if err != nil {
		return nil, fmt.Errorf("topicstore: index %s: %w: %w; recovering it: %w", path, ErrBadIndex, cause, err)
	}
	rebuilt := 0
	for id, info := range files {
		e, ok := idx.Topics[id]
		if !ok {
			e, err = s.entryFromFile(id)
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed meanwhile
			}
			if err != nil {
				return nil, fmt.Errorf("topicstore: index %s: %w: %w; recovering it: %w", path, ErrBadIndex, cause, err)
			}
			idx.Topics[id] = e
			rebuilt++
			continue
		}
		// A salvaged entry that lost its creation time or name gets what
		// the file says, as an unindexed file would.
		if e.created().IsZero() {
			e.Created = formatTime(info.ModTime())
		}
		if e.Name == "" {
			first, err := s.firstPost(id)
			if err == nil {
				e.Name = nameFrom(first.Content)
			}
		}
	}
	aside, err := s.keepAside(data)
	if err != nil {
		return nil, fmt.Errorf("topicstore: index %s: %w: %w; keeping it aside: %w", path, ErrBadIndex, cause, err)
	}
	if err := s.writeIndex(idx); err != nil {
		return nil, fmt.Errorf("topicstore: index %s: %w: %w; kept as %s, but the rebuilt index: %w", path, ErrBadIndex, cause, aside, err)
	}
	s.recovered = fmt.Sprintf("The topic index could not be read (%s), so it was kept as %s and rebuilt: %s, %d read back from it and %d from %s.",
		oneLine(cause.Error()), aside, count(len(idx.Topics), "topic"), salvaged, rebuilt, plural(rebuilt, "its log file", "their log files"))
	return idx, nil
}

// count says n things: "1 topic", "3 topics".
func count(n int, thing string) string {
	return fmt.Sprintf("%d %s", n, plural(n, thing, thing+"s"))
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// oneLine keeps a message on one line, at most 120 runes.
func oneLine(s string) string {
	return cutName(cleanName(s), 120)
}

// corruptSuffix is what the name of a kept damaged index adds to
// index.json, before the time stamp.
const corruptSuffix = ".corrupt-"

// keepAside writes data to a new file index.json.corrupt-<UTC time> beside
// the index (mode 0600, synced) and returns its path. It never replaces a
// file: when the name is taken it tries -2, -3, …
func (s *Store) keepAside(data []byte) (string, error) {
	base := filepath.Join(s.dir, indexName+corruptSuffix+s.now().UTC().Format("20060102T150405Z"))
	for n := 1; ; n++ {
		path := base
		if n > 1 {
			path = fmt.Sprintf("%s-%d", base, n)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) && n < 1000 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(data)
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			_ = os.Remove(path)
			return "", werr
		}
		return path, nil
	}
}

// salvageIndex reads what it can of a damaged index.json: each entry whose
// beginning is still readable, field by field (name, created, each session
// record) up to the first byte of it that is not JSON, then the entries
// after the damage. An entry is found by its shape, a topic id as a key
// of an object ({ or , before it, { after it), so that a damaged stretch
// costs the entries it touches and no more: a quote inside a JSON string
// is always escaped, so that shape cannot come from a name. Only what was
// written by the store is looked for; an entry whose fields were all lost
// is dropped (its topic file, if any, gives it back). On an index the store
// wrote, it reads what json.Unmarshal reads. A key found twice keeps the
// fields of both, the later one's where both have one.
func salvageIndex(data []byte) map[string]*indexEntry {
	out := map[string]*indexEntry{}
	pos := 0
	for {
		key, obj, ok := nextEntry(data, pos)
		if !ok {
			return out
		}
		if key == "topics" {
			pos = obj // the entries begin right after this brace
			continue
		}
		e, found, end := salvageEntry(data[obj:])
		if found && ValidID(key) {
			if old, ok := out[key]; ok {
				if e.Name == "" {
					e.Name = old.Name
				}
				if e.Created == "" {
					e.Created = old.Created
				}
				for a, sid := range old.Sessions {
					if _, ok := e.Sessions[a]; !ok {
						if e.Sessions == nil {
							e.Sessions = map[string]string{}
						}
						e.Sessions[a] = sid
					}
				}
			}
			out[key] = e
		}
		pos = obj + max(end, 1)
	}
}

// nextEntry finds, from pos on, the next key that has the shape of an
// entry: { or , then white space, a quoted key of topic id characters,
// white space, :, white space and {. It returns the key and the offset of
// that last brace.
func nextEntry(data []byte, pos int) (key string, obj int, ok bool) {
	ws := func(i int) int {
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
			i++
		}
		return i
	}
	for i := pos; i < len(data); i++ {
		if data[i] != '{' && data[i] != ',' {
			continue
		}
		j := ws(i + 1)
		if j >= len(data) || data[j] != '"' {
			continue
		}
		k := j + 1
		for k < len(data) && k-(j+1) <= MaxIDLen && idByte(data[k]) {
			k++
		}
		if k >= len(data) || data[k] != '"' || k == j+1 {
			continue
		}
		m := ws(k + 1)
		if m >= len(data) || data[m] != ':' {
			continue
		}
		m = ws(m + 1)
		if m >= len(data) || data[m] != '{' {
			continue
		}
		return string(data[j+1 : k]), m, true
	}
	return "", 0, false
}

// salvageEntry reads the entry object at the start of b token by token and
// keeps each field that it reads whole: name, created, and each session
// record. It stops at the end of the object or at the first byte that is
// not JSON, and returns the offset in b where it stopped. found is false
// when no field was read.
func salvageEntry(b []byte) (e *indexEntry, found bool, end int) {
	e = &indexEntry{}
	dec := json.NewDecoder(bytes.NewReader(b))
	at := func() int { return int(dec.InputOffset()) }
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return e, false, at()
	}
	for {
		tok, err := dec.Token()
		if err != nil || tok == json.Delim('}') {
			return e, found, at()
		}
		key, _ := tok.(string)
		val, err := dec.Token()
		if err != nil {
			return e, found, at()
		}
		if d, ok := val.(json.Delim); ok && key != "sessions" {
			if !skipValue(dec, d) {
				return e, found, at()
			}
			continue
		}
		switch key {
		case "name":
			if v, ok := val.(string); ok {
				e.Name, found = v, true
			}
		case "created":
			if v, ok := val.(string); ok {
				e.Created, found = v, true
			}
		case "sessions":
			d, ok := val.(json.Delim)
			if !ok {
				continue // null, or not an object
			}
			if d != '{' {
				if !skipValue(dec, d) {
					return e, found, at()
				}
				continue
			}
			for {
				k, err := dec.Token()
				if err != nil {
					return e, found, at()
				}
				if k == json.Delim('}') {
					break
				}
				v, err := dec.Token()
				if err != nil {
					return e, found, at()
				}
				if d, ok := v.(json.Delim); ok {
					if !skipValue(dec, d) {
						return e, found, at()
					}
					continue
				}
				account, _ := k.(string)
				if sid, ok := v.(string); ok {
					if e.Sessions == nil {
						e.Sessions = map[string]string{}
					}
					e.Sessions[account], found = sid, true
				}
			}
		}
	}
}

// skipValue reads the rest of the object or array that d opened; false on
// an error.
func skipValue(dec *json.Decoder, d json.Delim) bool {
	if d != '{' && d != '[' {
		return true // a closing delimiter: json.Decoder reports misplaced ones as errors
	}
	for depth := 1; depth > 0; {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if d, ok := tok.(json.Delim); ok {
			if d == '{' || d == '[' {
				depth++
			} else {
				depth--
			}
		}
	}
	return true
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

// encodeIndex is the text of index.json for idx.
func encodeIndex(idx *indexFile) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(idx); err != nil {
		return nil, fmt.Errorf("topicstore: encode index: %w", err)
	}
	return buf.Bytes(), nil
}

// writeIndex replaces index.json with idx atomically: a temporary file in
// the same directory (mode 0600), synced, then renamed over the old one; the
// directory is synced after. The caller holds s.mu.
func (s *Store) writeIndex(idx *indexFile) (err error) {
	data, err := encodeIndex(idx)
	if err != nil {
		return err
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
	if _, err := tmp.Write(data); err != nil {
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

// idByte reports whether c may be part of a topic id (ValidID).
func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
