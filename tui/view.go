package tui

// Drawing the frame: every component draws its rectangle into lines of
// exactly its width; the rows are then joined, with separators in the
// columns no rectangle covers, and overlays cut in.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
	"pullcept/room/wire"
)

// View draws the screen.
func (m *model) View() tea.View {
	if m.sameView && m.lastView != nil {
		return *m.lastView
	}
	v := tea.View{AltScreen: true, MouseMode: tea.MouseModeCellMotion}
	if m.w <= 0 || m.h <= 0 {
		return v
	}
	screen, cur := m.frame()
	v.Content = strings.Join(screen, "\n")
	v.Cursor = cur
	m.lastView = &v
	return v
}

type segment struct {
	r     Rect
	lines []string
}

// frame draws the rows and places the cursor.
func (m *model) frame() ([]string, *tea.Cursor) {
	m.frames++
	l := m.lay
	// The last frame's fits are read while this frame's are made: two maps,
	// swapped, and the segments' slice kept (no allocation a frame).
	fits := m.drawn.spare
	if fits == nil {
		fits = make(map[Rect]*fitted, len(m.drawn.fits))
	}
	clear(fits)
	segs := m.drawn.segs[:0]
	add := func(r Rect, lines []string) {
		if !r.Empty() {
			f := m.drawn.fits[r].fit(lines, r.W, r.H)
			fits[r] = f
			segs = append(segs, segment{r, f.out})
		}
	}
	// Every rectangle but the panes', drawn again unless only the panes
	// changed since the last frame (of the same layout).
	others := m.drawn.others
	if !m.panesOnly || others == nil || !others.lay.equal(l) {
		others = &otherRects{lay: l, topics: m.drawTopics(l.Topics), room: m.drawRoom(l.Room), parts: m.drawParts(l.Parts),
			strip: []string{m.drawStrip(l.Strip.W)}, status: []string{m.drawStatus(l.Status.W)}}
		others.input, others.cx, others.cy = m.drawInput(l.Input)
		m.drawn.others = others
	}
	add(l.Topics, others.topics)
	add(l.Room, others.room)
	add(l.Parts, others.parts)
	panes := m.panes()
	for i, r := range l.Panes {
		if i < len(panes) {
			add(r, m.drawPane(panes[i], i, r))
		}
	}
	add(l.Strip, others.strip)
	add(l.Status, others.status)
	inLines, cx, cy := others.input, others.cx, others.cy
	add(l.Input, inLines)

	m.drawn.fits, m.drawn.spare, m.drawn.segs = fits, m.drawn.fits, segs
	slices.SortFunc(segs, func(a, b segment) int { return a.r.X - b.r.X })
	if len(m.drawn.rows) != m.h {
		m.drawn.rows = make([]joinedRow, m.h)
	}
	rows := make([]string, m.h)
	parts := m.drawn.parts[:0]
	defer func() { m.drawn.parts = parts[:0] }()
	for y := range m.h {
		parts = parts[:0]
		for _, s := range segs {
			if y >= s.r.Y && y < s.r.Y+s.r.H {
				parts = append(parts, rowPart{s.r.X, s.r.W, s.lines[y-s.r.Y]})
			}
		}
		rows[y] = m.drawn.rows[y].join(parts, m.w, y < l.Body.H)
	}

	var cur *tea.Cursor
	switch {
	case m.help:
		m.overlayHelp(rows)
	case m.dlg != nil:
		m.overlayDialog(rows)
	case m.nl.open:
		m.overlayNeeds(rows)
	case m.att.picker != nil:
		m.overlayPicker(rows)
	case m.nicking != "":
		if !l.Status.Empty() {
			_, cx, _ := m.renameEd.layout(1 << 20)
			cur = tea.NewCursor(min(ansi.StringWidth(m.nickPrompt())+cx, l.Status.W-1), l.Status.Y)
		}
	case m.renaming != "":
		if x, y, ok := m.renameCursor(); ok {
			cur = tea.NewCursor(x, y)
		}
	case m.focus == focusInput:
		m.overlayCandidates(rows)
		cur = tea.NewCursor(l.Input.X+cx, l.Input.Y+cy)
	case m.sel != nil && m.sel.room && !l.Room.Empty():
		// The selection's moving end has the cursor.
		in := l.Room.Inner()
		if _, start := m.roomLines(); m.sel.cur-start >= 0 && m.sel.cur-start < in.H {
			cur = tea.NewCursor(in.X, in.Y+m.sel.cur-start)
		}
	case m.sel != nil && m.focus == focusPane && m.paneIdx < len(l.Panes):
		in := l.Panes[m.paneIdx].Inner()
		if y := m.sel.cur + m.scrollOff; y >= 0 && y < in.H {
			cur = tea.NewCursor(in.X, in.Y+y)
		}
	case m.focus == focusPane && !m.scrollMode:
		if s, ok := m.focusedPane(); ok && m.paneIdx < len(l.Panes) {
			// A CLI that hides its cursor (Claude draws its own) still has
			// one: the real cursor goes there, hidden, as tmux puts it, so an
			// input method composes where the CLI reads (issue 12 point 6).
			c := m.paneCur[s.Pane]
			in := l.Panes[m.paneIdx].Inner()
			if c.x >= 0 && c.y >= 0 && c.x < in.W && c.y < in.H {
				cur = tea.NewCursor(in.X+c.x, in.Y+c.y)
				cur.Hidden = !c.visible
			}
		}
	}
	if m.numbers && !m.help && m.dlg == nil {
		m.overlayNumbers(rows)
	}
	if cur != nil {
		cur.Blink = false
	}
	return rows, cur
}

