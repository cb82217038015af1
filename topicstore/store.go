// Package topicstore keeps the room's log on disk: one append-only JSON
// lines file per topic, an index that annotates the topics (name, creation
// time, the session id each account had there) and the files attached to
// each topic's posts.
//
// Layout under the directory given to Open (the caller passes
// <data>/logs/main):
//
//	index.json                  the index (see below)
//	{topic}.jsonl               the topic's posts, one JSON line each
//	attachments/{topic}/{name}  files attached to the topic's posts
//
// The directory is the truth and the index its annotation. A topic file the
// index lacks is picked up (and written to the index) by List; an index
// entry whose file is gone is still listed. The index is written only for
// deliberate acts: a first post, a session id recorded or dropped, a
// rename, a deletion, the reconciliation of an unindexed file, and the
// one-time move of the legacy log. Opening or listing writes nothing when
// nothing needs to change.
//
// New topics are lazy: the topic a launch starts in is an id with neither
// file nor entry, and nothing exists until Append writes its first post or
// SetSession records a seat in it.
//
// A Store guards the index's read-modify-write with a mutex; it is safe for
// use by several goroutines. Concurrent appends never mix their lines (one
// write per line on an O_APPEND file); their order on disk is the order of
// the writes, which is why the room appends inside its own lock. Appends
// never wait for the disk: one goroutine of the store fsyncs the appended
// files SyncDelay after the appends, coalesced (sync.go); Close syncs what
// is pending and stops it. Unreadable lines (garbage, a torn last line) are
// skipped and counted, never fail a read.
//
// An index.json that cannot be read is kept aside and rebuilt from the
// topic files and what it still holds; Recovered says so.
package topicstore

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Errors returned by the store; test with errors.Is.
var (
	// ErrBadID reports a topic id ValidID rejects.
	ErrBadID = errors.New("invalid topic id")
	// ErrBadName reports an empty or too long topic name.
	ErrBadName = errors.New("invalid topic name")
	// ErrBadAccount reports an empty account id.
	ErrBadAccount = errors.New("invalid account id")
	// ErrUnknownTopic reports a topic with neither a file nor an index entry.
	ErrUnknownTopic = errors.New("unknown topic")
	// ErrUnknownMessage reports a before id that no readable post has.
	ErrUnknownMessage = errors.New("unknown message id")
	// ErrBadLine reports a line that is not a post.
	ErrBadLine = errors.New("unreadable log line")
	// ErrBadIndex reports an index.json that is not valid JSON and could
	// not be recovered (the damaged file could not be kept aside, or the
	// rebuilt index not written). The store never replaces such a file
	// before a copy of it is on disk; see Recovered.
	ErrBadIndex = errors.New("unreadable topic index")
)

// Topic is what the store knows of one topic.
type Topic struct {
	// ID is the topic id, also the base name of its file.
	ID string
	// Name is the topic's title; "" when it has none yet.
	Name string
	// Created is when the topic came to be (the zero time if the index
	// holds an unreadable value).
	Created time.Time
	// Sessions maps an account id to the session id it had in the topic.
	Sessions map[string]string
	// Missing marks an index entry that says the topic had a log when there
	// is no file: the entry has a name and the file is absent. An entry a
	// seat start materialised has no name and is not Missing.
	Missing bool
	// HasPosts is true when the topic file exists and is not empty.
	HasPosts bool
	// Indexed is true when the index has an entry for the topic. Only Get
	// answers false, for a file List has not reconciled yet.
	Indexed bool
}

// readFile is what the readers need of an open topic file. Tests wrap it to
// count the bytes read.
type readFile interface {
	ReadAt(p []byte, off int64) (int, error)
	Stat() (fs.FileInfo, error)
	Close() error
}

// Store is the topics under one directory. Make one with Open.
type Store struct {
	dir string
	mu  sync.Mutex // guards the index's read-modify-write and recovered

	// recovered is the sentence of the last recovery of index.json.
	recovered string

	sy *syncer // fsyncs appended files soon after the appends (sync.go)

	// Seams for tests; Open sets the real ones.
	now       func() time.Time
	chunk     int
	openRead  func(name string) (readFile, error)
	remove    func(name string) error
	removeAll func(path string) error
}

// DefaultChunk is how many bytes Page reads at a time from the end of a file.
const DefaultChunk = 64 << 10

