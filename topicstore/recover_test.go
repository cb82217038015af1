package topicstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// asides returns the names of the damaged indexes kept in s's directory.
func asides(t *testing.T, s *Store) []string {
	t.Helper()
	ents, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), indexName+corruptSuffix) {
			out = append(out, e.Name())
		}
	}
	return out
}

// byID maps a topic list by id.
func byID(list []Topic) map[string]Topic {
	out := map[string]Topic{}
	for _, t := range list {
		out[t.ID] = t
	}
	return out
}

// TestCorruptIndexRebuiltFromFiles: an index.json that is not JSON no
// longer hides the topics whose files are intact. It is kept aside byte
// for byte, the index is rebuilt from the files, and Recovered says so.
func TestCorruptIndexRebuiltFromFiles(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a, b := NewID(), NewID()
	mustAppend(t, s, a, mkPost("m1", "first topic"))
	mustAppend(t, s, b, mkPost("m2", "second topic"))
	path := filepath.Join(s.dir, indexName)
	const junk = "{not json\x00\xff"
	if err := os.WriteFile(path, []byte(junk), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := s.Recovered(); got != "" {
		t.Fatalf("Recovered before anything happened = %q", got)
	}
	list, err := s.List()
	if err != nil {
		t.Fatalf("List on a corrupt index: %v", err)
	}
	got := byID(list)
	if len(list) != 2 || got[a].Name != "first topic" || got[b].Name != "second topic" || !got[a].Indexed {
		t.Fatalf("List = %+v", list)
	}
	// The damaged file is kept, with the store's clock in its name.
	kept := asides(t, s)
	if len(kept) != 1 || !regexp.MustCompile(`^index\.json\.corrupt-20260827T1000\d\dZ$`).MatchString(kept[0]) {
		t.Fatalf("kept aside: %v", kept)
	}
	data, err := os.ReadFile(filepath.Join(s.dir, kept[0]))
	if err != nil || string(data) != junk {
		t.Fatalf("kept file = %q, %v; want the damaged bytes", data, err)
	}
	if info, _ := os.Stat(filepath.Join(s.dir, kept[0])); info.Mode().Perm() != 0o600 {
		t.Fatalf("kept file mode %v", info.Mode())
	}
	// The new index is readable and has both entries.
	idx, ok := readIndex(t, s)
	if !ok || len(idx.Topics) != 2 {
		t.Fatalf("rebuilt index = %+v", idx)
	}
	msg := s.Recovered()
	for _, want := range []string{filepath.Join(s.dir, kept[0]), "rebuilt: 2 topics", "0 read back from it and 2 from their log files"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("Recovered() = %q, want it to say %q", msg, want)
		}
	}
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("Recovered() is not one line: %q", msg)
	}
	// Nothing more happens once it is rebuilt.
	if _, err := s.List(); err != nil || len(asides(t, s)) != 1 {
		t.Fatalf("second List: %v, asides %v", err, asides(t, s))
	}
	// Writing acts work again.
	if err := s.SetSession(a, "acct", "sid"); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRecoversIndex: Open recovers a damaged index before it returns,