// frameCache keeps the last frame's pieces, each rectangle's lines as
// fitted and each row as joined, so a frame measures and joins again only
// what changed: a pane's echo changes one line of one rectangle.
type frameCache struct {
	fits   map[Rect]*fitted
	spare  map[Rect]*fitted // the map before last: the next frame's, cleared
	segs   []segment        // kept for the next frame's segments
	parts  []rowPart        // kept for the next frame's rows
	rows   []joinedRow
	others *otherRects
}

// otherRects is what the last frame drew in every rectangle but the
// panes', for the layout lay.
type otherRects struct {
	lay                                Layout
	topics, room, parts, strip, status []string
	input                              []string
	cx, cy                             int
}

// equal says whether two layouts place every rectangle alike.
func (a Layout) equal(b Layout) bool {
	return a.Topics == b.Topics && a.Room == b.Room && a.Parts == b.Parts && a.Status == b.Status && a.Input == b.Input &&
		a.PaneArea == b.PaneArea && a.Strip == b.Strip && a.Body == b.Body && slices.Equal(a.Panes, b.Panes) && slices.Equal(a.Hidden, b.Hidden)
}

// fitted is a rectangle's lines as given (in) and as fitted to it (out).
type fitted struct{ in, out []string }

// fit gives exactly h lines of width w, as fitLines, reusing the lines f
// fitted before (f may be nil).
func (f *fitted) fit(lines []string, w, h int) *fitted {
	if f.same(lines, h) {
		return f // most rectangles of most frames: nothing allocated
	}
	n := &fitted{in: make([]string, h), out: make([]string, h)}
	for i := range h {
		s := ""
		if i < len(lines) {
			s = lines[i]
		}
		n.in[i] = s
		if f != nil && i < len(f.in) && f.in[i] == s {
			n.out[i] = f.out[i]
		} else {
			n.out[i] = fit(s, w)
		}
	}
	return n
}

// same says whether f fitted exactly lines, h of them (as fit pads them).
func (f *fitted) same(lines []string, h int) bool {
	if f == nil || len(f.in) != h || len(lines) > h {
		return false
	}
	for i, s := range f.in {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		if l != s {
			return false
		}
	}
	return true
}

// rowPart is a rectangle's line in a row.
type rowPart struct {
	x, w int
	s    string
}

// joinedRow is a row as last joined from its parts.
type joinedRow struct {
	parts []rowPart
	body  bool
	w     int
	s     string
}

// join gives the row of width w from parts (sorted by x), with separators
// in the columns no part covers (inside the body) or blanks (below it).
func (j *joinedRow) join(parts []rowPart, w int, body bool) string {
	if j.s != "" && j.w == w && j.body == body && slices.Equal(j.parts, parts) {
		return j.s
	}
	var b strings.Builder
	x := 0
	for _, p := range parts {
		if p.x > x {
			b.WriteString(style(strings.Repeat("│", p.x-x), "2"))
		}
		b.WriteString(p.s)
		x = p.x + p.w
	}
	if x < w {
		if body {
			b.WriteString(style(strings.Repeat("│", w-x), "2"))
		} else {
			b.WriteString(strings.Repeat(" ", w-x))
		}
	}
	*j = joinedRow{parts: slices.Clone(parts), body: body, w: w, s: b.String()}
	return j.s
}

