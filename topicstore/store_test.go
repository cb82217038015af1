package topicstore

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// newStore opens a store in a fresh <tmp>/logs/main with a clock that
// advances one second per call, starting at 2026-08-27T10:00:00Z.
func newStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "logs", "main"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	clock := time.Date(2026, 8, 27, 10, 0, 0, 0, time.UTC)
	s.now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	return s
}

func mkPost(id, content string) Post {
	return Post{MessageID: id, Speaker: "alice", Content: content, TS: "2026-08-27T10:00:00Z"}
}

// readIndex returns the index as stored, and whether index.json exists.
func readIndex(t *testing.T, s *Store) (indexFile, bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(s.dir, indexName))
	if errors.Is(err, fs.ErrNotExist) {
		return indexFile{}, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var idx indexFile
	if err := json.Unmarshal(data, &idx); err != nil {
		t.Fatalf("index.json: %v\n%s", err, data)
	}
	return idx, true
}

func mustAppend(t *testing.T, s *Store, topic string, p Post) bool {
	t.Helper()
	first, err := s.Append(topic, p)
	if err != nil {
		t.Fatal(err)
	}
	return first
}

func TestOpenCreatesDirWithoutIndex(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "logs", "main")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(dir)
	if err != nil || !info.IsDir() || info.Mode().Perm() != 0o700 {
		t.Fatalf("dir: %v %v", info, err)
	}
	if _, ok := readIndex(t, s); ok {
		t.Fatal("Open wrote index.json")
	}
	if !filepath.IsAbs(s.Dir()) {
		t.Fatalf("Dir() = %q, not absolute", s.Dir())
	}
}

func TestLazyCreation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		act       func(t *testing.T, s *Store, id string)
		wantEntry bool
		wantName  string
		wantSess  map[string]string
	}{
		{
			name:      "nothing done",
			act:       func(*testing.T, *Store, string) {},
			wantEntry: false,
		},
		{
			name: "Append alone creates no entry",
			act: func(t *testing.T, s *Store, id string) {
				if !mustAppend(t, s, id, mkPost("m1", "hello")) {
					t.Fatal("first Append: first = false")
				}
				if mustAppend(t, s, id, mkPost("m2", "again")) {
					t.Fatal("second Append: first = true")
				}
			},
			wantEntry: false,
		},
		{
			name: "NoteFirstPost creates a named entry",
			act: func(t *testing.T, s *Store, id string) {
				mustAppend(t, s, id, mkPost("m1", "hello world\nsecond line"))
				if err := s.NoteFirstPost(id, "hello world\nsecond line"); err != nil {
					t.Fatal(err)
				}
			},
			wantEntry: true,
			wantName:  "hello world",
		},
		{
			name: "SetSession creates an unnamed entry",
			act: func(t *testing.T, s *Store, id string) {
				if err := s.SetSession(id, "acct-1", "sid-1"); err != nil {
					t.Fatal(err)
				}
			},
			wantEntry: true,
			wantSess:  map[string]string{"acct-1": "sid-1"},
		},
		{
			name: "SetSession without a session id still materialises",
			act: func(t *testing.T, s *Store, id string) {
				if err := s.SetSession(id, "acct-1", ""); err != nil {
					t.Fatal(err)
				}
			},
			wantEntry: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id := NewID()
			tt.act(t, s, id)
			idx, ok := readIndex(t, s)
			e := idx.Topics[id]
			if (ok && e != nil) != tt.wantEntry {
				t.Fatalf("index entry present = %v, want %v (index exists %v)", e != nil, tt.wantEntry, ok)
			}
			if !tt.wantEntry {
				return
			}
			if e.Name != tt.wantName {
				t.Errorf("name = %q, want %q", e.Name, tt.wantName)
			}
			if !reflect.DeepEqual(e.Sessions, tt.wantSess) {
				t.Errorf("sessions = %v, want %v", e.Sessions, tt.wantSess)
			}
			if e.Created != "2026-08-27T10:00:01Z" {
				t.Errorf("created = %q, want the clock's now", e.Created)
			}
		})
	}
}

