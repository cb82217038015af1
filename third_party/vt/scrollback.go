package vt

import (
	"encoding/binary"

	uv "github.com/charmbracelet/ultraviolet"
)

// DefaultScrollbackSize is the default maximum number of lines in the scrollback buffer.
const DefaultScrollbackSize = 10000

// Scrollback represents a scrollback buffer that stores lines scrolled off the screen.
//
// PATCH(pullcept): lines are stored in the compact encoding of compact.go
// (about a byte a cell instead of 112) and decoded when read: Line, Lines
// and CellAt return fresh cells, equal to the ones pushed, which the caller
// may keep or change. The encoded lines are appended to shared chunks, and
// the scrollback is a ring of 8-byte references to them, so a push onto a
// full scrollback moves nothing and allocates nothing (amortised), and the
// garbage collector has no pointers to follow but one per chunk.
type Scrollback struct {
	// ring holds a reference (chunk number << 32 | offset) per line. Until
	// it is full it is in order (head 0); once it holds maxLines lines,
	// head is the oldest.
	ring     []uint64
	head     int
	maxLines int
	// chunks hold the encoded lines, each prefixed by its length, in push
	// order; chunks[0] is chunk number first. A chunk goes when its last
	// line does.
	chunks  [][]byte
	first   uint64
	scratch []byte   // the encoder's buffer
	ext     extTable // colours of types the encoding does not know
}

// arenaChunk is the usual size of a chunk; a longer line gets a chunk of
// its own size.
const arenaChunk = 16 << 10

// NewScrollback creates a new scrollback buffer with the given maximum number of lines.
func NewScrollback(maxLines int) *Scrollback {
	if maxLines <= 0 {
		maxLines = DefaultScrollbackSize
	}
	return &Scrollback{
		ring:     make([]uint64, 0, min(maxLines, 1000)), // Pre-allocate reasonable capacity
		maxLines: maxLines,
	}
}

// Push adds a line to the scrollback buffer.
// If the buffer is full, the oldest line is removed.
func (s *Scrollback) Push(line uv.Line) {
	if s == nil || s.maxLines <= 0 {
		return
	}

	// Find last non-empty cell to trim trailing empty cells.
	// This helps with wrapping and window resizing.
	lastNonEmpty := -1
	for i := len(line) - 1; i >= 0; i-- {
		// PATCH(pullcept): blankCell is c.IsZero() || c.Equal(&uv.EmptyCell)
		// without the colours' RGBA calls (patch_fastpath.go).
		if !blankCell(&line[i]) {
			lastNonEmpty = i
			break
		}
	}

	// PATCH(pullcept): the line is encoded instead of cloned, and a full
	// scrollback overwrites its oldest line in place. Upstream removed it
	// with slices.Delete, which moved every line down one place.
	s.scratch = appendLine(s.scratch[:0], line[:lastNonEmpty+1], &s.ext)
	ref := s.store(s.scratch)
	if len(s.ring) < s.maxLines {
		s.ring = append(s.ring, ref)
		return
	}
	s.release(s.line(0))
	s.ring[s.head] = ref
	s.head = (s.head + 1) % len(s.ring)
	s.freeChunks()
}

// store appends an encoded line to the newest chunk and returns its
// reference.
func (s *Scrollback) store(b []byte) uint64 {
	var tmp [binary.MaxVarintLen64]byte
	pre := binary.PutUvarint(tmp[:], uint64(len(b)))
	n := len(s.chunks)
	if n == 0 || cap(s.chunks[n-1])-len(s.chunks[n-1]) < pre+len(b) {
		s.chunks = append(s.chunks, make([]byte, 0, max(arenaChunk, pre+len(b))))
		n++
	}
	c := s.chunks[n-1]
	off := len(c)
	s.chunks[n-1] = append(append(c, tmp[:pre]...), b...)
	return (s.first+uint64(n-1))<<32 | uint64(off)
}

// line is encoded line i, 0 the oldest.
func (s *Scrollback) line(i int) []byte {
	ref := s.ring[(s.head+i)%len(s.ring)]
	c := s.chunks[ref>>32-s.first][uint32(ref):]
	n, k := binary.Uvarint(c)
	return c[k : k+int(n)]
}