// overlay cuts lines into rows at r.
func overlay(rows []string, r Rect, lines []string, width int) {
	for i, ln := range lines {
		y := r.Y + i
		if y < 0 || y >= len(rows) || i >= r.H {
			continue
		}
		left := fit(ansi.Cut(rows[y], 0, r.X), r.X)
		right := fit(ansi.Cut(rows[y], r.X+r.W, width), max(width-r.X-r.W, 0))
		rows[y] = left + fit(ln, r.W) + right
	}
}

func (m *model) topicsTop() int {
	h := m.lay.Topics.H - 1
	if h <= 0 || m.tsel < h {
		return 0
	}
	return m.tsel - h + 1
}

func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d/time.Minute))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d/time.Hour))
	case d < 14*24*time.Hour:
		return fmt.Sprintf("%dd", int(d/(24*time.Hour)))
	}
	return fmt.Sprintf("%dw", int(d/(7*24*time.Hour)))
}

func (m *model) drawTopics(r Rect) []string {
	if r.Empty() {
		return nil
	}
	plus := "＋"
	if !m.listed(m.topic) {
		plus = style("＋ new", "1", "32")
	}
	out := []string{header("Topics "+plus, r.W, m.focus == focusTopics)}
	now := m.now()
	top := m.topicsTop()
	for i := top; i < len(m.topics) && len(out) < r.H; i++ {
		t := m.topics[i]
		mark := " "
		switch {
		case m.topicNeedsYou(t.ID):
			mark = style("!", "1", "33")
		case m.loops[t.ID].Reached():
			mark = style("↻", "1", "35")
		case m.running[t.ID] > 0:
			mark = style("●", "32")
		}
		name := wire.OneLine(t.Name)
		if t.Name == "" {
			name = style("(untitled)", "2", "3")
		}
		if m.renaming == t.ID {
			name = m.renameEd.String()
		}
		a := ""
		if !t.Created.IsZero() {
			a = age(now.Sub(t.Created))
		}
		nameW := max(r.W-2-len(a)-1, 1)
		line := mark + " " + fit(ellipsis(name, nameW), nameW) + " " + style(a, "2")
		switch {
		case m.renaming == t.ID:
			line = mark + " " + style(fit(m.renameEd.String(), r.W-2), "4")
		case m.focus == focusTopics && i == m.tsel:
			line = style(fit(ansi.Strip(line), r.W), "7")
		case t.ID == m.topic:
			line = style(fit(ansi.Strip(line), r.W), "1", "36")
		}
		out = append(out, line)
	}
	if len(m.topics) == 0 && r.H > 1 {
		out = append(out, style(" no saved topics", "2"))
	}
	return out
}

func (m *model) renameCursor() (int, int, bool) {
	r := m.lay.Topics
	if r.Empty() {
		return 0, 0, false
	}
	for i := m.topicsTop(); i < len(m.topics); i++ {
		if m.topics[i].ID == m.renaming {
			row := i - m.topicsTop() + 1
			if row >= r.H {
				return 0, 0, false
			}
			_, cx, _ := m.renameEd.layout(1 << 20)
			return r.X + 2 + min(cx, r.W-3), r.Y + row, true
		}
	}
	return 0, 0, false
}

func (m *model) drawRoom(r Rect) []string {
	if r.Empty() {
		return nil
	}
	rs := m.cur()
	title := "Room · " + m.topicName(m.topic)
	in := r.Inner()
	var vis []roomLine
	if rs != nil {
		vis, _ = rs.view(in.W, in.H, m.roomCtx())
		switch {
		case rs.loading:
			title += " · loading older posts…"
		case rs.offset > 0:
			title += fmt.Sprintf(" · ↑ scrolled %d lines (end: newest)", rs.offset)
		}
	}
	if m.zoom == zoomRoom {
		title += " · zoomed (" + m.prefix + " z)"
	}
	out := []string{header(title, r.W, m.focus == focusRoom)}
	if rs != nil && len(rs.posts) == 0 && rs.loaded {
		out = append(out, hintLines("Nothing said yet. Type below and press Enter; @ addresses someone.", r.W)...)
		if len(m.seatList) == 0 {
			out = append(out, hintLines(m.seatHint(), r.W)...)
		}
	}
	start, mark := 0, -1
	if rs != nil && (m.focus == focusRoom || (m.sel != nil && m.sel.room)) {
		var all []roomLine
		all, start = m.roomLines()
		mark = m.cursorLine(all, start, start+len(vis))
	}
	for i, l := range vis {
		if m.selected(true, 0, start+i) || start+i == mark {
			out = append(out, reverse(l.text, in.W))
			continue
		}
		out = append(out, l.text)
	}
	return out
}

