package topicstore

// Reading a topic file. A line is one post only when it ends in "\n" and
// parses; the last bytes of a file without a final newline are a torn line
// (a write cut short) and never a post. Blank lines are ignored; every other
// unreadable line is skipped and counted, and never fails the read.
//
// Page reads backwards from the end in chunks, so the last page of a long
// topic costs about one chunk whatever the file's size. A line longer than
// what is buffered makes the next read twice as large, so a huge line costs
// linear, not quadratic, work.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
)

// DefaultLimit is the page size Page uses when asked for limit <= 0.
const DefaultLimit = 50

// Page is a run of consecutive readable posts of a topic.
type Page struct {
	// Posts holds the posts, oldest first.
	Posts []Post
	// HasMore is true when readable posts older than Posts[0] exist.
	HasMore bool
	// Skipped counts the unreadable lines (garbage, a torn last line)
	// among the lines this page covers: from just after the next older
	// readable post (or the start of the file when HasMore is false) to
	// before (or the end of the file). Consecutive pages never count a
	// line twice.
	Skipped int
}

// lineKind says what a line of a topic file is.
type lineKind int

const (
	lineBlank lineKind = iota // nothing but white space: ignored, not counted
	linePost                  // a readable post
	lineBad                   // unreadable: skipped and counted
)

// classify reads one line (without its newline). terminated is false for
// the torn bytes after the last newline.
func classify(line []byte, terminated bool) (Post, lineKind) {
	if isBlank(line) {
		return Post{}, lineBlank
	}
	if !terminated {
		return Post{}, lineBad
	}
	p, err := ParseLine(line)
	if err != nil {
		return Post{}, lineBad
	}
	return p, linePost
}

// isBlank reports whether line holds only JSON white space.
func isBlank(line []byte) bool {
	for _, c := range line {
		switch c {
		case ' ', '\t', '\r', '\n':
		default:
			return false
		}
	}
	return true
}

// openTopic opens topic's file for reading; it returns a nil file and no
// error when the file does not exist.
func (s *Store) openTopic(topic string) (readFile, int64, error) {
	path := s.topicPath(topic)
	f, err := s.openRead(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("topicstore: read %s: %w", path, err)
	}
	info, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, 0, fmt.Errorf("topicstore: read %s: %w", path, err)
	}
	return f, info.Size(), nil
}

// Page returns the last limit readable posts of topic that come before the
// post whose message id is before ("" reads from the end of the file). It
// reads the file backwards in chunks and stops one readable post past the
// page, never reading the whole of a long file for its last page. limit <= 0
// means DefaultLimit. A before that no readable post has is
// ErrUnknownMessage (when two posts share the id, the newer one counts). A
// topic without a file gives an empty page.
func (s *Store) Page(topic string, limit int, before string) (Page, error) {
	if err := checkID(topic); err != nil {
		return Page{}, err
	}
	if limit <= 0 {
		limit = DefaultLimit
	}
	f, size, err := s.openTopic(topic)
	if err != nil {
		return Page{}, err
	}
	if f == nil {
		if before != "" {
			return Page{}, fmt.Errorf("topicstore: page of %s before %q: %w", topic, before, ErrUnknownMessage)
		}
		return Page{}, nil
	}
	defer func() { _ = f.Close() }()

	sc := &backScanner{f: f, start: size, chunk: max(s.chunk, 1)}
	found := before == ""
	// A line holding the id in plain text is the only candidate when the id
	// needs no escaping in JSON; otherwise every line is parsed.
	var needle []byte
	if plainJSON(before) {
		needle = []byte(before)
	}
	var (
		page    Page
		pending int // unreadable lines since the last collected post
	)
	for {
		line, terminated, ok, err := sc.prev()
		if err != nil {
			return Page{}, fmt.Errorf("topicstore: read %s: %w", s.topicPath(topic), err)
		}
		if !ok {
			break
		}
		if !found {
			if needle != nil && !bytes.Contains(line, needle) {
				continue
			}
			if p, kind := classify(line, terminated); kind == linePost && p.MessageID == before {
				found = true
			}
			continue
		}
		p, kind := classify(line, terminated)
		switch kind {
		case lineBad:
			pending++
			continue
		case lineBlank:
			continue
		}
		if len(page.Posts) == limit {
			page.HasMore = true
			break
		}
		page.Posts = append(page.Posts, p)
		page.Skipped += pending
		pending = 0
	}
	if !found {
		return Page{}, fmt.Errorf("topicstore: page of %s before %q: %w", topic, before, ErrUnknownMessage)
	}
	if !page.HasMore {
		page.Skipped += pending
	}
	slices.Reverse(page.Posts)
	return page, nil
}