// Open returns the store for dir, creating the directory (mode 0700) if it
// does not exist. It writes no index (the legacy log is moved the first
// time the index is needed), except to recover an index.json that cannot be
// read: the damaged file is kept aside and the index rebuilt from the topic
// files and what the damaged file still holds (see Recovered). A recovery
// that fails does not fail Open; the index's users then report it, wrapping
// ErrBadIndex, and try again.
func Open(dir string) (*Store, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("topicstore: open %s: %w", dir, err)
	}
	if err := os.MkdirAll(abs, 0o700); err != nil {
		return nil, fmt.Errorf("topicstore: open %s: %w", abs, err)
	}
	s := &Store{
		dir:       abs,
		now:       time.Now,
		chunk:     DefaultChunk,
		openRead:  func(name string) (readFile, error) { return os.Open(name) },
		remove:    os.Remove,
		removeAll: os.RemoveAll,
		sy:        newSyncer(),
	}
	_ = s.checkIndex() // a failure is reported by every later use of the index
	return s, nil
}

// Recovered returns one sentence saying that index.json could not be read
// and was rebuilt — the path it was kept under and how many topics the new
// index has, how many of them were read back from the damaged file and how
// many rebuilt from their log files — or "" when no recovery happened. Open
// recovers a damaged index before it returns; the sentence is that of the
// last recovery of this store (a file damaged while the store is open is
// recovered by the next use of the index, and changes the sentence).
func (s *Store) Recovered() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.recovered
}

// Dir returns the absolute directory of the store.
func (s *Store) Dir() string { return s.dir }

// checkID returns an error wrapping ErrBadID unless ValidID(id).
func checkID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("topicstore: topic %q: %w", id, ErrBadID)
	}
	return nil
}

// topicPath is the file of a valid topic id.
func (s *Store) topicPath(id string) string {
	return filepath.Join(s.dir, id+topicExt)
}

// AttachmentDir returns the absolute folder that holds the files attached
// to topic's posts, dir/attachments/{topic}. It does not create it.
func (s *Store) AttachmentDir(topic string) (string, error) {
	if err := checkID(topic); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, attachName, topic), nil
}

// AnswersFile returns the record of the needs-you answers given for
// topic's seats, dir/answers/{topic}.jsonl. It creates neither.
func (s *Store) AnswersFile(topic string) (string, error) {
	if err := checkID(topic); err != nil {
		return "", err
	}
	return filepath.Join(s.dir, answersName, topic+topicExt), nil
}

// Append writes p as one line at the end of topic's file, creating the file
// (mode 0600) if needed, with one write on a file opened O_APPEND. first
// reports that the file had no bytes before. If the file ends in a torn line
// (no final newline, left by a crash), the write starts with a newline so
// that the torn line stays one unreadable line and p stays readable.
// Append does not touch the index; call NoteFirstPost after the first post.
// It does not wait for the disk: the store fsyncs the file SyncDelay later
// (sync.go), or before returning once the store is closed.
func (s *Store) Append(topic string, p Post) (first bool, err error) {
	if err := checkID(topic); err != nil {
		return false, err
	}
	path := s.topicPath(topic)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return false, fmt.Errorf("topicstore: append to %s: %w", path, err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("topicstore: append to %s: %w", path, cerr)
		}
	}()
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("topicstore: append to %s: %w", path, err)
	}
	line := p.Line()
	if size := info.Size(); size > 0 {
		var last [1]byte
		if _, err := f.ReadAt(last[:], size-1); err != nil {
			return false, fmt.Errorf("topicstore: append to %s: %w", path, err)
		}
		if last[0] != '\n' {
			line = append([]byte{'\n'}, line...)
		}
	}
	if _, err := f.Write(line); err != nil {
		return false, fmt.Errorf("topicstore: append to %s: %w", path, err)
	}
	first = info.Size() == 0
	if s.noteAppend(path, first) {
		s.syncNow(path, first)
	}
	return first, nil
}

// HasPosts reports whether topic's file exists and is not empty. It looks
// at the size only and never reads the file, so a file holding only
// unreadable lines answers true.
func (s *Store) HasPosts(topic string) (bool, error) {
	if err := checkID(topic); err != nil {
		return false, err
	}
	info, err := os.Stat(s.topicPath(topic))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("topicstore: topic %s: %w", topic, err)
	}
	return info.Size() > 0, nil
}