func (m *model) drawParts(r Rect) []string {
	if r.Empty() {
		return nil
	}
	out := []string{header("Participants", r.W, m.focus == focusParts)}
	lines, owner := m.partLines(r.W)
	out = append(out, lines[partsTop(owner, m.psel, r.H-1):]...)
	switch {
	case m.noAccounts() && r.H > len(out)+1:
		out = append(append(out, ""), hintLines("no accounts: add one to config.json", r.W)...)
	case len(m.seatList) == 0 && r.H > len(out)+3:
		out = append(append(out, ""), hintLines(m.prefix+" a, then j/k and s seats a CLI here", r.W)...)
	}
	return out
}

// hintLines is a hint for a panel w cells wide: dim, one cell in, wrapped
// at word boundaries (a word wider than the panel is broken).
func hintLines(text string, w int) []string {
	rows := wrapText(text, w-1)
	for i, r := range rows {
		rows[i] = style(" "+r, "2")
	}
	return rows
}

// Seat figures in the participants panel.
const (
	// usageOld is how long a percentage stays fresh; one received longer
	// ago is drawn old (~, dim).
	usageOld = 15 * time.Minute
	// nearLimit is the percentage of a 5h or 7d window from which the seat
	// is near its limit.
	nearLimit = 90
)

// partLines are the participants panel's lines under its header, at most w
// cells wide, and for each line the participant (index in partRows) it
// belongs to: a participant's row, then the figures its seat reported.
func (m *model) partLines(w int) ([]string, []int) {
	var lines []string
	var owner []int
	now := m.now()
	mcpHeader := false
	for i, p := range m.partRows() {
		var figs []string
		near := ""
		if p.usage != nil {
			figs, near = usageLines(*p.usage, now, w-2)
		}
		tail, tw := style(p.state, "2"), ansi.StringWidth(p.state)
		if near != "" {
			tail, tw = style("!", "1", near)+" "+tail, tw+2
		}
		line := style("● ", fgHex(hueColor(p.hue, p.name))) + fit(wire.OneLine(p.name), max(w-2-tw-1, 1)) + " " + tail
		if m.focus == focusParts && i == m.psel {
			line = style(fit(ansi.Strip(line), w), "7")
		}
		if p.mcp != "" && !mcpHeader {
			mcpHeader = true
			lines, owner = append(lines, style(fit("MCP", w), "1;2")), append(owner, i)
		}
		lines, owner = append(lines, line), append(owner, i)
		for _, f := range figs {
			lines, owner = append(lines, "  "+f), append(owner, i)
		}
		for _, n := range p.notes {
			lines, owner = append(lines, style("  "+fit(wire.OneLine(n), max(w-2, 1)), "2")), append(owner, i)
		}
	}
	return lines, owner
}

