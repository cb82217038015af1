package topicstore

// Reading a topic file. A line is one post only when it ends in "\n" and
// parses; the last bytes of a file without a final newline are a torn line
// (a write cut short) and never a post. Blank lines are ignored; every other
// unreadable line is skipped and counted, and never fails the read.
//
// Page reads backwards from the end in chunks, so the last page of a long
// topic costs about one chunk whatever the file's size. A line longer than
// what is buffered makes the next read twice as large, so a huge line costs
// linear, not quadratic, work. A page before a post finds that post by
// reading back from the end, then reads the lines newer than it once more
// (forwards) to check that the id its oldest post hands on names that post:
// paging back by ids ends and returns each post once whatever the ids are.

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

// Page returns the last readable posts of topic that come before the post
// named by before ("" reads from the end of the file), oldest first. It
// reads the file backwards in chunks and stops one readable post past the
// page, never reading the whole of a long file for its last page. limit <= 0
// means DefaultLimit. A before that no readable post has is
// ErrUnknownMessage. A topic without a file gives an empty page.
//
// before names the newest readable post whose message id it is. Whatever
// ids the lines hold (empty, repeated), paging back by passing the oldest
// post's message id as the next before always moves back and returns every
// readable post exactly once: when HasMore is true, Posts[0] is a post
// that its own id names, which means a non-empty id that no newer post of
// the file holds. To keep that promise, a page holds limit posts when the
// limit-th post qualifies (always so for ids that are unique, as the
// room's are); otherwise it ends at the oldest qualifying post within the
// limit (fewer posts), or, when none of them qualifies, runs past the limit
// to the next one that does (or to the start of the file). A page before
// a post that has more costs one more forward read of the lines newer than
// before, to check that no newer post holds the id its oldest post hands
// on.
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
	page, err := s.page(f, size, limit, before)
	if errors.Is(err, ErrUnknownMessage) {
		return Page{}, fmt.Errorf("topicstore: page of %s before %q: %w", topic, before, err)
	}
	if err != nil {
		return Page{}, fmt.Errorf("topicstore: read %s: %w", s.topicPath(topic), err)
	}
	return page, nil
}

// collected is one readable post met by the page reader.
type collected struct {
	post Post
	// bad counts the unreadable lines between this post and the next newer
	// one collected (or before, or the end of the file).
	bad int
	// named is true when before = post.MessageID would name this post as
	// far as the lines from it to before tell: its line holds its own id
	// and no newer line up to before does. Lines newer than before are
	// checked separately (newerHold).
	named bool
}

// holdsOwnID reports whether a search for id would find the line of a
// readable post with that id: the id is not empty and, when it needs no
// escaping, the line holds it in plain text (the search's prefilter, see
// Page). A line that spells a plain id with escapes is not found by it.
func holdsOwnID(line []byte, id string) bool {
	return id != "" && (!plainJSON(id) || bytes.Contains(line, []byte(id)))
}