// NoteFirstPost records that topic got its first post, whose text is
// content. It creates the index entry if there is none (created now) and
// names the topic from the start of content only if the entry has no name
// yet: a topic named before its first post keeps its name. Call it after
// Append reported first, outside the room's lock.
func (s *Store) NoteFirstPost(topic, content string) error {
	if err := checkID(topic); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, err := s.loadIndex()
	if err != nil {
		return err
	}
	name := nameFrom(content)
	e, ok := idx.Topics[topic]
	switch {
	case !ok:
		idx.Topics[topic] = &indexEntry{Name: name, Created: formatTime(s.now())}
	case e.Name == "" && name != "":
		e.Name = name
	default:
		return nil
	}
	return s.writeIndex(idx)
}

// Rename gives topic the name name, made one line (white space collapsed,
// control characters dropped). A name that is empty after that, or longer
// than MaxNameRunes runes, is refused with ErrBadName. A topic with a file
// but no entry gets an entry (created at the file's modification time); a
// topic with neither is ErrUnknownTopic. The name is kept: a later first
// post does not replace it.
func (s *Store) Rename(topic, name string) error {
	if err := checkID(topic); err != nil {
		return err
	}
	clean := cleanName(name)
	if clean == "" || len([]rune(clean)) > MaxNameRunes {
		return fmt.Errorf("topicstore: rename %s to %q: %w", topic, name, ErrBadName)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, err := s.loadIndex()
	if err != nil {
		return err
	}
	e, ok := idx.Topics[topic]
	if !ok {
		info, err := os.Stat(s.topicPath(topic))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("topicstore: rename %s: %w", topic, ErrUnknownTopic)
		}
		if err != nil {
			return fmt.Errorf("topicstore: rename %s: %w", topic, err)
		}
		e = &indexEntry{Created: formatTime(info.ModTime())}
		idx.Topics[topic] = e
	} else if e.Name == clean {
		return nil
	}
	e.Name = clean
	return s.writeIndex(idx)
}

// SetSession records that account had session id session in topic,
// replacing any earlier record for that account. It creates the entry (no
// name, created now) if there is none: starting a seat materialises the
// topic even before anything is said. An empty session materialises the
// topic without recording or removing anything. An empty account is
// ErrBadAccount.
func (s *Store) SetSession(topic, account, session string) error {
	if err := checkID(topic); err != nil {
		return err
	}
	if account == "" {
		return fmt.Errorf("topicstore: session in %s: %w", topic, ErrBadAccount)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, err := s.loadIndex()
	if err != nil {
		return err
	}
	e, ok := idx.Topics[topic]
	if !ok {
		e = &indexEntry{Created: formatTime(s.now())}
		idx.Topics[topic] = e
	}
	if session != "" {
		if ok && e.Sessions[account] == session {
			return nil
		}
		if e.Sessions == nil {
			e.Sessions = map[string]string{}
		}
		e.Sessions[account] = session
	} else if ok {
		return nil
	}
	return s.writeIndex(idx)
}

// DropSession removes account's session record from topic, but only while
// it still equals onlyIf ("" removes whatever is recorded), so that a newer
// session recorded meanwhile is kept. dropped reports whether a record was
// removed. The topic's entry stays, even with no sessions left.
func (s *Store) DropSession(topic, account, onlyIf string) (dropped bool, err error) {
	if err := checkID(topic); err != nil {
		return false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, err := s.loadIndex()
	if err != nil {
		return false, err
	}
	e, ok := idx.Topics[topic]
	if !ok {
		return false, nil
	}
	cur, ok := e.Sessions[account]
	if !ok || (onlyIf != "" && cur != onlyIf) {
		return false, nil
	}
	delete(e.Sessions, account)
	if len(e.Sessions) == 0 {
		e.Sessions = nil
	}
	if err := s.writeIndex(idx); err != nil {
		return false, err
	}
	return true, nil
}

// Delete removes topic in this order: its file, then its attachment
// folder and its record of answers, then its index entry. The file goes first because an entry
// without a file is a visible state (listed, Missing when named) that
// deleting again clears, while a file without an entry would be
// reconciled back into the list. A missing file, folder or entry is not an
// error; a failure stops the deletion at that step.
func (s *Store) Delete(topic string) error {
	if err := checkID(topic); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	path := s.topicPath(topic)
	if err := s.remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("topicstore: delete %s: %w", path, err)
	}
	att := filepath.Join(s.dir, attachName, topic)
	if err := s.removeAll(att); err != nil {
		return fmt.Errorf("topicstore: delete attachments %s: %w", att, err)
	}
	ans := filepath.Join(s.dir, answersName, topic+topicExt)
	if err := s.remove(ans); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("topicstore: delete answers %s: %w", ans, err)
	}
	idx, err := s.loadIndex()
	if err != nil {
		return err
	}
	if _, ok := idx.Topics[topic]; !ok {
		return nil
	}
	delete(idx.Topics, topic)
	return s.writeIndex(idx)
}