// partsTop is the first of the participants panel's lines drawn in h rows:
// 0, or as far down as keeps the selected participant's block in view.
func partsTop(owner []int, sel, h int) int {
	first, last := -1, -1
	for i, o := range owner {
		if o == sel {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if h <= 0 || first < 0 || last < h {
		return 0
	}
	return min(first, last-h+1)
}

// usageLines are a seat's figures as the participants panel draws them
// under its row, each at most w cells: "model · effort", "5h 85% 7d —",
// "ctx 42%" ("—" for a figure never reported, "~" before an old one, "!"
// after a window near its limit), and the SGR colour of the seat's mark
// when a window is near its limit ("" when none is). None when the seat
// reported nothing.
func usageLines(u app.Usage, now time.Time, w int) ([]string, string) {
	if u.Model == "" && u.Effort == "" && u.FiveHour == nil && u.SevenDay == nil && u.Context == nil {
		return nil, ""
	}
	dash := style("—", "2")
	model, effort := dash, dash
	ew := 1
	if u.Effort != "" {
		e := wire.OneLine(u.Effort)
		effort, ew = style(e, "2"), ansi.StringWidth(e)
	}
	if u.Model != "" {
		model = style(ellipsis(wire.OneLine(u.Model), max(w-3-ew, 1)), "2")
	}
	five, n5 := windowFigure("5h", u.FiveHour, u.FiveHourAt, now)
	seven, n7 := windowFigure("7d", u.SevenDay, u.SevenDayAt, now)
	ctx := style("ctx", "2") + " " + dash
	if u.Context != nil {
		ctx = style("ctx", "2") + " " + percentFigure(*u.Context, now.Sub(u.ContextAt) > usageOld, "")
	}
	near := n5
	if n7 == "31" || near == "" {
		near = n7
	}
	return []string{
		ellipsis(model+style(" · ", "2")+effort, w),
		ellipsis(five+" "+seven, w),
		ellipsis(ctx, w),
	}, near
}

// windowFigure is a 5h or 7d window as "5h 85%", and the colour of its
// warning ("33" from nearLimit, "31" at 100 %; "" when not near). A window
// whose reset time has passed is old and not near its limit: it began
// again since.
func windowFigure(label string, win *wire.Window, at, now time.Time) (string, string) {
	if win == nil {
		return style(label, "2") + " " + style("—", "2"), ""
	}
	reset := false
	if t, err := time.Parse(time.RFC3339, win.ResetsAt); err == nil && !now.Before(t) {
		reset = true
	}
	near := ""
	switch {
	case reset:
	case win.UsedPercentage >= 100:
		near = "31"
	case win.UsedPercentage >= nearLimit:
		near = "33"
	}
	return style(label, "2") + " " + percentFigure(win.UsedPercentage, reset || now.Sub(at) > usageOld, near), near
}

// percentFigure is a percentage in whole numbers (cut down, so 89.9 is
// 89 %: the mark at 90 % and the number agree), "~" before it when old,
// "!" after it and bold in colour near when near a limit, dim when old.
func percentFigure(v float64, old bool, near string) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return style("—", "2")
	}
	s := strconv.Itoa(int(math.Floor(max(v, 0)))) + "%"
	if near != "" {
		s += "!"
	}
	if old {
		s = "~" + s
	}
	switch {
	case near != "":
		return style(s, "1", near)
	case old:
		return style(s, "2")
	}
	return s
}

func (m *model) drawPane(s SeatInfo, i int, r Rect) []string {
	focused := m.focus == focusPane && m.paneIdx == i
	title := fmt.Sprintf("%d %s · %s · %s", i+1, wire.OneLine(s.Name), s.Kind, s.State)
	if a := activityText(s); a != "" {
		title += " · " + a
	}
	if s.Held > 0 {
		title += fmt.Sprintf(" · %d held — %s", s.Held, s.Hold)
	}
	if s.State == StateExited {
		title += " · " + s.Exit + " — " + m.prefix + " a: s restarts, x closes"
	}
	if m.zoom == zoomPane+i {
		title += " · zoomed (" + m.prefix + " z)"
	}
	if focused && m.scrollMode {
		title += fmt.Sprintf(" · scroll %d/%d (q leaves)", m.scrollOff, s.Pane.ScrollbackLen())
	}
	text := m.paneText[s.Pane]
	out := make([]string, 1, 2+strings.Count(text, "\n"))
	out[0] = header(title, r.W, focused)
	off := 0
	if focused && m.scrollMode {
		off = m.scrollOff
	}
	j := 0
	for l := range strings.SplitSeq(text, "\n") {
		if m.selected(false, i, j-off) {
			l = reverse(l, r.W)
		}
		out = append(out, l)
		j++
	}
	return out
}

// stripItem is one hidden pane named on the strip: "7 Eta" at x (from the
// strip's left), w cells wide.
type stripItem struct {
	pane, x, w int
	text       string
}

// stripHead is the strip's start: how many panes are hidden.
func (m *model) stripHead() string { return fmt.Sprintf("+%d: ", len(m.lay.Hidden)) }

// stripItems are the hidden panes as the strip names them, numbered as
// the titles number panes.
func (m *model) stripItems() []stripItem {
	panes := m.panes()
	var out []stripItem
	x := ansi.StringWidth(m.stripHead())
	for _, i := range m.lay.Hidden {
		if i >= len(panes) {
			continue
		}
		t := fmt.Sprintf("%d %s", i+1, wire.OneLine(panes[i].Name))
		w := ansi.StringWidth(t)
		out = append(out, stripItem{pane: i, x: x, w: w, text: t})
		x += w + 3 // " · "
	}
	return out
}