// page is Page on an open file of size bytes.
func (s *Store) page(f readFile, size int64, limit int, before string) (Page, error) {
	sc := &backScanner{f: f, start: size, chunk: max(s.chunk, 1)}
	// newer is where the lines newer than before begin: they are [newer,
	// size). Nothing is newer when reading from the end.
	newer := size
	// held holds the ids that a line newer than the current one holds, in
	// the sense of holdsOwnID, between the current line and before.
	held := map[string]bool{}
	if before != "" {
		// A line holding the id in plain text is the only candidate when
		// the id needs no escaping in JSON; otherwise every line is parsed.
		var needle []byte
		if plainJSON(before) {
			needle = []byte(before)
		}
		found := false
		for !found {
			line, terminated, ok, err := sc.prev()
			if err != nil {
				return Page{}, err
			}
			if !ok {
				return Page{}, ErrUnknownMessage
			}
			if needle != nil && !bytes.Contains(line, needle) {
				continue
			}
			if p, kind := classify(line, terminated); kind == linePost && p.MessageID == before {
				found = true
				newer = sc.lineStart() + int64(len(line)) + 1 // a post is terminated
			}
		}
		held[before] = true
	}

	var (
		got     []collected
		pending int  // unreadable lines since the last collected post
		atStart bool // no readable post is older than the last collected
	)
	// more collects the next older readable post; false at the start.
	more := func() (bool, error) {
		if atStart {
			return false, nil
		}
		for {
			line, terminated, ok, err := sc.prev()
			if err != nil {
				return false, err
			}
			if !ok {
				atStart = true
				return false, nil
			}
			p, kind := classify(line, terminated)
			switch kind {
			case lineBad:
				pending++
				continue
			case lineBlank:
				continue
			}
			own := holdsOwnID(line, p.MessageID)
			got = append(got, collected{post: p, bad: pending, named: own && !held[p.MessageID]})
			if own {
				held[p.MessageID] = true
			}
			pending = 0
			return true, nil
		}
	}
	// done makes the page of got[:n] (the n newest posts collected).
	done := func(n int, hasMore bool) Page {
		page := Page{HasMore: hasMore, Posts: make([]Post, 0, n)}
		for i := n - 1; i >= 0; i-- {
			page.Posts = append(page.Posts, got[i].post)
			page.Skipped += got[i].bad
		}
		if !hasMore {
			page.Skipped += pending
		}
		return page
	}

	for len(got) <= limit {
		ok, err := more()
		if err != nil {
			return Page{}, err
		}
		if !ok {
			return done(len(got), false), nil // the rest of the file
		}
	}
	// got holds limit+1 posts, so any page of the first limit has more.
	// The oldest post that the walk can name back ends the page.
	pick, err := firstNamed(f, newer, size, got, limit-1, -1)
	if err != nil {
		return Page{}, err
	}
	if pick >= 0 {
		return done(pick+1, true), nil
	}
	// None of the limit posts can be named: run past the limit to the
	// next one that can, checking batches that double in size.
	lo, batch := limit, limit
	for {
		for len(got) < lo+batch {
			ok, err := more()
			if err != nil {
				return Page{}, err
			}
			if !ok {
				break
			}
		}
		pick, err := firstNamed(f, newer, size, got, lo, len(got))
		if err != nil {
			return Page{}, err
		}
		if pick >= 0 {
			if pick < len(got)-1 {
				return done(pick+1, true), nil
			}
			ok, err := more()
			if err != nil {
				return Page{}, err
			}
			if ok {
				return done(pick+1, true), nil
			}
		}
		if atStart {
			return done(len(got), false), nil
		}
		lo, batch = len(got), 2*batch
	}
}

// firstNamed returns the first index i, going from from towards to (to
// excluded; from > to walks towards the newer posts), whose post can be
// named: got[i].named and no line of the newer lines [newer, size) holds
// its id. It returns -1 when there is none. The newer lines are read only
// when there are some: first for the first candidate alone, then for all
// the others at once.
func firstNamed(f readFile, newer, size int64, got []collected, from, to int) (int, error) {
	step := 1
	if from > to {
		step = -1
	}
	var cands []int
	for i := from; i != to; i += step {
		if got[i].named {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return -1, nil
	}
	if newer >= size {
		return cands[0], nil
	}
	for _, part := range [][]int{cands[:1], cands[1:]} {
		if len(part) == 0 {
			break
		}
		want := make([]string, 0, len(part))
		for _, i := range part {
			want = append(want, got[i].post.MessageID)
		}
		taken, err := newerHold(io.NewSectionReader(f, newer, size-newer), want)
		if err != nil {
			return -1, err
		}
		for _, i := range part {
			if !taken[got[i].post.MessageID] {
				return i, nil
			}
		}
	}
	return -1, nil
}

// newerHold reads the lines of r (the lines newer than before) and returns
// which of the ids ids some readable post there holds, as holdsOwnID says.
// For up to four ids that need no escaping, only lines that hold one of
// them in plain text are parsed; otherwise every line is.
func newerHold(r io.Reader, ids []string) (map[string]bool, error) {
	want := make(map[string]bool, len(ids))
	prefilter := len(ids) <= 4
	needles := make([][]byte, 0, len(ids))
	for _, id := range ids {
		want[id] = true
		prefilter = prefilter && plainJSON(id)
		needles = append(needles, []byte(id))
	}
	taken := map[string]bool{}
	err := forEachLine(r, func(line []byte, terminated bool) bool {
		if prefilter {
			hit := false
			for _, needle := range needles {
				if bytes.Contains(line, needle) {
					hit = true
					break
				}
			}
			if !hit {
				return true
			}
		}
		if p, kind := classify(line, terminated); kind == linePost && want[p.MessageID] && holdsOwnID(line, p.MessageID) {
			taken[p.MessageID] = true
		}
		return len(taken) < len(want)
	})
	return taken, err
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

// lineStart returns the file offset of the line prev returned last.
func (b *backScanner) lineStart() int64 { return b.start + int64(len(b.data)) }

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