// topicFiles lists the topic files directly in the directory (never in
// sub-folders, so attachments are never topics), by id.
func (s *Store) topicFiles() (map[string]fs.FileInfo, error) {
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		return nil, fmt.Errorf("topicstore: list %s: %w", s.dir, err)
	}
	files := map[string]fs.FileInfo{}
	for _, de := range ents {
		id, ok := strings.CutSuffix(de.Name(), topicExt)
		if !ok || !ValidID(id) || !de.Type().IsRegular() {
			continue
		}
		info, err := de.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("topicstore: list %s: %w", s.dir, err)
		}
		files[id] = info
	}
	return files, nil
}

// makeTopic builds the Topic of an index entry and the file's info (nil when
// there is no file).
func makeTopic(id string, e *indexEntry, info fs.FileInfo) Topic {
	t := Topic{
		ID:       id,
		Name:     e.Name,
		Created:  e.created(),
		Indexed:  true,
		HasPosts: info != nil && info.Size() > 0,
		Missing:  info == nil && e.Name != "",
	}
	if len(e.Sessions) > 0 {
		t.Sessions = maps.Clone(e.Sessions)
	}
	return t
}

// List returns every topic, newest Created first (ties by id, newest
// first). It reconciles first: each topic file the index lacks gets an
// entry, named from its first readable post and created at the file's
// modification time, and the index is written once for them. An entry
// whose file is absent is listed, with Missing set when it is named. When
// nothing needed reconciling, List writes nothing.
func (s *Store) List() ([]Topic, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, err := s.loadIndex()
	if err != nil {
		return nil, err
	}
	files, err := s.topicFiles()
	if err != nil {
		return nil, err
	}
	changed := false
	for id := range files {
		if _, ok := idx.Topics[id]; ok {
			continue
		}
		e, err := s.entryFromFile(id)
		if errors.Is(err, fs.ErrNotExist) {
			delete(files, id) // removed meanwhile
			continue
		}
		if err != nil {
			return nil, err
		}
		idx.Topics[id] = e
		changed = true
	}
	if changed {
		if err := s.writeIndex(idx); err != nil {
			return nil, err
		}
	}
	out := make([]Topic, 0, len(idx.Topics))
	for id, e := range idx.Topics {
		if !ValidID(id) {
			continue // a hand-edited entry that names no file
		}
		out = append(out, makeTopic(id, e, files[id]))
	}
	slices.SortFunc(out, func(a, b Topic) int {
		if c := b.Created.Compare(a.Created); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Get returns one topic. A topic with a file but no entry is answered as
// List would build it, with Indexed false, and nothing is written. A topic
// with neither file nor entry (such as the one a launch starts in) is
// ErrUnknownTopic.
func (s *Store) Get(topicID string) (Topic, error) {
	if err := checkID(topicID); err != nil {
		return Topic{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, err := s.loadIndex()
	if err != nil {
		return Topic{}, err
	}
	info, err := os.Stat(s.topicPath(topicID))
	if errors.Is(err, fs.ErrNotExist) {
		info = nil
	} else if err != nil {
		return Topic{}, fmt.Errorf("topicstore: topic %s: %w", topicID, err)
	}
	if e, ok := idx.Topics[topicID]; ok {
		return makeTopic(topicID, e, info), nil
	}
	if info == nil {
		return Topic{}, fmt.Errorf("topicstore: topic %s: %w", topicID, ErrUnknownTopic)
	}
	e, err := s.entryFromFile(topicID)
	if errors.Is(err, fs.ErrNotExist) {
		return Topic{}, fmt.Errorf("topicstore: topic %s: %w", topicID, ErrUnknownTopic)
	}
	if err != nil {
		return Topic{}, err
	}
	t := makeTopic(topicID, e, info)
	t.Indexed = false
	return t, nil
}