func TestIndexFormat(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if err := s.SetSession("t1", "acct", "sid"); err != nil {
		t.Fatal(err)
	}
	if err := s.NoteFirstPost("t2", "named"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.dir, indexName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]map[string]map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	t1, t2 := raw["topics"]["t1"], raw["topics"]["t2"]
	if _, ok := t1["name"]; ok {
		t.Errorf("empty name written: %s", data)
	}
	if _, ok := t2["sessions"]; ok {
		t.Errorf("empty sessions written: %s", data)
	}
	if t2["name"] != "named" || t1["sessions"] == nil {
		t.Errorf("index = %s", data)
	}
	if _, err := time.Parse(time.RFC3339, t1["created"].(string)); err != nil {
		t.Errorf("created not RFC 3339: %v", err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("index mode: %v %v", info.Mode(), err)
	}
	ents, _ := os.ReadDir(s.dir)
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Fatalf("temporary file left: %s", e.Name())
		}
	}
}

func TestNamingKeepsFirstNameAndRename(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		act  func(s *Store, id string) error
		want string
	}{
		{
			name: "first post names",
			act:  func(s *Store, id string) error { return s.NoteFirstPost(id, "plan the release") },
			want: "plan the release",
		},
		{
			name: "second NoteFirstPost does not rename",
			act: func(s *Store, id string) error {
				if err := s.NoteFirstPost(id, "plan the release"); err != nil {
					return err
				}
				return s.NoteFirstPost(id, "something else")
			},
			want: "plan the release",
		},
		{
			name: "seat entry without name gets named by the first post",
			act: func(s *Store, id string) error {
				if err := s.SetSession(id, "a", "s"); err != nil {
					return err
				}
				return s.NoteFirstPost(id, "now we talk")
			},
			want: "now we talk",
		},
		{
			name: "renamed before the first post keeps its name",
			act: func(s *Store, id string) error {
				if err := s.SetSession(id, "a", "s"); err != nil {
					return err
				}
				if err := s.Rename(id, "My plan"); err != nil {
					return err
				}
				return s.NoteFirstPost(id, "now we talk")
			},
			want: "My plan",
		},
		{
			name: "rename after the first post",
			act: func(s *Store, id string) error {
				if err := s.NoteFirstPost(id, "now we talk"); err != nil {
					return err
				}
				return s.Rename(id, "  Renamed\n topic ")
			},
			want: "Renamed topic",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id := NewID()
			mustAppend(t, s, id, mkPost("m1", "x"))
			if err := tt.act(s, id); err != nil {
				t.Fatal(err)
			}
			got, err := s.Get(id)
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != tt.want {
				t.Fatalf("name = %q, want %q", got.Name, tt.want)
			}
		})
	}
}

func TestRename(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		setup   func(t *testing.T, s *Store, id string)
		newName string
		wantErr error
		want    string
	}{
		{name: "empty", setup: withEntry, newName: "", wantErr: ErrBadName},
		{name: "blank", setup: withEntry, newName: " \n\t", wantErr: ErrBadName},
		{name: "control only", setup: withEntry, newName: "\x00\x01", wantErr: ErrBadName},
		{name: "too long", setup: withEntry, newName: strings.Repeat("x", MaxNameRunes+1), wantErr: ErrBadName},
		{name: "longest", setup: withEntry, newName: strings.Repeat("x", MaxNameRunes), want: strings.Repeat("x", MaxNameRunes)},
		{name: "neither file nor entry", setup: func(*testing.T, *Store, string) {}, newName: "x", wantErr: ErrUnknownTopic},
		{
			name: "file without entry gets an entry",
			setup: func(t *testing.T, s *Store, id string) {
				mustAppend(t, s, id, mkPost("m1", "x"))
			},
			newName: "named", want: "named",
		},
		{name: "entry without file", setup: withEntry, newName: "a\r\nb", want: "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id := NewID()
			tt.setup(t, s, id)
			err := s.Rename(id, tt.newName)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Rename error = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			idx, _ := readIndex(t, s)
			if e := idx.Topics[id]; e == nil || e.Name != tt.want {
				t.Fatalf("entry = %+v, want name %q", e, tt.want)
			}
		})
	}
}

func withEntry(t *testing.T, s *Store, id string) {
	t.Helper()
	if err := s.SetSession(id, "acct", "sid"); err != nil {
		t.Fatal(err)
	}
}

