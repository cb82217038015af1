package tui

import (
	"fmt"
	"slices"
	"testing"
)

func TestLayoutTable(t *testing.T) {
	cases := []struct {
		name string
		in   layoutIn
		want Layout
	}{
		{"80x24 no panes", layoutIn{W: 80, H: 24, Topics: true, Parts: true},
			Layout{Topics: Rect{0, 0, 22, 22}, Room: Rect{23, 0, 36, 22}, Parts: Rect{60, 0, 20, 22}, Status: Rect{0, 22, 80, 1}, Input: Rect{0, 23, 80, 1}, Body: Rect{0, 0, 80, 22}}},
		{"80x24 panels hidden", layoutIn{W: 80, H: 24},
			Layout{Room: Rect{0, 0, 80, 22}, Status: Rect{0, 22, 80, 1}, Input: Rect{0, 23, 80, 1}, Body: Rect{0, 0, 80, 22}}},
		{"80x24 one pane: room on top", layoutIn{W: 80, H: 24, Topics: true, Parts: true, Panes: 1},
			Layout{Topics: Rect{0, 0, 22, 22}, Room: Rect{23, 0, 36, 7}, Parts: Rect{60, 0, 20, 22}, Panes: []Rect{{23, 7, 36, 15}}, Status: Rect{0, 22, 80, 1}, Input: Rect{0, 23, 80, 1}, Body: Rect{0, 0, 80, 22}}},
		{"160x40 two panes: room left, panes stacked right", layoutIn{W: 160, H: 40, Topics: true, Parts: true, Panes: 2, InputLines: 3},
			Layout{Topics: Rect{0, 0, 22, 36}, Room: Rect{23, 0, 46, 36}, Parts: Rect{140, 0, 20, 36}, Panes: []Rect{{70, 0, 69, 18}, {70, 18, 69, 18}}, Status: Rect{0, 36, 160, 1}, Input: Rect{0, 37, 160, 3}, Body: Rect{0, 0, 160, 36}}},
		{"200x8 two panes side by side", layoutIn{W: 200, H: 8, Panes: 2},
			Layout{Room: Rect{0, 0, 80, 6}, Panes: []Rect{{81, 0, 59, 6}, {141, 0, 59, 6}}, Status: Rect{0, 6, 200, 1}, Input: Rect{0, 7, 200, 1}, Body: Rect{0, 0, 200, 6}}},
		{"300x40 two panes side by side", layoutIn{W: 300, H: 40, Panes: 2},
			Layout{Room: Rect{0, 0, 120, 38}, Panes: []Rect{{121, 0, 89, 38}, {211, 0, 89, 38}}, Status: Rect{0, 38, 300, 1}, Input: Rect{0, 39, 300, 1}, Body: Rect{0, 0, 300, 38}}},
		{"zoom pane", layoutIn{W: 80, H: 24, Topics: true, Parts: true, Panes: 2, Zoom: zoomPane + 1},
			Layout{Panes: []Rect{{}, {0, 0, 80, 22}}, Status: Rect{0, 22, 80, 1}, Input: Rect{0, 23, 80, 1}, Body: Rect{0, 0, 80, 22}}},
		{"zoom room", layoutIn{W: 80, H: 24, Topics: true, Panes: 1, Zoom: zoomRoom},
			Layout{Room: Rect{0, 0, 80, 22}, Panes: []Rect{{}}, Status: Rect{0, 22, 80, 1}, Input: Rect{0, 23, 80, 1}, Body: Rect{0, 0, 80, 22}}},
		{"input capped at a quarter", layoutIn{W: 80, H: 24, InputLines: 20},
			Layout{Room: Rect{0, 0, 80, 17}, Status: Rect{0, 17, 80, 1}, Input: Rect{0, 18, 80, 6}, Body: Rect{0, 0, 80, 17}}},
		{"narrow: side panels give way", layoutIn{W: 50, H: 24, Topics: true, Parts: true},
			Layout{Room: Rect{0, 0, 50, 22}, Status: Rect{0, 22, 50, 1}, Input: Rect{0, 23, 50, 1}, Body: Rect{0, 0, 50, 22}}},
	}
	for _, c := range cases {
		got := computeLayout(c.in)
		if c.want.Panes == nil {
			c.want.Panes = []Rect{}
		}
		if !layoutEqual(got, c.want) {
			t.Errorf("%s:\n got  %+v\n want %+v", c.name, got, c.want)
		}
	}
}

func layoutEqual(a, b Layout) bool {
	if a.Topics != b.Topics || a.Room != b.Room || a.Parts != b.Parts || a.Status != b.Status || a.Input != b.Input || a.Body != b.Body || len(a.Panes) != len(b.Panes) {
		return false
	}
	for i := range a.Panes {
		if a.Panes[i] != b.Panes[i] {
			return false
		}
	}
	return true
}

