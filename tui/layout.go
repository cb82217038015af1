package tui

import "math"

// Layout is plain data: given the screen size and what is shown, it yields
// rectangles. Nothing here draws. Columns of the body that no rectangle
// covers are separators (drawn as │).

// Rect is a rectangle of cells.
type Rect struct{ X, Y, W, H int }

// Empty reports whether r has no cells.
func (r Rect) Empty() bool { return r.W <= 0 || r.H <= 0 }

// Contains reports whether the cell (x, y) is inside r.
func (r Rect) Contains(x, y int) bool {
	return !r.Empty() && x >= r.X && x < r.X+r.W && y >= r.Y && y < r.Y+r.H
}

// Inner is r without its first row (the header every panel has).
func (r Rect) Inner() Rect {
	if r.H <= 1 {
		return Rect{X: r.X, Y: r.Y + r.H, W: r.W}
	}
	return Rect{X: r.X, Y: r.Y + 1, W: r.W, H: r.H - 1}
}

// layoutIn is what the layout depends on.
type layoutIn struct {
	W, H       int
	Topics     bool // topic list shown
	Parts      bool // participants shown
	Panes      int  // number of terminal panes
	InputLines int  // lines the input holds
	// Zoom: 0 none, zoomRoom the room, zoomPane+i pane i.
	Zoom int
	// PaneLayout is how panes share their area (layoutTiled, …).
	PaneLayout int
	// Spare is the pane shown in the last place when not every pane fits
	// and it is one of the hidden ones (the focused pane, so focus always
	// brings a pane on screen); otherwise the first panes that fit show.
	Spare int
}

// Pane layouts, as tmux names them; prefix space cycles them.
const (
	layoutTiled          = iota // a grid, each pane about a terminal's shape
	layoutEvenHorizontal        // side by side, widths shared evenly
	layoutEvenVertical          // stacked, heights shared evenly
	layoutMainVertical          // the first pane large on the left, the others stacked on the right
	layoutCount
)

var layoutNames = [layoutCount]string{"tiled", "even-horizontal", "even-vertical", "main-vertical"}

const (
	zoomNone = 0
	zoomRoom = 1
	zoomPane = 2
)

// Layout is the screen's rectangles.
type Layout struct {
	Topics, Room, Parts, Status, Input Rect
	// Panes has one rectangle per pane; a hidden pane's is empty.
	Panes []Rect
	// PaneArea is where the panes go (their rectangles, separators and
	// the strip); Strip, its last row when some panes are hidden, names
	// them; Hidden are their indexes, in order.
	PaneArea, Strip Rect
	Hidden          []int
	// Body is everything above the status line.
	Body Rect
}

// Sizes.
const (
	topicsWidth  = 22
	partsWidth   = 20
	maxInputRows = 6
	minRoomWidth = 30
	minPaneWidth = 40
	minPaneRows  = 4
	// The smallest pane drawn: 20x5 inside, under its title row. Panes
	// that do not fit at that size are hidden and named on the strip.
	paneMinW = 20
	paneMinH = 6
	// paneAspect is the width/height the tiled layout aims each pane at
	// (a terminal's 80x24).
	paneAspect = 80.0 / 24.0
)

func computeLayout(in layoutIn) Layout {
	var l Layout
	if in.W <= 0 || in.H <= 0 {
		l.Panes = make([]Rect, in.Panes)
		return l
	}
	inputH := min(max(in.InputLines, 1), maxInputRows, max(1, in.H/4))
	bodyH := max(in.H-inputH-1, 0)
	l.Input = Rect{X: 0, Y: in.H - inputH, W: in.W, H: inputH}
	l.Status = Rect{X: 0, Y: bodyH, W: in.W, H: 1}
	if bodyH == 0 {
		l.Status = Rect{}
		l.Input = Rect{X: 0, Y: 0, W: in.W, H: in.H}
	}
	l.Body = Rect{X: 0, Y: 0, W: in.W, H: bodyH}
	l.Panes = make([]Rect, in.Panes)

	switch {
	case in.Zoom == zoomRoom:
		l.Room = l.Body
		return l
	case in.Zoom >= zoomPane && in.Zoom-zoomPane < in.Panes:
		l.Panes[in.Zoom-zoomPane] = l.Body
		return l
	}

	main := l.Body
	// Side panels, each with a separator column, while the room keeps
	// room to breathe.
	if in.Topics && main.W-topicsWidth-1 >= minRoomWidth {
		l.Topics = Rect{X: 0, Y: 0, W: topicsWidth, H: bodyH}
		main.X += topicsWidth + 1
		main.W -= topicsWidth + 1
	}
	if in.Parts && main.W-partsWidth-1 >= minRoomWidth {
		l.Parts = Rect{X: main.X + main.W - partsWidth, Y: 0, W: partsWidth, H: bodyH}
		main.W -= partsWidth + 1
	}
	if in.Panes == 0 {
		l.Room = main
		return l
	}

	var region Rect
	if main.W >= minRoomWidth+1+minPaneWidth {
		// Room on the left, panes on the right.
		roomW := max(minRoomWidth, main.W*2/5)
		l.Room = Rect{X: main.X, Y: main.Y, W: roomW, H: main.H}
		region = Rect{X: main.X + roomW + 1, Y: main.Y, W: main.W - roomW - 1, H: main.H}
	} else {
		// Room on top, panes below.
		roomH := max(minPaneRows, main.H/3)
		if roomH >= main.H {
			l.Room = main
			return l
		}
		l.Room = Rect{X: main.X, Y: main.Y, W: main.W, H: roomH}
		region = Rect{X: main.X, Y: main.Y + roomH, W: main.W, H: main.H - roomH}
	}
	l.PaneArea = region
	l.Strip, l.Hidden = placePanes(l.Panes, region, in.PaneLayout, in.Spare)
	return l
}

