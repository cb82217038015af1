package topicstore

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
)

// countingFile counts the bytes read from a topic file.
type countingFile struct {
	*os.File
	n *atomic.Int64
}

func (c countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.File.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// countReads makes s count the bytes its readers read.
func countReads(s *Store) *atomic.Int64 {
	var n atomic.Int64
	s.openRead = func(name string) (readFile, error) {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		return countingFile{f, &n}, nil
	}
	return &n
}

func ids(posts []Post) []string {
	out := make([]string, 0, len(posts))
	for _, p := range posts {
		out = append(out, p.MessageID)
	}
	return out
}

func line(id string) string { return string(mkPost(id, "content of "+id).Line()) }

func TestUnreadableLinesSkippedAndCounted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		content     string
		wantIDs     []string
		wantSkipped int
	}{
		{"empty file", "", []string{}, 0},
		{"clean", line("a") + line("b"), []string{"a", "b"}, 0},
		{"torn last line", line("a") + line("b") + `{"message_id":"c","spea`, []string{"a", "b"}, 1},
		{"complete object without newline is still torn", line("a") + strings.TrimSuffix(line("b"), "\n"), []string{"a"}, 1},
		{"garbage in the middle", line("a") + "garbage\n" + `{"no":"fields"}` + "\n" + line("b"), []string{"a", "b"}, 2},
		{"blank lines ignored, not counted", "\n" + line("a") + "\n  \n\t\r\n" + line("b") + "\n", []string{"a", "b"}, 0},
		{"blank torn tail not counted", line("a") + "   ", []string{"a"}, 0},
		{"only a torn line", `{"message_id":"x"`, []string{}, 1},
		{"garbage first and torn last", "\x00\x01\x02\n" + line("a") + "}", []string{"a"}, 2},
		{"CRLF lines", strings.ReplaceAll(line("a")+line("b"), "\n", "\r\n"), []string{"a", "b"}, 0},
		{"old lines with legacy to", `{"message_id":"a","speaker":"s","content":"c","to":"bob","ts":"t"}` + "\n", []string{"a"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id := NewID()
			if err := os.WriteFile(s.topicPath(id), []byte(tt.content), 0o600); err != nil {
				t.Fatal(err)
			}
			posts, skipped, err := s.ReadAll(id)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(posts); !reflect.DeepEqual(got, tt.wantIDs) || skipped != tt.wantSkipped {
				t.Fatalf("ReadAll = %v skipped %d; want %v skipped %d", got, skipped, tt.wantIDs, tt.wantSkipped)
			}
			for _, chunk := range []int{1, 5, DefaultChunk} {
				s.chunk = chunk
				page, err := s.Page(id, 100, "")
				if err != nil {
					t.Fatal(err)
				}
				if got := ids(page.Posts); !reflect.DeepEqual(got, tt.wantIDs) || page.Skipped != tt.wantSkipped || page.HasMore {
					t.Fatalf("chunk %d: Page = %v skipped %d more %v; want %v skipped %d", chunk, got, page.Skipped, page.HasMore, tt.wantIDs, tt.wantSkipped)
				}
			}
		})
	}
}

func TestAppendAfterTornLine(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := NewID()
	if err := os.WriteFile(s.topicPath(id), []byte(line("a")+`{"message_id":"torn","spe`), 0o600); err != nil {
		t.Fatal(err)
	}
	if first, err := s.Append(id, mkPost("b", "after the crash")); err != nil || first {
		t.Fatalf("Append = %v, %v", first, err)
	}
	posts, skipped, err := s.ReadAll(id)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(posts); !reflect.DeepEqual(got, []string{"a", "b"}) || skipped != 1 {
		t.Fatalf("after Append: %v skipped %d; the new post must survive the torn line", got, skipped)
	}
}

func TestPageMissingFileAndUnknownMessage(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := NewID()
	page, err := s.Page(id, 10, "")
	if err != nil || len(page.Posts) != 0 || page.HasMore || page.Skipped != 0 {
		t.Fatalf("Page of no file = %+v, %v", page, err)
	}
	if posts, skipped, err := s.ReadAll(id); posts != nil || skipped != 0 || err != nil {
		t.Fatalf("ReadAll of no file = %v, %d, %v", posts, skipped, err)
	}
	if _, err := s.Page(id, 10, "m1"); !errors.Is(err, ErrUnknownMessage) {
		t.Fatalf("before on no file: %v", err)
	}
	mustAppend(t, s, id, mkPost("m1", "x"))
	for _, before := range []string{"nope", `needs "escaping"`, "m"} {
		if _, err := s.Page(id, 10, before); !errors.Is(err, ErrUnknownMessage) {
			t.Fatalf("before %q: %v, want ErrUnknownMessage", before, err)
		}
	}
}

