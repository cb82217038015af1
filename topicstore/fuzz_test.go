package topicstore

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParseLine: ParseLine never panics, and what it reads, written back
// with Line, is one line that reads back as the same post.
func FuzzParseLine(f *testing.F) {
	for _, seed := range []string{
		`{"message_id":"m1","speaker":"alice","content":"hello","ts":"2026-08-27T10:00:00Z"}`,
		`{"message_id":"m2","speaker":"a","full_name":"A","account":"x","from_app":true,"content":"c","to":["b","c"],"ts":"t"}`,
		`{"message_id":"m3","speaker":"a","content":"c","to":"bob","ts":"t"}`,
		`{"message_id":"m4","speaker":"a","content":"<&>\u2028\n\"","to":[null],"ts":"t"}`,
		`{"message_id":"m5","speaker":"a","content":"\xff\xfe","to":"","ts":1}`,
		`{"message_id":"m","speaker":"a","con`,
		"garbage",
		`null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseLine(data)
		if err != nil {
			return
		}
		line := p.Line()
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("Line() is not exactly one line: %q", line)
		}
		q, err := ParseLine(line)
		if err != nil {
			t.Fatalf("ParseLine(Line()) failed: %v\nline %q", err, line)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip differs:\n %#v\n %#v", p, q)
		}
	})
}

// FuzzLine: any post of valid UTF-8 strings, written by Line, parses back
// equal.
func FuzzLine(f *testing.F) {
	f.Add("m1", "alice", "", "", false, "hello", "", "2026-08-27T10:00:00Z")
	f.Add("", "", "Full Name", "acct", true, "<b>\n\t\"x\"\\", "bob,eve", "")
	f.Fuzz(func(t *testing.T, id, speaker, full, account string, fromApp bool, content, to, ts string) {
		for _, s := range []string{id, speaker, full, account, content, to, ts} {
			if !utf8.ValidString(s) {
				return // Line writes invalid UTF-8 as U+FFFD by design
			}
		}
		p := Post{MessageID: id, Speaker: speaker, FullName: full, Account: account, FromApp: fromApp, Content: content, TS: ts}
		if to != "" {
			p.To = strings.Split(to, ",")
		}
		line := p.Line()
		if bytes.IndexByte(line, '\n') != len(line)-1 {
			t.Fatalf("Line() is not exactly one line: %q", line)
		}
		q, err := ParseLine(line)
		if err != nil {
			t.Fatalf("ParseLine(Line()): %v\nline %q", err, line)
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip differs:\n %#v\n %#v", p, q)
		}
	})
}

// FuzzPage: on any bytes, Page never panics, returns only posts that
// parse, and agrees with ReadAll: the last page is a tail of ReadAll (the
// last limit posts when every id is unique, not empty and held by its line
// in plain text), and walking back with before = the oldest post's id,
// whatever the ids are (empty, repeated), ends, yields every post exactly
// once and counts every skipped line once.
func FuzzPage(f *testing.F) {
	good := string(mkPost("a", "x").Line()) + string(mkPost("b", "y").Line())
	f.Add([]byte(good), uint8(1), uint8(3))
	f.Add([]byte("garbage\n"+good+`{"torn`), uint8(2), uint8(1))
	f.Add([]byte("\n\n\r\n"+good+"\n"+good), uint8(0), uint8(64))
	f.Add([]byte{}, uint8(5), uint8(5))
	f.Add([]byte(`{"message_id":"a","speaker":"s","content":"c","to":"x"}`+"\n}\n"), uint8(1), uint8(2))
	// Repeated and empty ids, an id spelt with an escape, a key of another
	// case (encoding/json matches keys without regard to case).
	f.Add([]byte(line("x")+line("b")+line("x")+line("")+line("c")+line("x")), uint8(1), uint8(7))
	f.Add([]byte(line("")+line("")+line("")+line("a")+line("")), uint8(2), uint8(9))
	f.Add([]byte(line("m1")+`{"message_id":"m\u0031","speaker":"s","content":"c"}`+"\n"+line("z")), uint8(1), uint8(16))
	f.Add([]byte(line("q")+`{"message_id":"z","MESSAGE_ID":"q","speaker":"s","content":"c"}`+"\n"+line("r")), uint8(1), uint8(5))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, limit, chunk uint8) {
		s, err := Open(filepath.Join(dir, "s"))
		if err != nil {
			t.Fatal(err)
		}
		s.chunk = int(chunk)
		id := "fuzz"
		if err := os.WriteFile(s.topicPath(id), data, 0o600); err != nil {
			t.Fatal(err)
		}
		all, allSkipped, err := s.ReadAll(id)
		if err != nil {
			t.Fatal(err)
		}
		lim := int(limit)
		page, err := s.Page(id, lim, "")
		if err != nil {
			t.Fatal(err)
		}
		if lim <= 0 {
			lim = DefaultLimit
		}
		for _, p := range page.Posts {
			if _, err := ParseLine(p.Line()); err != nil {
				t.Fatalf("returned post does not parse: %v", err)
			}
		}
		tail := all[len(all)-min(len(all), len(page.Posts)):]
		if len(page.Posts) != len(tail) || (len(tail) > 0 && !reflect.DeepEqual(page.Posts, tail)) {
			t.Fatalf("last page of %d posts is not ReadAll's tail", len(page.Posts))
		}
		if page.HasMore != (len(page.Posts) < len(all)) {
			t.Fatalf("HasMore = %v with %d posts of %d", page.HasMore, len(page.Posts), len(all))
		}
		if plainUniqueIDs(data) {
			if want := min(lim, len(all)); len(page.Posts) != want {
				t.Fatalf("last page has %d posts, want %d (ids are unique)", len(page.Posts), want)
			}
		}
		got := page.Posts
		skipped := page.Skipped
		for calls := 1; page.HasMore; calls++ {
			if calls > len(all) {
				t.Fatalf("paging back did not end after %d calls for %d posts", calls, len(all))
			}
			before := page.Posts[0].MessageID
			if before == "" {
				t.Fatal("a page with more hands on an empty id")
			}
			page, err = s.Page(id, lim, before)
			if err != nil {
				t.Fatal(err)
			}
			if len(page.Posts) == 0 {
				t.Fatalf("empty page before %q", before)
			}
			got = append(page.Posts, got...)
			skipped += page.Skipped
			if len(got) > len(all) {
				t.Fatalf("walked %d posts, ReadAll has %d", len(got), len(all))
			}
			if want := all[len(all)-len(got):]; !reflect.DeepEqual(got, want) {
				t.Fatalf("walked posts are not ReadAll's tail (%d posts)", len(got))
			}
		}
		if len(got) != len(all) {
			t.Fatalf("walked %d posts, ReadAll %d", len(got), len(all))
		}
		if skipped != allSkipped {
			t.Fatalf("walk skipped %d, ReadAll %d", skipped, allSkipped)
		}
	})
}