// so the app can say so at once; a damaged file met later is recovered by
// the next use of the index and does not replace an earlier kept file.
func TestOpenRecoversIndex(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "logs", "main")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	id := NewID()
	mustAppend(t, s, id, mkPost("m1", "hello"))
	if err := s.SetSession(id, "claude", "sess-1"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, indexName)
	if err := os.WriteFile(path, []byte(`{"topics": [`), 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	msg := s2.Recovered()
	re := regexp.MustCompile(`kept as (\S+index\.json\.corrupt-\d{8}T\d{6}Z) and rebuilt: 1 topic, 0 read back from it and 1 from its log file\.$`)
	m := re.FindStringSubmatch(msg)
	if m == nil {
		t.Fatalf("Recovered() after Open = %q", msg)
	}
	if _, err := os.Stat(m[1]); err != nil {
		t.Fatalf("the named file: %v", err)
	}
	if idx, ok := readIndex(t, s2); !ok || idx.Topics[id] == nil || idx.Topics[id].Name != "hello" {
		t.Fatalf("Open did not write the rebuilt index: %+v", idx)
	}
	// Damaged again while open, in the same second: a second file.
	s2.now = func() time.Time { return time.Date(2026, 12, 1, 9, 58, 0, 0, time.UTC) }
	for i := range 2 {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("damage %d", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := s2.Get(id); err != nil {
			t.Fatal(err)
		}
	}
	for i, name := range []string{"index.json.corrupt-20261201T095800Z", "index.json.corrupt-20261201T095800Z-2"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || string(data) != fmt.Sprintf("damage %d", i) {
			t.Fatalf("%s = %q, %v", name, data, err)
		}
	}
	if !strings.Contains(s2.Recovered(), "index.json.corrupt-20261201T095800Z-2 ") {
		t.Fatalf("Recovered() = %q, want the latest recovery", s2.Recovered())
	}
	// A healthy index: Open says nothing.
	s3, err := Open(dir)
	if err != nil || s3.Recovered() != "" {
		t.Fatalf("Open of a healthy store: %q, %v", s3.Recovered(), err)
	}
}

// buildIndex makes a store whose index holds several kinds of entries and
// returns it with the bytes of its index.json.
func buildIndex(t *testing.T) (s *Store, data []byte, ids []string) {
	t.Helper()
	s = newStore(t)
	for range 5 {
		ids = append(ids, NewID())
	}
	// 0: posts, renamed, two sessions.
	mustAppend(t, s, ids[0], mkPost("m0", "zero"))
	must(t, s.NoteFirstPost(ids[0], "zero"))
	must(t, s.Rename(ids[0], "Renamed zero"))
	must(t, s.SetSession(ids[0], "claude", "c-0"))
	must(t, s.SetSession(ids[0], "codex", "x-0"))
	// 1: a seat start only: no file, no name, a session.
	must(t, s.SetSession(ids[1], "claude", "c-1"))
	// 2: posts and a session.
	mustAppend(t, s, ids[2], mkPost("m2", "two"))
	must(t, s.NoteFirstPost(ids[2], "two"))
	must(t, s.SetSession(ids[2], "claude", "c-2"))
	// 3: posts, renamed, three sessions.
	mustAppend(t, s, ids[3], mkPost("m3", "three"))
	must(t, s.NoteFirstPost(ids[3], "three"))
	must(t, s.Rename(ids[3], "Renamed three"))
	must(t, s.SetSession(ids[3], "a", "s-a"))
	must(t, s.SetSession(ids[3], "b", "s-b"))
	must(t, s.SetSession(ids[3], "c", "s-c"))
	// 4: posts only.
	mustAppend(t, s, ids[4], mkPost("m4", "four"))
	must(t, s.NoteFirstPost(ids[4], "four"))
	data, err := os.ReadFile(filepath.Join(s.dir, indexName))
	if err != nil {
		t.Fatal(err)
	}
	return s, data, ids
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestPartlyReadableIndexSalvaged: what a damaged index still holds is
// kept — names (a rename is not in any file) and session records (resume
// records are nowhere else) — field by field up to the damage and entry by
// entry after it; what it lost is rebuilt from the topic files.
func TestPartlyReadableIndexSalvaged(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		damage  func(text string, ids []string) string
		check   func(t *testing.T, got map[string]Topic, ids []string)
		wantMsg string
	}{
		{
			name: "truncated inside the fourth entry's sessions",
			damage: func(text string, ids []string) string {
				return text[:strings.Index(text, `"s-b"`)+2] // cut inside "s-b"
			},
			check: func(t *testing.T, got map[string]Topic, ids []string) {
				want := map[string]Topic{
					ids[0]: {Name: "Renamed zero", Sessions: map[string]string{"claude": "c-0", "codex": "x-0"}},
					ids[1]: {Sessions: map[string]string{"claude": "c-1"}},
					ids[2]: {Name: "two", Sessions: map[string]string{"claude": "c-2"}},
					ids[3]: {Name: "Renamed three", Sessions: map[string]string{"a": "s-a"}},
					ids[4]: {Name: "four"}, // rebuilt from its file
				}
				for id, w := range want {
					if got[id].Name != w.Name || !reflect.DeepEqual(got[id].Sessions, w.Sessions) {
						t.Errorf("topic %s = %q %v, want %q %v", id, got[id].Name, got[id].Sessions, w.Name, w.Sessions)
					}
				}
			},
			wantMsg: "rebuilt: 5 topics, 4 read back from it and 1 from its log file",
		},
		{
			name: "bytes overwritten in the middle of the second entry",
			damage: func(text string, ids []string) string {
				i := strings.Index(text, ids[1])
				return text[:i+10] + "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + text[i+20:]
			},
			check: func(t *testing.T, got map[string]Topic, ids []string) {
				if got[ids[0]].Name != "Renamed zero" || got[ids[0]].Sessions["codex"] != "x-0" {
					t.Errorf("entry before the damage: %+v", got[ids[0]])
				}
				if _, ok := got[ids[1]]; ok {
					t.Errorf("the damaged entry (no file) came back: %+v", got[ids[1]])
				}
				if got[ids[3]].Name != "Renamed three" || len(got[ids[3]].Sessions) != 3 {
					t.Errorf("entry after the damage: %+v", got[ids[3]])
				}
				if got[ids[2]].Sessions["claude"] != "c-2" || got[ids[4]].Name != "four" {
					t.Errorf("entries after the damage: %+v %+v", got[ids[2]], got[ids[4]])
				}
			},
			wantMsg: "rebuilt: 4 topics, 4 read back from it and 0 from their log files",
		},
		{
			name: "a value turned into an unterminated array",
			damage: func(text string, ids []string) string {
				return strings.Replace(text, `"created": "`, `"created": ["`, 1)
			},
			check: func(t *testing.T, got map[string]Topic, ids []string) {
				// The first entry's created became an unterminated array:
				// what follows it in that entry is lost, the rest is kept.
				if len(got) != 5 || got[ids[3]].Sessions["c"] != "s-c" || got[ids[1]].Sessions["claude"] != "c-1" {
					t.Errorf("list = %+v", got)
				}
				if got[ids[0]].Created.IsZero() {
					t.Errorf("a lost creation time is not taken from the file: %+v", got[ids[0]])
				}
			},
			wantMsg: "rebuilt: 5 topics",
		},
		{
			name: "valid JSON of the wrong shape",
			damage: func(text string, ids []string) string {
				return strings.Replace(text, `"claude": "c-2"`, `"claude": 2`, 1)
			},
			check: func(t *testing.T, got map[string]Topic, ids []string) {
				if len(got) != 5 || got[ids[2]].Sessions != nil || got[ids[2]].Name != "two" || len(got[ids[3]].Sessions) != 3 {
					t.Errorf("list = %+v", got)
				}
			},
			wantMsg: "rebuilt: 5 topics, 5 read back from it and 0 from their log files",
		},
		{
			name: "only the head left",
			damage: func(text string, ids []string) string {
				return `{"topics": {`
			},
			check: func(t *testing.T, got map[string]Topic, ids []string) {
				if len(got) != 4 || got[ids[0]].Name != "zero" || got[ids[0]].Sessions != nil {
					t.Errorf("list = %+v", got)
				}
			},
			wantMsg: "rebuilt: 4 topics, 0 read back from it and 4 from their log files",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, _, ids := buildIndex(t)
			// Each store has its own ids: make its own damaged copy.
			own, err := os.ReadFile(filepath.Join(s.dir, indexName))
			if err != nil {
				t.Fatal(err)
			}
			damaged := tt.damage(string(own), ids)
			if err := os.WriteFile(filepath.Join(s.dir, indexName), []byte(damaged), 0o600); err != nil {
				t.Fatal(err)
			}
			list, err := s.List()
			if err != nil {
				t.Fatalf("List: %v", err)
			}
			tt.check(t, byID(list), ids)
			if msg := s.Recovered(); !strings.Contains(msg, tt.wantMsg) {
				t.Errorf("Recovered() = %q, want %q", msg, tt.wantMsg)
			}
			kept := asides(t, s)
			if len(kept) != 1 {
				t.Fatalf("kept %v", kept)
			}
			if data, _ := os.ReadFile(filepath.Join(s.dir, kept[0])); string(data) != damaged {
				t.Fatal("the kept file is not the damaged one")
			}
		})
	}
}

