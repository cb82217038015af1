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
// parse, and agrees with ReadAll: the last page is ReadAll's tail, and
// walking back with before (when ids are unique) yields every post and
// counts every skipped line once.
func FuzzPage(f *testing.F) {
	good := string(mkPost("a", "x").Line()) + string(mkPost("b", "y").Line())
	f.Add([]byte(good), uint8(1), uint8(3))
	f.Add([]byte("garbage\n"+good+`{"torn`), uint8(2), uint8(1))
	f.Add([]byte("\n\n\r\n"+good+"\n"+good), uint8(0), uint8(64))
	f.Add([]byte{}, uint8(5), uint8(5))
	f.Add([]byte(`{"message_id":"a","speaker":"s","content":"c","to":"x"}`+"\n}\n"), uint8(1), uint8(2))
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
		tail := all[max(0, len(all)-lim):]
		if len(page.Posts) != len(tail) || (len(tail) > 0 && !reflect.DeepEqual(page.Posts, tail)) {
			t.Fatalf("last page %d posts, ReadAll tail %d", len(page.Posts), len(tail))
		}
		if page.HasMore != (len(all) > lim) {
			t.Fatalf("HasMore = %v with %d posts, limit %d", page.HasMore, len(all), lim)
		}
		seen := map[string]bool{}
		for _, p := range all {
			if seen[p.MessageID] {
				return // before is ambiguous with repeated ids
			}
			seen[p.MessageID] = true
		}
		var got []Post
		skipped := page.Skipped
		got = append(got, page.Posts...)
		for page.HasMore {
			page, err = s.Page(id, lim, page.Posts[0].MessageID)
			if err != nil {
				t.Fatal(err)
			}
			got = append(page.Posts, got...)
			skipped += page.Skipped
		}
		if len(got) != len(all) || (len(all) > 0 && !reflect.DeepEqual(got, all)) {
			t.Fatalf("walked %d posts, ReadAll %d", len(got), len(all))
		}
		if skipped != allSkipped {
			t.Fatalf("walk skipped %d, ReadAll %d", skipped, allSkipped)
		}
	})
}