// plainJSON reports whether s is non-empty and every JSON encoder writes it
// as it is between the quotes.
func plainJSON(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == ':':
		default:
			return false
		}
	}
	return true
}

// ReadAll returns every readable post of topic, oldest first, and how many
// unreadable lines it skipped. A topic without a file has no posts.
func (s *Store) ReadAll(topic string) ([]Post, int, error) {
	if err := checkID(topic); err != nil {
		return nil, 0, err
	}
	f, size, err := s.openTopic(topic)
	if err != nil || f == nil {
		return nil, 0, err
	}
	defer func() { _ = f.Close() }()
	var (
		posts   []Post
		skipped int
	)
	err = forEachLine(io.NewSectionReader(f, 0, size), func(line []byte, terminated bool) bool {
		p, kind := classify(line, terminated)
		switch kind {
		case linePost:
			posts = append(posts, p)
		case lineBad:
			skipped++
		}
		return true
	})
	if err != nil {
		return nil, 0, fmt.Errorf("topicstore: read %s: %w", s.topicPath(topic), err)
	}
	return posts, skipped, nil
}

// firstPost returns the first readable post of topic, reading no further
// than it; the zero Post when there is none or no file.
func (s *Store) firstPost(topic string) (Post, error) {
	f, size, err := s.openTopic(topic)
	if err != nil || f == nil {
		return Post{}, err
	}
	defer func() { _ = f.Close() }()
	var first Post
	err = forEachLine(io.NewSectionReader(f, 0, size), func(line []byte, terminated bool) bool {
		p, kind := classify(line, terminated)
		if kind == linePost {
			first = p
			return false
		}
		return true
	})
	if err != nil {
		return Post{}, fmt.Errorf("topicstore: read %s: %w", s.topicPath(topic), err)
	}
	return first, nil
}

// forEachLine calls fn with each line of r, oldest first, without its
// newline; terminated is false for trailing bytes after the last newline.
// It stops early when fn returns false.
func forEachLine(r io.Reader, fn func(line []byte, terminated bool) bool) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long := slices.Clone(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		switch {
		case err == nil:
			if !fn(line[:len(line)-1], true) {
				return nil
			}
		case errors.Is(err, io.EOF):
			if len(line) > 0 {
				fn(line, false)
			}
			return nil
		default:
			return err
		}
	}
}

// backScanner yields the lines of a file from the last to the first.
type backScanner struct {
	f     io.ReaderAt
	start int64  // file offset of data[0]
	data  []byte // bytes from start up to the end of the next line to yield
	chunk int    // bytes to read at a time
}

// prev returns the line before the ones already returned, without its
// newline. terminated is false only for the torn bytes after the file's last
// newline. ok is false at the start of the file.
func (b *backScanner) prev() (line []byte, terminated, ok bool, err error) {
	for {
		n := len(b.data)
		if n == 0 && b.start == 0 {
			return nil, false, false, nil
		}
		if n > 0 {
			terminated = b.data[n-1] == '\n'
			end := n
			if terminated {
				end--
			}
			if i := bytes.LastIndexByte(b.data[:end], '\n'); i >= 0 {
				line = b.data[i+1 : end]
				b.data = b.data[:i+1]
				return line, terminated, true, nil
			}
			if b.start == 0 {
				line = b.data[:end]
				b.data = b.data[:0]
				return line, terminated, true, nil
			}
		}
		if err := b.fill(); err != nil {
			return nil, false, false, err
		}
	}
}

// fill reads the bytes before start into the front of data: a chunk, or as
// many bytes as data already holds when that is more (a long line).
func (b *backScanner) fill() error {
	want := int64(max(b.chunk, len(b.data)))
	off := b.start - want
	if off < 0 {
		want += off
		off = 0
	}
	buf := make([]byte, int(want)+len(b.data))
	n, err := b.f.ReadAt(buf[:want], off)
	if int64(n) < want {
		if err == nil || errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // the file shrank while being read
		}
		return err
	}
	copy(buf[want:], b.data)
	b.data = buf
	b.start = off
	return nil
}