// drawStrip names the hidden panes: "+2: 7 Eta · 8 Lin", cut with … when
// long.
func (m *model) drawStrip(w int) string {
	var names []string
	for _, it := range m.stripItems() {
		names = append(names, it.text)
	}
	line := m.stripHead() + strings.Join(names, " · ")
	if tail := "  (" + m.prefix + " o / " + m.prefix + " # reach them)"; ansi.StringWidth(line+tail) <= w {
		line += tail
	}
	return style(fit(ellipsis(line, w), w), "2", "7")
}

// overlayNumbers draws each shown pane's number big in its middle (prefix
// #, like tmux's display-panes): the focused pane's in red, the others'
// in blue.
func (m *model) overlayNumbers(rows []string) {
	for i, r := range m.lay.Panes {
		if r.Empty() || i >= len(m.panes()) {
			continue
		}
		label := "  " + strconv.Itoa(i+1) + "  "
		w := min(ansi.StringWidth(label), r.W)
		h := min(3, r.H)
		color := "44"
		if m.focus == focusPane && m.paneIdx == i {
			color = "7;31;107" // white on red; reversed without colour (NO_COLOR)
		}
		lines := make([]string, h)
		for j := range lines {
			t := strings.Repeat(" ", w)
			if j == h/2 {
				t = label
			}
			lines[j] = style(fit(t, w), "1", "97", color)
		}
		overlay(rows, Rect{X: r.X + (r.W-w)/2, Y: r.Y + (r.H-h)/2, W: w, H: h}, lines, m.w)
	}
}

// nickPrompt leads the status line while a nickname is edited there.
func (m *model) nickPrompt() string {
	return " nickname of " + wire.OneLine(m.nicking) + " (Enter saves, empty: its name; Esc): "
}

func (m *model) drawStatus(w int) string {
	if m.nicking != "" {
		p := m.nickPrompt()
		return style(p, "1") + style(fit(m.renameEd.String(), max(w-ansi.StringWidth(p), 0)), "4")
	}
	right := m.prefix + " ? help"
	if m.armed {
		right = style(" PREFIX ", "1", "7") + " " + right
	}
	left := m.status
	if st, ok := m.loops[m.topic]; ok && left == "" {
		left = m.loopLine(st)
	}
	if left == "" {
		left = "Enter sends to “" + m.topicName(m.topic) + "”; Alt+Enter new line; " + m.prefix + " o moves focus"
	}
	rw := ansi.StringWidth(right)
	return style(fit(" "+wire.OneLine(left), max(w-rw-1, 0)), "2") + " " + right
}

func (m *model) drawInput(r Rect) ([]string, int, int) {
	if r.Empty() {
		return nil, 0, 0
	}
	rows, cx, cy := m.input.layout(max(r.W-2, 2))
	var out []string
	if m.chipRows() > 0 && r.H > 1 {
		out = append(out, m.drawChips(r.W)) // the attachments stand above the text
		r.H--
	}
	chips := len(out)
	top := 0
	if cy >= r.H {
		top = cy - r.H + 1
	}
	for i := top; i < len(rows) && len(out) < r.H+chips; i++ {
		p := "  "
		if i == 0 {
			p = "› "
			if m.focus != focusInput {
				p = style("› ", "2")
			}
		}
		out = append(out, p+rows[i])
	}
	if m.input.String() == "" && m.focus == focusInput && len(out) > chips {
		out[chips] = "› " + style("say something to the room…", "2")
	}
	return out, 2 + cx, cy - top + chips
}