func TestSessions(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := NewID()
	if err := s.SetSession(id, "", "sid"); !errors.Is(err, ErrBadAccount) {
		t.Fatalf("empty account: %v", err)
	}
	if dropped, err := s.DropSession(id, "a", ""); dropped || err != nil {
		t.Fatalf("drop on unknown topic = %v, %v", dropped, err)
	}
	steps := []struct {
		name   string
		act    func() (bool, error)
		wantOK bool
		want   map[string]string
	}{
		{"record a", func() (bool, error) { return true, s.SetSession(id, "a", "s1") }, true, map[string]string{"a": "s1"}},
		{"record b", func() (bool, error) { return true, s.SetSession(id, "b", "t1") }, true, map[string]string{"a": "s1", "b": "t1"}},
		{"replace a", func() (bool, error) { return true, s.SetSession(id, "a", "s2") }, true, map[string]string{"a": "s2", "b": "t1"}},
		{"empty id keeps the record", func() (bool, error) { return true, s.SetSession(id, "a", "") }, true, map[string]string{"a": "s2", "b": "t1"}},
		{"drop a only if s1: newer s2 kept", func() (bool, error) { return s.DropSession(id, "a", "s1") }, false, map[string]string{"a": "s2", "b": "t1"}},
		{"drop a only if s2", func() (bool, error) { return s.DropSession(id, "a", "s2") }, true, map[string]string{"b": "t1"}},
		{"drop absent account", func() (bool, error) { return s.DropSession(id, "a", "") }, false, map[string]string{"b": "t1"}},
		{"drop b unconditionally", func() (bool, error) { return s.DropSession(id, "b", "") }, true, nil},
	}
	for _, st := range steps {
		ok, err := st.act()
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if ok != st.wantOK {
			t.Fatalf("%s: dropped/ok = %v, want %v", st.name, ok, st.wantOK)
		}
		got, err := s.Get(id)
		if err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if !reflect.DeepEqual(got.Sessions, st.want) {
			t.Fatalf("%s: sessions = %v, want %v", st.name, got.Sessions, st.want)
		}
	}
	// The entry stays once its last session is dropped.
	if idx, _ := readIndex(t, s); idx.Topics[id] == nil {
		t.Fatal("entry removed with its last session")
	}
	// The returned map is a copy.
	if err := s.SetSession(id, "c", "u"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(id)
	got.Sessions["c"] = "changed"
	again, _ := s.Get(id)
	if again.Sessions["c"] != "u" {
		t.Fatal("Get returned the index's own map")
	}
}

func TestReconcileUnindexedFile(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := NewID()
	path := filepath.Join(s.dir, id+".jsonl")
	content := "garbage first\n" + string(mkPost("m1", "the real start\nof things").Line()) + string(mkPost("m2", "later").Line())
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	// Things that are not topics: sub-folders (attachments), other names.
	for _, p := range []string{"attachments/" + id + "/notes.jsonl", "attachments/x.jsonl", "sub.jsonl/y.jsonl"} {
		full := filepath.Join(s.dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(string(mkPost("a", "b").Line())), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"notes.txt", "bad name.jsonl", ".hidden.jsonl", "index.json.jsonl.bak"} {
		if err := os.WriteFile(filepath.Join(s.dir, name), []byte(string(mkPost("a", "b").Line())), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	// Get answers without writing.
	got, err := s.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Indexed || got.Name != "the real start" || !got.HasPosts {
		t.Fatalf("Get before List = %+v", got)
	}
	if _, ok := readIndex(t, s); ok {
		t.Fatal("Get wrote the index")
	}

	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 {
		t.Fatalf("List = %+v, want exactly the one topic file", list)
	}
	want := Topic{ID: id, Name: "the real start", Created: mtime, HasPosts: true, Indexed: true}
	if !reflect.DeepEqual(list[0], want) {
		t.Fatalf("List()[0] =\n %+v\nwant\n %+v", list[0], want)
	}
	idx, ok := readIndex(t, s)
	if !ok || idx.Topics[id] == nil || idx.Topics[id].Name != "the real start" || len(idx.Topics) != 1 {
		t.Fatalf("reconciled entry not written: %+v", idx)
	}
	if got, err := s.Get(id); err != nil || !got.Indexed {
		t.Fatalf("Get after List = %+v, %v", got, err)
	}
}

func TestMissingAndHasPosts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		setup        func(t *testing.T, s *Store, id string)
		wantMissing  bool
		wantHasPosts bool
	}{
		{
			name: "named entry whose file is gone",
			setup: func(t *testing.T, s *Store, id string) {
				mustAppend(t, s, id, mkPost("m1", "hello"))
				if err := s.NoteFirstPost(id, "hello"); err != nil {
					t.Fatal(err)
				}
				if err := os.Remove(s.topicPath(id)); err != nil {
					t.Fatal(err)
				}
			},
			wantMissing: true,
		},
		{
			name: "named entry with sessions whose file is gone",
			setup: func(t *testing.T, s *Store, id string) {
				if err := s.NoteFirstPost(id, "hello"); err != nil {
					t.Fatal(err)
				}
				if err := s.SetSession(id, "a", "s"); err != nil {
					t.Fatal(err)
				}
			},
			wantMissing: true,
		},
		{
			name: "seat-only entry with a session",
			setup: func(t *testing.T, s *Store, id string) {
				if err := s.SetSession(id, "a", "s"); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "seat-only entry without a session id",
			setup: func(t *testing.T, s *Store, id string) {
				if err := s.SetSession(id, "a", ""); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "seat-only entry whose resume was dropped",
			setup: func(t *testing.T, s *Store, id string) {
				if err := s.SetSession(id, "a", "s"); err != nil {
					t.Fatal(err)
				}
				if _, err := s.DropSession(id, "a", "s"); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "entry with posts",
			setup: func(t *testing.T, s *Store, id string) {
				mustAppend(t, s, id, mkPost("m1", "hello"))
				if err := s.NoteFirstPost(id, "hello"); err != nil {
					t.Fatal(err)
				}
			},
			wantHasPosts: true,
		},
		{
			name: "entry with an empty file",
			setup: func(t *testing.T, s *Store, id string) {
				if err := s.NoteFirstPost(id, "hello"); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(s.topicPath(id), nil, 0o600); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "file of garbage only has posts by size",
			setup: func(t *testing.T, s *Store, id string) {
				if err := os.WriteFile(s.topicPath(id), []byte("garbage\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantHasPosts: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id := NewID()
			tt.setup(t, s, id)
			list, err := s.List()
			if err != nil {
				t.Fatal(err)
			}
			if len(list) != 1 || list[0].ID != id {
				t.Fatalf("List = %+v: an entry must be listed, not hidden", list)
			}
			got := list[0]
			if got.Missing != tt.wantMissing || got.HasPosts != tt.wantHasPosts {
				t.Fatalf("Missing, HasPosts = %v, %v; want %v, %v", got.Missing, got.HasPosts, tt.wantMissing, tt.wantHasPosts)
			}
			single, err := s.Get(id)
			if err != nil || !reflect.DeepEqual(single, got) {
				t.Fatalf("Get = %+v, %v; List said %+v", single, err, got)
			}
			has, err := s.HasPosts(id)
			if err != nil || has != tt.wantHasPosts {
				t.Fatalf("HasPosts = %v, %v", has, err)
			}
		})
	}
}

func TestGetUnknownTopic(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	if _, err := s.Get(NewID()); !errors.Is(err, ErrUnknownTopic) {
		t.Fatalf("Get of the launch's topic: %v, want ErrUnknownTopic", err)
	}
	if has, err := s.HasPosts(NewID()); has || err != nil {
		t.Fatalf("HasPosts of no file = %v, %v", has, err)
	}
}

func TestListNewestFirst(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	var ids []string
	for i := range 5 {
		id := fmt.Sprintf("topic-%d", i)
		ids = append(ids, id)
		if err := s.SetSession(id, "a", "s"); err != nil { // clock advances
			t.Fatal(err)
		}
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tp := range list {
		got = append(got, tp.ID)
	}
	want := []string{"topic-4", "topic-3", "topic-2", "topic-1", "topic-0"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("order = %v, want %v (ids %v)", got, want, ids)
	}
}

// TestNoWriteWithoutChange checks that reading and acts that change nothing
// leave index.json as it was (same file, so never rewritten).
func TestNoWriteWithoutChange(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := NewID()
	mustAppend(t, s, id, mkPost("m1", "hello"))
	if err := s.NoteFirstPost(id, "hello"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetSession(id, "a", "s"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.dir, indexName)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	acts := map[string]func() error{
		"List":                  func() error { _, err := s.List(); return err },
		"Get":                   func() error { _, err := s.Get(id); return err },
		"Get of unknown":        func() error { _, _ = s.Get(NewID()); return nil },
		"Page":                  func() error { _, err := s.Page(id, 10, ""); return err },
		"ReadAll":               func() error { _, _, err := s.ReadAll(id); return err },
		"HasPosts":              func() error { _, err := s.HasPosts(id); return err },
		"Append":                func() error { _, err := s.Append(id, mkPost("m2", "x")); return err },
		"NoteFirstPost again":   func() error { return s.NoteFirstPost(id, "other") },
		"SetSession same":       func() error { return s.SetSession(id, "a", "s") },
		"SetSession no id":      func() error { return s.SetSession(id, "b", "") },
		"DropSession mismatch":  func() error { _, err := s.DropSession(id, "a", "other"); return err },
		"DropSession absent":    func() error { _, err := s.DropSession(id, "zz", ""); return err },
		"Rename same":           func() error { return s.Rename(id, "hello") },
		"Delete of nothing":     func() error { return s.Delete(NewID()) },
		"AttachmentDir":         func() error { _, err := s.AttachmentDir(id); return err },
		"Open again":            func() error { _, err := Open(s.dir); return err },
		"List after everything": func() error { _, err := s.List(); return err },
	}
	for name, act := range acts {
		if err := act(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		after, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if !os.SameFile(before, after) {
			t.Fatalf("%s rewrote index.json", name)
		}
	}
}

func TestLegacyMigration(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	logs := filepath.Join(root, "logs")
	if err := os.MkdirAll(logs, 0o700); err != nil {
		t.Fatal(err)
	}
	legacy := filepath.Join(logs, "main.jsonl")
	old := `{"message_id":"m1","speaker":"alice","content":"the old days","ts":"2026-08-01T00:00:00Z"}` + "\n" +
		`{"message_id":"m2","speaker":"bob","content":"reply","to":"alice","ts":"2026-08-01T00:00:01Z"}` + "\n"
	if err := os.WriteFile(legacy, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	legacyInfo, err := os.Stat(legacy)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(logs, "main"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Fatalf("Open moved the legacy log already: %v", err)
	}
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 1 || list[0].Name != "the old days" || !list[0].HasPosts || !list[0].Indexed {
		t.Fatalf("List after migration = %+v", list)
	}
	id := list[0].ID
	if !ValidID(id) || len(id) != 36 {
		t.Fatalf("migrated topic id %q", id)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("legacy log still there (copied, not moved): %v", err)
	}
	movedInfo, err := os.Stat(s.topicPath(id))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(legacyInfo, movedInfo) {
		t.Fatal("topic file is a copy, not the moved legacy file")
	}
	if idx, ok := readIndex(t, s); !ok || idx.Topics[id] == nil {
		t.Fatalf("migration did not write the index entry")
	}
	posts, skipped, err := s.ReadAll(id)
	if err != nil || skipped != 0 || len(posts) != 2 || !reflect.DeepEqual(posts[1].To, []string{"alice"}) {
		t.Fatalf("ReadAll = %+v, %d, %v", posts, skipped, err)
	}
	// Once the index exists a new legacy file is left alone.
	if err := os.WriteFile(legacy, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	if list, err := s.List(); err != nil || len(list) != 1 {
		t.Fatalf("second List = %+v, %v", list, err)
	}
	if _, err := os.Stat(legacy); err != nil {
		t.Fatalf("legacy file moved a second time: %v", err)
	}
}

func TestLegacyMigrationOnFirstIndexWrite(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	legacy := filepath.Join(root, "logs", "main.jsonl")
	if err := os.MkdirAll(filepath.Dir(legacy), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(legacy, []byte(`{"message_id":"m1","speaker":"a","content":"old","ts":"t"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(filepath.Join(root, "logs", "main"))
	if err != nil {
		t.Fatal(err)
	}
	// The first index act (a seat start) builds the index: both topics end up in it.
	if err := s.SetSession("current", "a", "s"); err != nil {
		t.Fatal(err)
	}
	idx, _ := readIndex(t, s)
	if len(idx.Topics) != 2 || idx.Topics["current"] == nil {
		t.Fatalf("index = %+v", idx.Topics)
	}
	if _, err := os.Stat(legacy); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("legacy log not moved")
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, s *Store, id string)
	}{
		{
			name: "file, attachments, answers and entry",
			setup: func(t *testing.T, s *Store, id string) {
				writeAnswers(t, s, id)
				mustAppend(t, s, id, mkPost("m1", "hi"))
				if err := s.NoteFirstPost(id, "hi"); err != nil {
					t.Fatal(err)
				}
				if err := s.SetSession(id, "a", "s"); err != nil {
					t.Fatal(err)
				}
				writeAttachment(t, s, id, "image.png")
				writeAttachment(t, s, id, "sub/deep.txt")
			},
		},
		{
			name: "entry without file is not an error",
			setup: func(t *testing.T, s *Store, id string) {
				if err := s.SetSession(id, "a", "s"); err != nil {
					t.Fatal(err)
				}
			},
		},
		{
			name: "file without entry",
			setup: func(t *testing.T, s *Store, id string) {
				mustAppend(t, s, id, mkPost("m1", "hi"))
				writeAttachment(t, s, id, "image.png")
			},
		},
		{
			name:  "nothing at all",
			setup: func(*testing.T, *Store, string) {},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id, other := NewID(), NewID()
			tt.setup(t, s, id)
			// A neighbour that must survive.
			mustAppend(t, s, other, mkPost("o1", "other"))
			if err := s.NoteFirstPost(other, "other"); err != nil {
				t.Fatal(err)
			}
			writeAttachment(t, s, other, "keep.png")
			writeAnswers(t, s, other)

			if err := s.Delete(id); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(s.topicPath(id)); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("topic file left: %v", err)
			}
			att, _ := s.AttachmentDir(id)
			if _, err := os.Stat(att); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("attachments left: %v", err)
			}
			if _, err := s.Get(id); !errors.Is(err, ErrUnknownTopic) {
				t.Errorf("Get after Delete: %v", err)
			}
			list, err := s.List()
			if err != nil || len(list) != 1 || list[0].ID != other {
				t.Errorf("List after Delete = %+v, %v", list, err)
			}
			if ans, _ := s.AnswersFile(id); exists(ans) {
				t.Errorf("answers left")
			}
			if ans, _ := s.AnswersFile(other); !exists(ans) {
				t.Errorf("neighbour's answers gone")
			}
			keep, _ := s.AttachmentDir(other)
			if _, err := os.Stat(filepath.Join(keep, "keep.png")); err != nil {
				t.Errorf("neighbour's attachment gone: %v", err)
			}
		})
	}
}

// writeAnswers writes a topic's record of answers (app/needslist.go).
func writeAnswers(t *testing.T, s *Store, id string) {
	t.Helper()
	p, err := s.AnswersFile(id)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func writeAttachment(t *testing.T, s *Store, id, name string) {
	t.Helper()
	dir, err := s.AttachmentDir(id)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("data"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestDeleteOrder checks file → attachments → entry, and what a failure at
// each step leaves behind.
func TestDeleteOrder(t *testing.T) {
	t.Parallel()
	errDisk := errors.New("disk says no")
	setup := func(t *testing.T) (*Store, string) {
		s := newStore(t)
		id := NewID()
		mustAppend(t, s, id, mkPost("m1", "hi"))
		if err := s.NoteFirstPost(id, "hi"); err != nil {
			t.Fatal(err)
		}
		writeAttachment(t, s, id, "image.png")
		writeAnswers(t, s, id)
		return s, id
	}
	entryPresent := func(t *testing.T, s *Store, id string) bool {
		idx, _ := readIndex(t, s)
		return idx.Topics[id] != nil
	}
	t.Run("steps run in order", func(t *testing.T) {
		t.Parallel()
		s, id := setup(t)
		att, _ := s.AttachmentDir(id)
		var steps []string
		ans, _ := s.AnswersFile(id)
		s.remove = func(name string) error {
			if name == ans {
				if exists(att) || !entryPresent(t, s, id) {
					t.Error("answers removed before the attachments or after the entry")
				}
				steps = append(steps, "answers")
				return os.Remove(name)
			}
			if !exists(att) || !entryPresent(t, s, id) {
				t.Error("file removed after the attachments or the entry")
			}
			steps = append(steps, "file")
			return os.Remove(name)
		}
		s.removeAll = func(path string) error {
			if exists(s.topicPath(id)) {
				t.Error("attachments removed before the file")
			}
			if !entryPresent(t, s, id) {
				t.Error("entry removed before the attachments")
			}
			steps = append(steps, "attachments")
			return os.RemoveAll(path)
		}
		if err := s.Delete(id); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(steps, []string{"file", "attachments", "answers"}) || entryPresent(t, s, id) {
			t.Fatalf("steps = %v, entry present %v", steps, entryPresent(t, s, id))
		}
	})

	t.Run("failure removing the file changes nothing", func(t *testing.T) {
		t.Parallel()
		s, id := setup(t)
		s.remove = func(string) error { return errDisk }
		if err := s.Delete(id); !errors.Is(err, errDisk) {
			t.Fatalf("Delete error = %v", err)
		}
		att, _ := s.AttachmentDir(id)
		if !exists(s.topicPath(id)) || !exists(att) || !entryPresent(t, s, id) {
			t.Fatal("a failed first step removed something")
		}
	})

	t.Run("failure removing attachments leaves entry present, file gone", func(t *testing.T) {
		t.Parallel()
		s, id := setup(t)
		s.removeAll = func(string) error { return errDisk }
		if err := s.Delete(id); !errors.Is(err, errDisk) {
			t.Fatalf("Delete error = %v", err)
		}
		att, _ := s.AttachmentDir(id)
		if exists(s.topicPath(id)) || !exists(att) || !entryPresent(t, s, id) {
			t.Fatal("want: file gone, attachments and entry present")
		}
		got, err := s.Get(id)
		if err != nil || !got.Missing || got.HasPosts {
			t.Fatalf("half-deleted topic = %+v, %v; want listed as Missing", got, err)
		}
		// Deleting again finishes the job.
		s.removeAll = os.RemoveAll
		if err := s.Delete(id); err != nil {
			t.Fatal(err)
		}
		if exists(att) || entryPresent(t, s, id) {
			t.Fatal("second Delete did not finish")
		}
	})
}

// TestConcurrentIndexWrites fails if the index's read-modify-write is not
// guarded: concurrent acts on different topics would lose entries.
func TestConcurrentIndexWrites(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const n = 24
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id := fmt.Sprintf("t%02d", i)
			var err error
			switch i % 3 {
			case 0:
				err = s.SetSession(id, "a", "s")
			case 1:
				err = s.NoteFirstPost(id, "hello")
			default:
				if _, err = s.Append(id, mkPost("m", "c")); err == nil {
					_, err = s.List()
				}
			}
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	list, err := s.List()
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != n {
		t.Fatalf("List has %d topics, want %d", len(list), n)
	}
	idx, _ := readIndex(t, s)
	if len(idx.Topics) != n {
		t.Fatalf("index has %d entries, want %d", len(idx.Topics), n)
	}
}

func TestConcurrentAppends(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := NewID()
	const writers, each = 8, 100
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				p := mkPost(fmt.Sprintf("w%d-%d", w, i), strings.Repeat("x", 500+w))
				if _, err := s.Append(id, p); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	posts, skipped, err := s.ReadAll(id)
	if err != nil || skipped != 0 || len(posts) != writers*each {
		t.Fatalf("ReadAll: %d posts, %d skipped, %v", len(posts), skipped, err)
	}
	info, _ := os.Stat(s.topicPath(id))
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("topic file mode %v", info.Mode())
	}
}

func TestAttachmentDir(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	got, err := s.AttachmentDir("abc")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(s.Dir(), "attachments", "abc"); got != want || !filepath.IsAbs(got) {
		t.Fatalf("AttachmentDir = %q, want %q", got, want)
	}
	if _, err := os.Stat(got); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("AttachmentDir created the folder")
	}
}