// TestLayoutNeverBreaks: at every size, rectangles stay on screen, never
// overlap, and from 80x24 up the room and the input are always there.
func TestLayoutNeverBreaks(t *testing.T) {
	for w := 1; w <= 260; w += 3 {
		for h := 1; h <= 80; h += 2 {
			for panes := 0; panes <= 9; panes++ {
				for _, side := range []bool{false, true} {
					in := layoutIn{W: w, H: h, Topics: side, Parts: side, Panes: panes, InputLines: h % 9}
					l := computeLayout(in)
					rects := append([]Rect{l.Topics, l.Room, l.Parts, l.Status, l.Input, l.Strip}, l.Panes...)
					for i, a := range rects {
						if a.Empty() {
							continue
						}
						if a.X < 0 || a.Y < 0 || a.X+a.W > w || a.Y+a.H > h {
							t.Fatalf("%+v: rect %d %+v off screen", in, i, a)
						}
						for j, b := range rects[i+1:] {
							if !b.Empty() && a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
								t.Fatalf("%+v: rects %d %+v and %d %+v overlap", in, i, a, i+1+j, b)
							}
						}
					}
					if w >= 80 && h >= 24 && (l.Room.H < 4 || l.Input.Empty() || l.Status.Empty()) {
						t.Fatalf("%+v: room %+v input %+v", in, l.Room, l.Input)
					}
					if w >= 80 && h >= 24 && panes > 0 && l.Panes[0].H < minPaneRows {
						t.Fatalf("%+v: first pane %+v", in, l.Panes[0])
					}
				}
			}
		}
	}
}

// TestPaneLayoutsAtNamedSizes: each layout at the sizes the issue names,
// with the side panels shown (as at start-up): the hidden count, and the
// invariants of checkPanes.
func TestPaneLayoutsAtNamedSizes(t *testing.T) {
	cases := []struct {
		w, h, n int
		hidden  [layoutCount]int // tiled, even-horizontal, even-vertical, main-vertical
	}{
		{100, 30, 8, [layoutCount]int{2, 6, 5, 4}},
		{60, 20, 3, [layoutCount]int{2, 2, 2, 2}},
		{120, 40, 1, [layoutCount]int{0, 0, 0, 0}},
		{120, 40, 2, [layoutCount]int{0, 0, 0, 0}},
		{120, 40, 4, [layoutCount]int{0, 2, 0, 0}},
		{80, 24, 1, [layoutCount]int{0, 0, 0, 0}},
		{80, 24, 2, [layoutCount]int{0, 1, 0, 1}},
		{80, 24, 4, [layoutCount]int{2, 3, 2, 3}},
	}
	for _, c := range cases {
		for kind := range layoutCount {
			in := layoutIn{W: c.w, H: c.h, Topics: true, Parts: true, Panes: c.n, PaneLayout: kind}
			l := computeLayout(in)
			name := fmt.Sprintf("%dx%d %d panes %s", c.w, c.h, c.n, layoutNames[kind])
			if len(l.Hidden) != c.hidden[kind] {
				t.Errorf("%s: hidden %v, want %d", name, l.Hidden, c.hidden[kind])
			}
			checkPanes(t, name, in, l)
			// Every hidden pane, given the last place, shows; the
			// others keep their places.
			for _, h := range l.Hidden {
				in2 := in
				in2.Spare = h
				l2 := computeLayout(in2)
				checkPanes(t, name+fmt.Sprintf(" spare %d", h), in2, l2)
				if l2.Panes[h].Empty() || len(l2.Hidden) != len(l.Hidden) {
					t.Errorf("%s: spare %d: %+v hidden %v", name, h, l2.Panes, l2.Hidden)
				}
				for i, r := range l.Panes {
					if !r.Empty() && !l2.Panes[i].Empty() && r != l2.Panes[i] {
						t.Errorf("%s: spare %d moved pane %d from %+v to %+v", name, h, i, r, l2.Panes[i])
					}
				}
			}
		}
	}
}

// TestPaneLayoutsEverywhere: the invariants at many sizes and counts, with
// and without the side panels.
func TestPaneLayoutsEverywhere(t *testing.T) {
	for w := 20; w <= 260; w += 7 {
		for h := 6; h <= 80; h += 3 {
			for n := 1; n <= 12; n++ {
				for kind := range layoutCount {
					for _, side := range []bool{false, true} {
						in := layoutIn{W: w, H: h, Topics: side, Parts: side, Panes: n, PaneLayout: kind, Spare: n - 1}
						checkPanes(t, fmt.Sprintf("%+v", in), in, computeLayout(in))
					}
				}
			}
		}
	}
}