func (m *model) overlayCandidates(rows []string) {
	c := m.input.candidates(m.roster())
	if len(c) == 0 {
		return
	}
	// The popup stands above the status line (or the input when the
	// screen has none), never over it.
	bottom := m.lay.Input.Y
	if !m.lay.Status.Empty() {
		bottom = m.lay.Status.Y
	}
	h := min(len(c), 6, max(bottom, 0))
	if h <= 0 {
		return
	}
	roster := m.roster()
	label := make([]string, len(c))
	w := 0
	for i, n := range c {
		label[i] = " @" + wire.OneLine(n)
		if k := holders(roster, n); k > 1 {
			// One calling name addresses all its holders, never one of them.
			label[i] += fmt.Sprintf("  (all %d of that name)", k)
		}
		w = max(w, ansi.StringWidth(label[i]))
	}
	w = min(w+2, m.w)
	sel := min(m.input.sel, len(c)-1)
	first := max(0, sel-h+1)
	var lines []string
	for i := first; i < first+h; i++ {
		ln := fit(label[i], w)
		if i == sel {
			ln = style(ln, "7")
		} else {
			ln = style(ln, "48;5;236")
		}
		lines = append(lines, ln)
	}
	overlay(rows, Rect{X: min(2, m.w-w), Y: bottom - h, W: w, H: h}, lines, m.w)
}

func (m *model) overlayDialog(rows []string) {
	w := 0
	for _, l := range m.dlg.lines {
		w = max(w, ansi.StringWidth(l))
	}
	w = min(w+4, m.w)
	title := " Delete topic"
	switch {
	case m.dlg.title != "":
		title = " " + m.dlg.title
	case m.dlg.reopen:
		title = " Bring sessions back"
	case m.dlg.quit:
		title = " Quit pullcept"
	}
	lines := []string{style(fit(title, w), "1", "7")}
	for _, l := range m.dlg.lines {
		lines = append(lines, style(fit("  "+l, w), "48;5;236"))
	}
	h := len(lines)
	overlay(rows, Rect{X: (m.w - w) / 2, Y: max((m.h-h)/2, 0), W: w, H: h}, lines, m.w)
}

func (m *model) overlayHelp(rows []string) {
	head := " Keys — ↑/↓ PgUp/PgDn scroll, Esc closes"
	w := min(m.w-2, 100)
	all := helpLines(m.prefix, w-2)
	if m.helpNotices {
		all, head = m.noticeLines(w-2), " Notices, oldest first — ↑/↓ PgUp/PgDn scroll, Esc closes"
	}
	y, h := m.overlayRows()
	m.helpOff = min(m.helpOff, max(len(all)-(h-1), 0))
	if more := len(all) - (h - 1); more > 0 {
		head += fmt.Sprintf(" · %d–%d of %d", m.helpOff+1, min(m.helpOff+h-1, len(all)), len(all))
	}
	lines := []string{style(fit(ellipsis(head, w), w), "1", "7")}
	for _, l := range all[m.helpOff:] {
		if len(lines) >= h {
			break
		}
		lines = append(lines, style(fit(ellipsis(" "+l, w), w), "48;5;235"))
	}
	for len(lines) < h {
		lines = append(lines, style(fit("", w), "48;5;235"))
	}
	overlay(rows, Rect{X: (m.w - w) / 2, Y: y, W: w, H: h}, lines, m.w)
}

// overlayRows are the first row and the height of a whole-body overlay
// (the help, the needs-you list): above the status line, from the second
// row when there is room, else from the first.
func (m *model) overlayRows() (y, h int) {
	body := m.lay.Body.H
	if body <= 0 {
		body = m.h
	}
	if body >= 4 {
		y = 1
	}
	return y, max(body-y, 1)
}

// activityText is a seat's activity as a title shows it: "waiting for
// permission", "working", "ready".
func activityText(s SeatInfo) string {
	switch {
	case s.Activity == "waiting" && s.Wait == "dialog":
		return "waiting for your choice in a dialog"
	case s.Activity == "waiting" && s.Wait != "":
		return "waiting for " + s.Wait
	case s.State == StateExited, s.State == StateAsleep:
		return ""
	case s.Failure != "":
		return s.Activity + " · " + failureText(s.Failure)
	}
	return s.Activity
}

// failureText is the API error that ended a seat's last turn.
func failureText(f string) string { return "API error: " + wire.OneLine(f) }

// noAccounts says no account is configured (yet: one added while the
// screen is open appears at once, through the seats' change).
func (m *model) noAccounts() bool { return m.seats == nil || len(m.accounts) == 0 }

// seatHint says, in an empty room, how to seat a CLI or add an account.
func (m *model) seatHint() string {
	if m.noAccounts() {
		return "No CLI can join yet: add an account (pullcept accounts add, or edit config.json); it appears here at once."
	}
	return "To seat a CLI here: " + m.prefix + " a (participants), pick it with j/k, press s."
}