// placePanes lays len(out) panes out in area with layout kind. When not
// every pane fits at paneMinW x paneMinH, the last row of area becomes the
// strip and as many panes as fit above it show: the first ones, the last
// place going to spare when spare is one of the others. It returns the
// strip and the hidden panes' indexes.
func placePanes(out []Rect, area Rect, kind, spare int) (Rect, []int) {
	n := len(out)
	if n == 0 || area.Empty() {
		return Rect{}, nil
	}
	if kind < 0 || kind >= layoutCount {
		kind = layoutTiled
	}
	var strip Rect
	k := max(paneCapacity(kind, area.W, area.H, n), 1) // too small for any: one pane anyway, in all of it
	if k < n && area.H >= 2 {
		strip = Rect{X: area.X, Y: area.Y + area.H - 1, W: area.W, H: 1}
		area.H--
		k = max(paneCapacity(kind, area.W, area.H, n), 1)
	}
	shown := make([]int, k)
	for i := range shown {
		shown[i] = i
	}
	if spare >= k && spare < n {
		shown[k-1] = spare
	}
	for i, r := range arrange(kind, area, k) {
		out[shown[i]] = r
	}
	var hidden []int
	for i := range n {
		if out[i].Empty() {
			hidden = append(hidden, i)
		}
	}
	if len(hidden) == 0 {
		strip = Rect{}
	}
	return strip, hidden
}

// paneCapacity is how many of n panes fit in w x h with layout kind.
func paneCapacity(kind, w, h, n int) int {
	cols, rows := (w+1)/(paneMinW+1), h/paneMinH
	if cols <= 0 || rows <= 0 {
		return 0
	}
	switch kind {
	case layoutEvenHorizontal:
		return min(n, cols)
	case layoutEvenVertical:
		return min(n, rows)
	case layoutMainVertical:
		if n == 1 || cols < 2 {
			return 1
		}
		return min(n, 1+rows)
	}
	return min(n, cols*rows)
}

// arrange cuts area into k rectangles with layout kind, in pane order.
// Side by side panes have a separator column between them; stacked ones
// are parted by their title rows.
func arrange(kind int, area Rect, k int) []Rect {
	var out []Rect
	row := func(y, h, cnt int) {
		x := area.X
		for _, w := range spread(area.W, cnt, 1) {
			out = append(out, Rect{X: x, Y: y, W: w, H: h})
			x += w + 1
		}
	}
	switch {
	case k == 1:
		out = append(out, area)
	case kind == layoutEvenHorizontal:
		row(area.Y, area.H, k)
	case kind == layoutEvenVertical:
		y := area.Y
		for _, h := range spread(area.H, k, 0) {
			out = append(out, Rect{X: area.X, Y: y, W: area.W, H: h})
			y += h
		}
	case kind == layoutMainVertical:
		rightW := (area.W - 1) / 2
		mainW := area.W - 1 - rightW
		out = append(out, Rect{X: area.X, Y: area.Y, W: mainW, H: area.H})
		y := area.Y
		for _, h := range spread(area.H, k-1, 0) {
			out = append(out, Rect{X: area.X + mainW + 1, Y: y, W: rightW, H: h})
			y += h
		}
	default:
		rows, cols := tiledGrid(area.W, area.H, k)
		y := area.Y
		for r, h := range spread(area.H, rows, 0) {
			row(y, h, min(cols, k-r*cols)) // the last row's panes share its width
			y += h
		}
	}
	return out
}

// tiledGrid is the grid of rows x cols (no empty row) for k panes that
// fits them at the minimum size and makes each closest to a terminal's
// shape; when none fits, the squarest.
func tiledGrid(w, h, k int) (int, int) {
	bestR, bestC, best := 0, 0, math.Inf(1)
	for r := 1; r <= k; r++ {
		c := (k + r - 1) / r
		if (r-1)*c >= k {
			continue
		}
		cw, ch := (w-(c-1))/c, h/r
		if cw < paneMinW || ch < paneMinH {
			continue
		}
		if d := math.Abs(math.Log(float64(cw) / float64(ch) / paneAspect)); d < best {
			bestR, bestC, best = r, c, d
		}
	}
	if bestR == 0 {
		bestC = int(math.Ceil(math.Sqrt(float64(k))))
		bestR = (k + bestC - 1) / bestC
	}
	return bestR, bestC
}

// spread shares total cells among k parts with gap cells between them, so
// the parts differ by at most one (the last ones get the remainder).
func spread(total, k, gap int) []int {
	if k <= 0 {
		return nil
	}
	avail := max(total-gap*(k-1), 0)
	base, rem := avail/k, avail%k
	out := make([]int, k)
	for i := range out {
		out[i] = base
		if i >= k-rem {
			out[i]++
		}
	}
	return out
}