func TestSpread(t *testing.T) {
	for total := 0; total < 60; total++ {
		for k := 1; k < 9; k++ {
			for _, gap := range []int{0, 1} {
				s := spread(total, k, gap)
				sum := gap * (k - 1)
				for _, v := range s {
					sum += v
					if v < s[0] || v > s[0]+1 {
						t.Fatalf("spread(%d, %d, %d) = %v: sizes differ by more than one", total, k, gap, s)
					}
				}
				if total >= gap*(k-1) && sum != total {
					t.Fatalf("spread(%d, %d, %d) = %v: sum %d", total, k, gap, s, sum)
				}
			}
		}
	}
}

// checkPanes: shown panes lie inside the pane area above the strip and do
// not overlap; the strip is the area's last row exactly when some panes
// are hidden; shown plus hidden is every pane; every shown pane has the
// minimum size when the area has room for one; sizes differ by at most one
// cell the way each layout shares them; the cells of the area are all
// panes or separator columns between two panes.
func checkPanes(t *testing.T, name string, in layoutIn, l Layout) {
	t.Helper()
	a := l.PaneArea
	if a.Empty() {
		return
	}
	if (len(l.Hidden) > 0) != !l.Strip.Empty() && a.H >= 2 {
		t.Errorf("%s: hidden %v, strip %+v", name, l.Hidden, l.Strip)
	}
	above := a
	if !l.Strip.Empty() {
		if l.Strip != (Rect{X: a.X, Y: a.Y + a.H - 1, W: a.W, H: 1}) {
			t.Errorf("%s: strip %+v in area %+v", name, l.Strip, a)
		}
		above.H--
	}
	var shown []Rect
	for i, r := range l.Panes {
		if r.Empty() {
			if !slices.Contains(l.Hidden, i) {
				t.Errorf("%s: pane %d neither shown nor hidden", name, i)
			}
			continue
		}
		if slices.Contains(l.Hidden, i) {
			t.Errorf("%s: pane %d shown and hidden", name, i)
		}
		if r.X < above.X || r.Y < above.Y || r.X+r.W > above.X+above.W || r.Y+r.H > above.Y+above.H {
			t.Errorf("%s: pane %d %+v outside %+v", name, i, r, above)
		}
		if above.W >= paneMinW && above.H >= paneMinH && (r.W < paneMinW || r.H < paneMinH) {
			t.Errorf("%s: pane %d %+v smaller than %dx%d", name, i, r, paneMinW, paneMinH)
		}
		for _, o := range shown {
			if r.X < o.X+o.W && o.X < r.X+r.W && r.Y < o.Y+o.H && o.Y < r.Y+r.H {
				t.Errorf("%s: panes %+v and %+v overlap", name, r, o)
			}
		}
		shown = append(shown, r)
	}
	if len(shown) == 0 {
		t.Errorf("%s: no pane shown", name)
		return
	}
	// Cells: a pane, or a separator between panes left and right of it.
	covered := func(x, y int) bool {
		for _, r := range shown {
			if r.Contains(x, y) {
				return true
			}
		}
		return false
	}
	for y := above.Y; y < above.Y+above.H; y++ {
		for x := above.X; x < above.X+above.W; x++ {
			if !covered(x, y) && !(covered(x-1, y) && covered(x+1, y)) {
				t.Errorf("%s: cell %d,%d wasted", name, x, y)
				return
			}
		}
	}
	// Even sizes.
	within1 := func(what string, vs []int) {
		if len(vs) == 0 {
			return
		}
		lo, hi := slices.Min(vs), slices.Max(vs)
		if hi-lo > 1 {
			t.Errorf("%s: %s %v differ by more than one", name, what, vs)
		}
	}
	var ws, hs []int
	rows := map[int][]int{} // widths by row
	for _, r := range shown {
		ws, hs = append(ws, r.W), append(hs, r.H)
		rows[r.Y] = append(rows[r.Y], r.W)
	}
	switch in.PaneLayout {
	case layoutEvenHorizontal:
		within1("widths", ws)
		within1("heights", hs)
	case layoutEvenVertical:
		within1("heights", hs)
		within1("widths", ws)
	case layoutMainVertical:
		if len(shown) > 1 {
			within1("stacked heights", hs[1:])
			within1("stacked widths", ws[1:])
			if shown[0].H != above.H || shown[0].W < ws[1] {
				t.Errorf("%s: main pane %+v, others %v wide", name, shown[0], ws[1:])
			}
		}
	default:
		within1("heights", hs)
		for y, rw := range rows {
			within1(fmt.Sprintf("widths in row %d", y), rw)
		}
	}
}
