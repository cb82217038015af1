package tui

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
}

const (
	zoomNone = 0
	zoomRoom = 1
	zoomPane = 2
)

// Layout is the screen's rectangles.
type Layout struct {
	Topics, Room, Parts, Status, Input Rect
	Panes                              []Rect
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
	n := in.Panes
	each := (region.W - (n - 1)) / n
	if n > 1 && (each >= 80 || (each >= minPaneWidth && region.H/n < minPaneRows)) {
		// Side by side when each pane still gets a full terminal width,
		// or when stacking would leave them too short.
		w := (region.W - (n - 1)) / n
		x := region.X
		for i := range n {
			pw := w
			if i == n-1 {
				pw = region.X + region.W - x
			}
			l.Panes[i] = Rect{X: x, Y: region.Y, W: pw, H: region.H}
			x += pw + 1
		}
		return l
	}
	// Stacked; panes that get fewer than minPaneRows rows are not shown.
	shown := min(n, max(region.H/minPaneRows, 1))
	h := region.H / shown
	y := region.Y
	for i := range shown {
		ph := h
		if i == shown-1 {
			ph = region.Y + region.H - y
		}
		l.Panes[i] = Rect{X: region.X, Y: y, W: region.W, H: ph}
		y += ph
	}
	return l
}