// writeTopic writes n posts m0..m{n-1} straight to a topic file, a garbage
// line after every garbageEvery posts (0: none), and returns the file size.
func writeTopic(t testing.TB, path string, n, garbageEvery int, content func(i int) string) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for i := range n {
		p := Post{MessageID: fmt.Sprintf("m%d", i), Speaker: "alice", Account: "acct-1", Content: content(i), TS: "2026-08-27T10:00:00Z"}
		if _, err := w.Write(p.Line()); err != nil {
			t.Fatal(err)
		}
		if garbageEvery > 0 && i%garbageEvery == garbageEvery-1 {
			if _, err := w.WriteString("garbage line\n"); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

func TestPageReadsBackwardsOnly(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	id := NewID()
	const n = 100_000
	size := writeTopic(t, s.topicPath(id), n, 0, func(i int) string {
		return fmt.Sprintf("post number %d with some words to make the line a realistic length for a chat", i)
	})
	if size < 100*DefaultChunk {
		t.Fatalf("test file is only %d bytes", size)
	}
	read := countReads(s)

	page, err := s.Page(id, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Posts) != 50 || page.Posts[0].MessageID != fmt.Sprintf("m%d", n-50) || page.Posts[49].MessageID != fmt.Sprintf("m%d", n-1) || !page.HasMore {
		t.Fatalf("last page = %v…%v more %v", page.Posts[0].MessageID, page.Posts[len(page.Posts)-1].MessageID, page.HasMore)
	}
	if got := read.Load(); got > DefaultChunk {
		t.Fatalf("last page read %d bytes of %d; want at most one chunk (%d)", got, size, DefaultChunk)
	}

	read.Store(0)
	older, err := s.Page(id, 50, page.Posts[0].MessageID)
	if err != nil {
		t.Fatal(err)
	}
	if older.Posts[0].MessageID != fmt.Sprintf("m%d", n-100) || older.Posts[49].MessageID != fmt.Sprintf("m%d", n-51) || !older.HasMore {
		t.Fatalf("older page = %v…%v", older.Posts[0].MessageID, older.Posts[49].MessageID)
	}
	if got := read.Load(); got > 2*DefaultChunk {
		t.Fatalf("second page read %d bytes of %d", got, size)
	}

	// limit <= 0 is the default page.
	def, err := s.Page(id, 0, "")
	if err != nil || len(def.Posts) != DefaultLimit {
		t.Fatalf("Page(limit 0) = %d posts, %v", len(def.Posts), err)
	}

	// The oldest page: no more.
	first, err := s.Page(id, 50, "m50")
	if err != nil || len(first.Posts) != 50 || first.Posts[0].MessageID != "m0" || first.HasMore {
		t.Fatalf("first page = %d posts from %v, more %v, %v", len(first.Posts), first.Posts[0].MessageID, first.HasMore, err)
	}
	short, err := s.Page(id, 50, "m3")
	if err != nil || !reflect.DeepEqual(ids(short.Posts), []string{"m0", "m1", "m2"}) || short.HasMore {
		t.Fatalf("page before m3 = %v more %v, %v", ids(short.Posts), short.HasMore, err)
	}
}

// TestPageWalk pages through whole files with chunks smaller than a line
// and checks that the pages put together are exactly ReadAll, skipped lines
// counted once.
func TestPageWalk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		n, garbage   int
		tail         string
		chunk, limit int
	}{
		{"tiny chunks, pages of one", 40, 3, "", 1, 1},
		{"odd chunk, pages of three", 100, 7, `{"torn`, 7, 3},
		{"chunk of a few lines", 500, 11, "", 300, 50},
		{"default chunk, garbage every line", 300, 1, "x", DefaultChunk, 17},
		{"no garbage", 1000, 0, "", 4096, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			s.chunk = tt.chunk
			id := NewID()
			path := s.topicPath(id)
			writeTopic(t, path, tt.n, tt.garbage, func(i int) string { return strings.Repeat("é", i%13) })
			if tt.tail != "" {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				_, _ = f.WriteString(tt.tail)
				_ = f.Close()
			}
			all, allSkipped, err := s.ReadAll(id)
			if err != nil || len(all) != tt.n {
				t.Fatalf("ReadAll: %d posts, %v", len(all), err)
			}
			var got []Post
			skipped, before, pages := 0, "", 0
			for {
				page, err := s.Page(id, tt.limit, before)
				if err != nil {
					t.Fatal(err)
				}
				pages++
				if len(page.Posts) > tt.limit || (page.HasMore && len(page.Posts) != tt.limit) {
					t.Fatalf("page of %d posts, more %v", len(page.Posts), page.HasMore)
				}
				got = append(page.Posts, got...)
				skipped += page.Skipped
				if !page.HasMore {
					break
				}
				before = page.Posts[0].MessageID
			}
			if !reflect.DeepEqual(got, all) {
				t.Fatalf("pages put together differ from ReadAll (%d vs %d posts)", len(got), len(all))
			}
			if skipped != allSkipped {
				t.Fatalf("pages skipped %d lines in all, ReadAll %d", skipped, allSkipped)
			}
			if want := (tt.n + tt.limit - 1) / tt.limit; pages != want {
				t.Fatalf("%d pages, want %d", pages, want)
			}
		})
	}
}

