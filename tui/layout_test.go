package tui

import "testing"

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
			for panes := 0; panes <= 4; panes++ {
				for _, side := range []bool{false, true} {
					in := layoutIn{W: w, H: h, Topics: side, Parts: side, Panes: panes, InputLines: h % 9}
					l := computeLayout(in)
					rects := append([]Rect{l.Topics, l.Room, l.Parts, l.Status, l.Input}, l.Panes...)
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