// plainUniqueIDs reports whether every readable post of data has an id
// that is unique, not empty, and written in plain text in its line.
func plainUniqueIDs(data []byte) bool {
	seen := map[string]bool{}
	ok := true
	_ = forEachLine(bytes.NewReader(data), func(line []byte, terminated bool) bool {
		p, kind := classify(line, terminated)
		if kind != linePost {
			return true
		}
		if seen[p.MessageID] || !holdsOwnID(line, p.MessageID) {
			ok = false
			return false
		}
		seen[p.MessageID] = true
		return true
	})
	return ok
}

// FuzzSalvageIndex: salvageIndex never panics and keeps only topic ids; on
// an index the store wrote it reads exactly the entries json.Unmarshal
// reads, and on any cut of it (a truncated file) only values the index
// holds, never an invented one.
func FuzzSalvageIndex(f *testing.F) {
	f.Add("plan", "2026-08-27T10:00:00Z", "claude", "c-1", "codex", "x-1", uint16(70))
	f.Add(`a ,"b": {"name": "c"}`, "", "", "", "k", "", uint16(3))
	f.Add("\u2028<&>", "x", "a\"b", "{", "}", ",", uint16(200))
	f.Fuzz(func(t *testing.T, name, created, acct1, sess1, acct2, sess2 string, cut uint16) {
		_ = salvageIndex([]byte(name + created + acct1 + sess1)) // any bytes
		idx := &indexFile{Topics: map[string]*indexEntry{
			"0193a1b2-0000-7000-8000-000000000001": {Name: name, Created: created, Sessions: map[string]string{acct1: sess1, acct2: sess2}},
			"t2":                                   {Name: sess2, Created: acct1},
			"0193a1b2-0000-7000-8000-000000000003": {Sessions: map[string]string{sess1: acct2}},
		}}
		data, err := encodeIndex(idx)
		if err != nil {
			t.Fatal(err)
		}
		want, err := parseIndex(data)
		if err != nil {
			t.Fatal(err)
		}
		if got := salvageIndex(data); !reflect.DeepEqual(got, want.Topics) {
			t.Fatalf("salvage of a whole index:\n got %#v\nwant %#v\n%s", got, want.Topics, data)
		}
		part := data[:int(cut)%(len(data)+1)]
		for id, e := range salvageIndex(part) {
			if !ValidID(id) {
				t.Fatalf("salvaged id %q", id)
			}
			w, ok := want.Topics[id]
			if !ok {
				t.Fatalf("invented entry %q from %q", id, part)
			}
			if (e.Name != "" && e.Name != w.Name) || (e.Created != "" && e.Created != w.Created) {
				t.Fatalf("invented field %#v, index %#v", e, w)
			}
			for a, s := range e.Sessions {
				if w.Sessions[a] != s {
					t.Fatalf("invented session %q=%q, index %#v", a, s, w.Sessions)
				}
			}
		}
	})
}