func TestPageLongLine(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	s.chunk = 4096
	id := NewID()
	big := strings.Repeat("long ", 400_000) // 2 MB
	mustAppend(t, s, id, mkPost("a", "short"))
	mustAppend(t, s, id, mkPost("b", big))
	mustAppend(t, s, id, mkPost("c", "short"))
	info, _ := os.Stat(s.topicPath(id))
	read := countReads(s)
	page, err := s.Page(id, 2, "")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ids(page.Posts), []string{"b", "c"}) || page.Posts[0].Content != big || !page.HasMore {
		t.Fatalf("page = %v more %v", ids(page.Posts), page.HasMore)
	}
	// No byte is read twice, however many chunks the line spans.
	if got := read.Load(); got > info.Size() {
		t.Fatalf("read %d bytes for a %d-byte file", got, info.Size())
	}
	// Forward reading handles a line longer than its buffer too.
	all, skipped, err := s.ReadAll(id)
	if err != nil || skipped != 0 || !reflect.DeepEqual(ids(all), []string{"a", "b", "c"}) || all[1].Content != big {
		t.Fatalf("ReadAll = %v skipped %d, %v", ids(all), skipped, err)
	}
}

// TestPageWalkAnyIDs: paging back with before = the oldest post's id ends
// and returns every post exactly once whatever ids the lines hold, and the
// pages are as long as the limit allows: shorter when the limit-th post
// cannot be named by its id (empty, held by a newer post too, spelt with
// an escape), longer only when no post within the limit can be.
func TestPageWalkAnyIDs(t *testing.T) {
	t.Parallel()
	escaped := `{"message_id":"m\u0031","speaker":"s","content":"c"}` + "\n"
	tests := []struct {
		name  string
		lines string
		limit int
		pages [][]string // newest page first
	}{
		{
			name:  "an empty id in the middle",
			lines: line("a") + line("") + line("b"),
			limit: 1,
			pages: [][]string{{"b"}, {"a", ""}},
		},
		{
			name:  "an empty id where the page would end",
			lines: line("a") + line("b") + line("") + line("c") + line("d"),
			limit: 3,
			pages: [][]string{{"c", "d"}, {"a", "b", ""}},
		},
		{
			name:  "a run of empty ids longer than the limit",
			lines: line("a") + line("b") + line("") + line("") + line("") + line("c"),
			limit: 2,
			pages: [][]string{{"c"}, {"b", "", "", ""}, {"a"}},
		},
		{
			name:  "only empty ids",
			lines: line("") + line("") + line("") + line(""),
			limit: 1,
			pages: [][]string{{"", "", "", ""}},
		},
		{
			name:  "a repeated id within the page",
			lines: line("x") + line("b") + line("x") + line("c"),
			limit: 1,
			pages: [][]string{{"c"}, {"x"}, {"b"}, {"x"}},
		},
		{
			name:  "a repeated id newer than before",
			lines: line("q") + line("x") + line("b") + line("c") + line("x") + line("d") + line("e"),
			limit: 2,
			pages: [][]string{{"d", "e"}, {"c", "x"}, {"b"}, {"q", "x"}},
		},
		{
			name:  "an id spelt with an escape",
			lines: line("a") + escaped + line("b"),
			limit: 1,
			pages: [][]string{{"b"}, {"a", "m1"}},
		},
		{
			name:  "ids that need escaping",
			lines: line(`needs "escaping"`) + line("tab\there") + line("é"),
			limit: 1,
			pages: [][]string{{"é"}, {"tab\there"}, {`needs "escaping"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			id := NewID()
			garbage := "garbage\n"
			data := garbage + strings.ReplaceAll(tt.lines, "}\n", "}\n"+garbage)
			if err := os.WriteFile(s.topicPath(id), []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			all, allSkipped, err := s.ReadAll(id)
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{1, 7, DefaultChunk} {
				s.chunk = chunk
				var got [][]string
				var posts []Post
				skipped, before := 0, ""
				for range 100 {
					page, err := s.Page(id, tt.limit, before)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(page.Posts))
					posts = append(page.Posts, posts...)
					skipped += page.Skipped
					if !page.HasMore {
						break
					}
					before = page.Posts[0].MessageID
				}
				if !reflect.DeepEqual(got, tt.pages) {
					t.Fatalf("chunk %d: pages %q, want %q", chunk, got, tt.pages)
				}
				if !reflect.DeepEqual(posts, all) || skipped != allSkipped {
					t.Fatalf("chunk %d: walked %d posts skipping %d; ReadAll %d skipping %d", chunk, len(posts), skipped, len(all), allSkipped)
				}
			}
		})
	}
}