// release frees the side-table colours of a line leaving the scrollback.
func (s *Scrollback) release(b []byte) {
	if s.ext.used > 0 {
		forEachExt(b, s.ext.release)
	}
}

// freeChunks lets go of the chunks before the oldest line's.
func (s *Scrollback) freeChunks() {
	n := uint64(len(s.chunks)) - 1 // the newest stays for the next push
	if len(s.ring) > 0 {
		n = min(n, s.ring[s.head]>>32-s.first)
	}
	for range n {
		s.chunks[0] = nil
		s.chunks = s.chunks[1:]
		s.first++
	}
}

// PushN adds n lines from the buffer starting at line y to the scrollback.
func (s *Scrollback) PushN(buf *uv.RenderBuffer, y, n int) {
	if s == nil || buf == nil || n <= 0 {
		return
	}

	for i := range min(n, buf.Height()-y) {
		if line := buf.Line(y + i); line != nil {
			s.Push(line)
		}
	}
}

// Len returns the number of lines in the scrollback buffer.
func (s *Scrollback) Len() int {
	if s == nil {
		return 0
	}
	return len(s.ring)
}

// MaxLines returns the maximum number of lines the scrollback buffer can hold.
func (s *Scrollback) MaxLines() int {
	if s == nil {
		return 0
	}
	return s.maxLines
}

// SetMaxLines sets the maximum number of lines in the scrollback buffer.
// If the current number of lines exceeds the new maximum, oldest lines are removed.
func (s *Scrollback) SetMaxLines(maxLines int) {
	if s == nil || maxLines <= 0 {
		return
	}

	// PATCH(pullcept): put the ring back in order, keeping the newest
	// maxLines lines.
	keep := min(len(s.ring), maxLines)
	drop := len(s.ring) - keep
	for i := range drop {
		s.release(s.line(i))
	}
	ring := make([]uint64, keep, min(maxLines, max(keep, 1000)))
	for i := range keep {
		ring[i] = s.ring[(s.head+drop+i)%len(s.ring)]
	}
	s.ring, s.head, s.maxLines = ring, 0, maxLines
	if len(s.chunks) > 0 {
		s.freeChunks()
	}
}

// Line returns the line at the given index.
// Index 0 is the oldest line, Len()-1 is the most recent.
// Returns nil if index is out of bounds.
//
// PATCH(pullcept): the line is decoded anew on each call.
func (s *Scrollback) Line(index int) uv.Line {
	if s == nil || index < 0 || index >= len(s.ring) {
		return nil
	}
	return decodeLine(s.line(index), &s.ext)
}

// LineWidth returns the number of cells of line index (trailing blanks are
// not kept), without decoding it; 0 if index is out of bounds.
func (s *Scrollback) LineWidth(index int) int {
	if s == nil || index < 0 || index >= len(s.ring) {
		return 0
	}
	return lineWidth(s.line(index))
}

// Lines returns all lines in the scrollback buffer.
// Index 0 is the oldest line.
//
// PATCH(pullcept): every line is decoded: use Line for a few.
func (s *Scrollback) Lines() []uv.Line {
	if s == nil {
		return nil
	}
	out := make([]uv.Line, len(s.ring))
	for i := range out {
		out[i] = decodeLine(s.line(i), &s.ext)
	}
	return out
}

// Clear removes all lines from the scrollback buffer.
func (s *Scrollback) Clear() {
	if s == nil {
		return
	}
	s.ring, s.head = s.ring[:0], 0
	s.first += uint64(len(s.chunks))
	s.chunks = nil
	s.ext = extTable{}
}

// CellAt returns the cell at the given position in the scrollback buffer.
// x is the column, y is the line index (0 = oldest).
// Returns nil if position is out of bounds.
//
// PATCH(pullcept): a copy of the cell, decoded anew.
func (s *Scrollback) CellAt(x, y int) *uv.Cell {
	if s == nil || y < 0 || y >= len(s.ring) {
		return nil
	}
	c, ok := decodeCell(s.line(y), x, &s.ext)
	if !ok {
		return nil
	}
	return &c
}