// TestSalvageHealthyIndex: on an index that is not damaged the salvage
// reads exactly what json.Unmarshal reads, so that nothing is invented by
// the shape search (a sessions object is not an entry, a name spelling
// an entry is a name).
func TestSalvageHealthyIndex(t *testing.T) {
	t.Parallel()
	s, _, ids := buildIndex(t)
	must(t, s.Rename(ids[4], `tricky ,"abc": {"name": "x"}`))
	data, err := os.ReadFile(filepath.Join(s.dir, indexName))
	if err != nil {
		t.Fatal(err)
	}
	want, err := parseIndex(data)
	if err != nil {
		t.Fatal(err)
	}
	got := salvageIndex(data)
	if !reflect.DeepEqual(got, want.Topics) {
		t.Fatalf("salvage of a healthy index:\n got %+v\nwant %+v", got, want.Topics)
	}
}

// TestRecoveryFailureKeepsTheFile: when the damaged index cannot be kept
// aside, it is not replaced and the error says ErrBadIndex.
func TestRecoveryFailureKeepsTheFile(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	mustAppend(t, s, NewID(), mkPost("m", "c"))
	path := filepath.Join(s.dir, indexName)
	must(t, os.WriteFile(path, []byte("{bad"), 0o600))
	// Every name the kept copy could take is already a directory.
	stamp := s.now().Add(time.Second).UTC().Format("20060102T150405Z")
	base := filepath.Join(s.dir, indexName+corruptSuffix+stamp)
	must(t, os.Mkdir(base, 0o700))
	for n := 2; n <= 1000; n++ {
		must(t, os.Mkdir(fmt.Sprintf("%s-%d", base, n), 0o700))
	}
	_, err := s.List()
	if !errors.Is(err, ErrBadIndex) || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("List = %v, want ErrBadIndex and the reason", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{bad" || s.Recovered() != "" {
		t.Fatalf("index replaced (%q) or recovery reported (%q)", data, s.Recovered())
	}
	// Appending does not need the index.
	if _, err := s.Append("t", mkPost("m", "c")); err != nil {
		t.Fatal(err)
	}
}
