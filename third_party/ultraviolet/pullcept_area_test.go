package uv

// PATCH(pullcept): the line and cell edits of an area reaching past the
// buffer edit the part on the buffer, as DeleteCellArea and FillArea did
// already; InsertLineArea, DeleteLineArea and InsertCellArea panicked.

import (
	"fmt"
	"testing"
)

func pullceptAreaBuffer() *Buffer {
	b := NewBuffer(4, 3)
	for y, row := range []string{"abcd", "efgh", "ijkl"} {
		for x, r := range row {
			b.SetCell(x, y, &Cell{Content: string(r), Width: 1})
		}
	}
	return b
}

func TestPullceptAreaPastTheBuffer(t *testing.T) {
	past := []Rectangle{Rect(0, 0, 10, 3), Rect(0, 0, 4, 10), Rect(-2, -2, 20, 20), Rect(2, 1, 10, 10)}
	for _, op := range []struct {
		name string
		edit func(b *Buffer, area Rectangle)
	}{
		{"InsertLineArea", func(b *Buffer, a Rectangle) { b.InsertLineArea(1, 1, nil, a) }},
		{"DeleteLineArea", func(b *Buffer, a Rectangle) { b.DeleteLineArea(1, 1, nil, a) }},
		{"InsertCellArea", func(b *Buffer, a Rectangle) { b.InsertCellArea(2, 1, 5, nil, a) }},
		{"DeleteCellArea", func(b *Buffer, a Rectangle) { b.DeleteCellArea(2, 1, 5, nil, a) }},
	} {
		for _, area := range past {
			t.Run(fmt.Sprint(op.name, area), func(t *testing.T) {
				got, want := pullceptAreaBuffer(), pullceptAreaBuffer()
				op.edit(got, area)
				op.edit(want, area.Intersect(want.Bounds()))
				if got.String() != want.String() {
					t.Errorf("screen %q, want %q (the area clipped to the buffer)", got.String(), want.String())
				}
			})
		}
	}
	// What the clipped area gives, for one area.
	for _, c := range []struct {
		edit func(b *Buffer)
		want string
	}{
		{func(b *Buffer) { b.InsertLineArea(1, 1, nil, Rect(0, 0, 4, 10)) }, "abcd\n\nefgh"},
		{func(b *Buffer) { b.DeleteLineArea(1, 1, nil, Rect(0, 0, 4, 10)) }, "abcd\nijkl\n"},
		{func(b *Buffer) { b.InsertCellArea(1, 0, 2, nil, Rect(0, 0, 10, 3)) }, "a  b\nefgh\nijkl"},
	} {
		b := pullceptAreaBuffer()
		c.edit(b)
		if b.String() != c.want {
			t.Errorf("screen %q, want %q", b.String(), c.want)
		}
	}
}
