package tui

// The room pane: one topic's posts, folded MCP notices, paging back.
//
// Spec 003 "床": a rejection's returned posts are drawn at once, duplicates
// dropped by message_id, and the watermark moves to the newest returned.
// "webhook の通知": consecutive posts of one mcp account fold into
// "<name> N posts". Post content only ever reaches the screen through
// wire.Visible.

import (
	"slices"
	"strings"
	"time"

	"pullcept/app"
	"pullcept/room/wire"
)

// The room's window (issue 32 finding 5): a screen keeps the newest
// roomKeep posts of a room, and of them at most roomKeepBytes of content,
// plus whatever the person scrolled, moved the cursor or selected back to.
// Older posts leave memory as live posts come in (keepWindow) and come back
// from the topic's log a page at a time when the view reaches the top, as
// on a screen that just opened the topic. roomKeep is 2,000 lines of
// one-line posts (a header and a body line each: fifty 40-row screens)
// and the posts whose delivery marks the app keeps (app.DeliveryPosts);
// roomKeepBytes holds 16 posts of the room's largest (room.MaxContentBytes).
// The window is cut once it is a quarter over: one cut per 250 posts.
const (
	roomKeep      = 1000
	roomKeepBytes = 4 << 20
)

// roomState is what the screen keeps of one topic's room.
type roomState struct {
	topic string
	posts []wire.Post // oldest first
	// bytes is the posts' content, counted against roomKeepBytes.
	bytes int
	// foldBefore counts the posts of posts[0]'s fold that the window let
	// go: its header still counts them.
	foldBefore int
	seen       map[string]bool
	mcp        map[string]bool // ids delivered live with role mcp
	// own are the ids the person at this screen said (the event's Own, or
	// the answer to the person's post); others are the other ids delivered
	// live. A post known neither way (an older page) is the person's when it
	// has no account and the person's name, which the room lets no
	// connection take (room.ErrPersonsName).
	own    map[string]bool
	others map[string]bool
	roster []app.Participant
	// marks are the posts' delivery marks: message id -> account ->
	// mark (marks.go); markOrder their ids, oldest first, at most
	// app.DeliveryPosts as the app keeps.
	marks     map[string]map[string]app.Delivery
	markOrder []string

	loaded  bool // the first page arrived (or the topic is new)
	loading bool
	hasMore bool
	skipped int

	// watermark is the newest post drawn: the last_seen of the next post.
	watermark string
	// offset is how many lines the view is scrolled up from the bottom.
	offset int
	// expanded folds, by the message id of their first post.
	expanded  map[string]bool
	expandAll bool
	// cursor is the post cursor's item (zero: the newest, following).
	cursor itemKey

	cache   []roomLine
	cacheW  int
	cacheOK bool
	// cacheDay is the day the cache was drawn on (times show HH:MM today);
	// appended says posts were only added at the end since: the cache is
	// redrawn from the last group on (cacheFrom, its first post; cacheAt,
	// its first line), not from the first post — a burst of n posts then
	// costs n, not n² (issue "Sessions outlive the terminal", the lag case).
	cacheDay           string
	appended           bool
	cacheFrom, cacheAt int
	// cacheHead >= 0: cacheFrom is a post within an open fold that begins
	// at post cacheGroup, its header at line cacheHead (draw's drawAt).
	cacheGroup, cacheHead int
	// prepended is how many posts a page put before the cached ones: only
	// they are drawn, not the whole room again (a room paged back post
	// by post would cost n²).
	prepended int
}

// roomLine is one drawn line; fold is the fold's key on a fold header,
// post the message id of the post a line draws.
type roomLine struct {
	text string
	fold string
	post string
}

func newRoomState(topic string) *roomState {
	return &roomState{topic: topic, seen: map[string]bool{}, mcp: map[string]bool{}, own: map[string]bool{}, others: map[string]bool{}, expanded: map[string]bool{},
		marks: map[string]map[string]app.Delivery{}, cacheHead: -1}
}

func (r *roomState) invalidate() { r.cacheOK = false }

// addLive adds a delivered post at the end; false when already drawn.
// own says the person at this screen said it.
func (r *roomState) addLive(p wire.Post, role string, own bool) bool {
	if role == wire.RoleMCP {
		r.mcp[p.MessageID] = true
	}
	if own {
		r.own[p.MessageID] = true
		delete(r.others, p.MessageID)
	} else if !r.own[p.MessageID] {
		r.others[p.MessageID] = true
	}
	if r.seen[p.MessageID] {
		return false
	}
	r.seen[p.MessageID] = true
	r.posts = append(r.posts, p)
	r.bytes += len(p.Content)
	r.watermark = p.MessageID
	r.appended = true
	return true
}

// addMissed draws the posts a rejection returned (those not drawn yet) and
// moves the watermark to the newest returned, drawn before or not.
func (r *roomState) addMissed(ps []wire.Post) int {
	n := 0
	for _, p := range ps {
		if r.seen[p.MessageID] {
			continue
		}
		r.seen[p.MessageID] = true
		r.posts = append(r.posts, p)
		r.bytes += len(p.Content)
		n++
	}
	if len(ps) > 0 {
		r.watermark = ps[len(ps)-1].MessageID
	}
	r.invalidate()
	return n
}

// addOlder puts a page of older posts (oldest first) before the others.
func (r *roomState) addOlder(ps []wire.Post, hasMore bool) {
	var add []wire.Post
	for _, p := range ps {
		if !r.seen[p.MessageID] {
			r.seen[p.MessageID] = true
			add = append(add, p)
			r.bytes += len(p.Content)
		}
	}
	if r.foldBefore > 0 && len(add) > 0 && len(r.posts) > 0 {
		// The fold's posts come back: its key (its first post) moves to
		// the oldest of them read.
		r.renameFold(r.posts[0].MessageID, add[max(len(add)-r.foldBefore, 0)].MessageID)
		r.foldBefore = max(r.foldBefore-len(add), 0)
	}
	r.posts = append(add, r.posts...)
	if r.watermark == "" && len(r.posts) > 0 {
		r.watermark = r.posts[len(r.posts)-1].MessageID
	}
	r.hasMore = hasMore
	r.loaded = true
	r.prepended += len(add)
}

// renameFold moves what is kept by a fold's key (its first post) to a new
// first post: whether it is open, and the post cursor on its header.
func (r *roomState) renameFold(from, to string) {
	if from == to {
		return
	}
	if r.expanded[from] {
		r.expanded[to] = true
	}
	delete(r.expanded, from)
	if r.cursor.fold == from {
		r.cursor.fold = to
	}
}

// over reports whether the room holds a quarter more than its window.
func (r *roomState) over() bool {
	return len(r.posts) > roomKeep+roomKeep/4 || r.bytes > roomKeepBytes+roomKeepBytes/4
}

// windowCut is how many of the oldest posts fall outside the window: past
// the newest roomKeep, or past roomKeepBytes of content (the newest post
// always stays).
func (r *roomState) windowCut() int {
	cut := max(len(r.posts)-roomKeep, 0)
	b := 0
	for i := len(r.posts) - 1; i > cut; i-- {
		b += len(r.posts[i].Content)
		if b > roomKeepBytes {
			return min(i+1, len(r.posts)-1)
		}
	}
	return cut
}

// keepAt is the oldest post that must stay for the drawn line l to stay
// drawn: its post; on a fold's header, the fold's first post when it is
// open, else its last (the header stays and still counts the others).
func (r *roomState) keepAt(l roomLine, c roomCtx) int {
	id := l.post
	if id == "" {
		id = l.fold
	}
	lo, hi, ok := r.group(id, c)
	switch {
	case !ok:
		return len(r.posts)
	case l.fold != "" && !(r.expandAll || r.expanded[l.fold]):
		return hi - 1
	case l.fold != "":
		return lo
	}
	return lo + indexOf(r.posts[lo:hi], id)
}

// drop lets the oldest cut posts go from memory; the log still has them
// (hasMore). What the screen knew of them only from their delivery goes
// with them: drawn again from a page, they read as on a screen that just
// opened the topic.
func (r *roomState) drop(cut int, c roomCtx) {
	if cut <= 0 {
		return
	}
	r.cutCache(cut, c)
	if cut < len(r.posts) {
		if r.joins(cut, c) {
			key := r.foldKey(r.posts[cut], c)
			lo := cut - 1
			for lo > 0 && r.foldKey(r.posts[lo-1], c) == key {
				lo--
			}
			before := 0
			if lo == 0 {
				before = r.foldBefore
			}
			r.renameFold(r.posts[lo].MessageID, r.posts[cut].MessageID)
			r.foldBefore = before + cut - lo
		} else {
			r.foldBefore = 0
		}
	}
	for _, p := range r.posts[:cut] {
		id := p.MessageID
		delete(r.seen, id)
		delete(r.mcp, id)
		delete(r.own, id)
		delete(r.others, id)
		delete(r.expanded, id)
		r.bytes -= len(p.Content)
	}
	clear(r.posts[:cut]) // the backing array no longer holds them
	r.posts = r.posts[cut:]
	r.hasMore = true
}

// cutCache takes the lines of the oldest cut posts off the drawn lines;
// a fold they split is drawn again.
func (r *roomState) cutCache(cut int, c roomCtx) {
	if !r.cacheOK || r.prepended > 0 || cut >= len(r.posts) || r.cacheFrom < cut || r.joins(cut, c) ||
		(r.cacheHead >= 0 && r.cacheGroup < cut) {
		r.invalidate()
		return
	}
	id := r.posts[cut].MessageID
	k := slices.IndexFunc(r.cache, func(l roomLine) bool { return l.post == id || l.fold == id })
	if k < 0 || k > r.cacheAt {
		r.invalidate()
		return
	}
	r.cache = slices.Clone(r.cache[k:]) // the cut lines' array goes
	r.cacheFrom -= cut
	r.cacheAt -= k
	if r.cacheHead >= 0 {
		r.cacheGroup -= cut
		r.cacheHead -= k
	}
}

// keepWindow cuts rs to its window after live posts came in, keeping what
// the person is reading: the lines shown (the offset counts from the
// bottom, so the view stays still), the post cursor and a selection in
// the room. Not while a page is being read: it reads before the oldest
// post, and must join it.
func (m *model) keepWindow(rs *roomState) {
	if !rs.over() || rs.loading {
		return
	}
	c := m.roomCtx()
	cut := rs.windowCut()
	in := m.lay.Room.Inner()
	if in.Empty() {
		if rs.offset > 0 || rs.cursor != (itemKey{}) {
			return // what the person reads cannot be told: kept
		}
	} else {
		all := rs.lines(in.W, c)
		if len(all) == 0 {
			return
		}
		rs.view(in.W, in.H, c) // clamps the offset
		cut = min(cut, rs.keepAt(all[max(len(all)-rs.offset-in.H, 0)], c))
		if rs.cursor != (itemKey{}) {
			cut = min(cut, rs.keepAt(roomLine{fold: rs.cursor.fold, post: rs.cursor.post}, c))
		}
		if m.sel != nil && m.sel.room && rs == m.cur() {
			cut = min(cut, rs.keepAt(all[min(max(min(m.sel.anchor, m.sel.cur), 0), len(all)-1)], c))
		}
	}
	if cut <= 0 {
		return
	}
	before := m.roomSelLines(rs.topic)
	rs.drop(cut, c)
	if d := before - m.roomSelLines(rs.topic); d > 0 && before > 0 {
		m.sel.anchor -= d // the lines above the selection went
		m.sel.cur -= d
	}
}

// roomCtx is what drawing needs from outside the room.
type roomCtx struct {
	person string
	kinds  map[string]string // account id -> kind
	names  map[string]string // account id -> current name
	loc    *time.Location
	now    time.Time
	// att and attB read posts' blocks of attachments (attach_room.go);
	// nil: drawn as text.
	att  *attachView
	attB attachBackend
}

// isOwn reports whether the person at this screen said p: known from its
// delivery, else (an older page) by no account and the person's name.
func (r *roomState) isOwn(p wire.Post, c roomCtx) bool {
	if r.own[p.MessageID] {
		return true
	}
	if _, other := r.others[p.MessageID]; other {
		return false
	}
	return !p.FromApp && p.Account == "" && p.Speaker == c.person
}

// foldKey is the fold a post belongs to ("" when it does not fold).
func (r *roomState) foldKey(p wire.Post, c roomCtx) string {
	if p.Account != "" && (c.kinds[p.Account] == "mcp" || r.mcp[p.MessageID]) {
		return "acct:" + p.Account
	}
	if p.Account == "" && !p.FromApp && (p.Speaker == "webhook" || r.mcp[p.MessageID]) {
		return "name:" + p.Speaker
	}
	return ""
}

// lines draws every post at width w (cached).
func (r *roomState) lines(w int, c roomCtx) []roomLine {
	day := dayKey(c)
	valid := r.cacheOK && r.cacheW == w && r.cacheDay == day
	if valid && r.prepended > 0 {
		// A page of older posts: drawn alone and put before the rest,
		// unless its newest joins the fold of the post after it.
		k := r.prepended
		if k >= len(r.posts) || r.cacheFrom+k > len(r.posts) || r.joins(k, c) {
			valid = false
		} else {
			pre, _ := r.draw(nil, drawAt{head: -1}, k, w, c)
			r.cache = append(pre, r.cache...)
			r.cacheFrom += k
			r.cacheAt += len(pre)
			if r.cacheHead >= 0 {
				r.cacheGroup += k
				r.cacheHead += len(pre)
			}
		}
	}
	r.prepended = 0
	if valid && !r.appended {
		r.cacheOK = true
		return r.cache
	}
	var out []roomLine
	at := drawAt{head: -1}
	if valid && r.cacheFrom <= len(r.posts) && r.cacheAt <= len(r.cache) {
		out = r.cache[:r.cacheAt]
		at = drawAt{from: r.cacheFrom, at: r.cacheAt, group: r.cacheGroup, head: r.cacheHead}
	}
	out, at = r.draw(out, at, len(r.posts), w, c)
	r.cacheFrom, r.cacheAt, r.cacheGroup, r.cacheHead = at.from, at.at, at.group, at.head
	r.cache, r.cacheW, r.cacheOK, r.cacheDay, r.appended = out, w, true, day, false
	return out
}

// joins reports whether posts[k-1] and posts[k] fold together.
func (r *roomState) joins(k int, c roomCtx) bool {
	key := r.foldKey(r.posts[k], c)
	return key != "" && r.foldKey(r.posts[k-1], c) == key
}

// drawAt is where drawing the room again starts: from post from at line
// at; when head >= 0 that post is within an open fold that begins at post
// group, whose header is line head (its count is drawn again).
type drawAt struct{ from, at, group, head int }

// draw appends to out the lines of posts [at.from, to), which end a group
// and start one unless at continues an open fold, and says where drawing
// more at the end starts again: the last group's first post and line, or
// in an open fold its last post (so a fold that grows post by post costs
// a post each).
func (r *roomState) draw(out []roomLine, at drawAt, to, w int, c roomCtx) ([]roomLine, drawAt) {
	i := at.from
	last := drawAt{from: i, at: len(out), head: -1}
	if at.head >= 0 && at.head < len(out) && at.group <= i && i < to {
		key := r.foldKey(r.posts[at.group], c)
		j := i
		for j < to && r.foldKey(r.posts[j], c) == key {
			j++
		}
		out[at.head].text = r.foldHead(at.group, j, c)
		for ; i < j; i++ {
			last = drawAt{from: i, at: len(out), group: at.group, head: at.head}
			out = r.foldedLines(out, r.posts[i], w, c)
		}
	}
	for i < to {
		last = drawAt{from: i, at: len(out), head: -1}
		p := r.posts[i]
		key := r.foldKey(p, c)
		if key == "" {
			out = append(out, r.postLines(p, w, c)...)
			i++
			continue
		}
		j := i
		for j < to && r.foldKey(r.posts[j], c) == key {
			j++
		}
		head := len(out)
		out = append(out, roomLine{text: r.foldHead(i, j, c), fold: p.MessageID})
		if r.expandAll || r.expanded[p.MessageID] {
			for k := i; k < j; k++ {
				last = drawAt{from: k, at: len(out), group: i, head: head}
				out = r.foldedLines(out, r.posts[k], w, c)
			}
		}
		i = j
	}
	return out, last
}

// foldHead is the header of the fold of posts [i, j).
func (r *roomState) foldHead(i, j int, c roomCtx) string {
	p := r.posts[i]
	count := j - i
	if i == 0 {
		count += r.foldBefore // let go by the window, still in the fold
	}
	name := p.Speaker
	if n, ok := c.names[p.Account]; ok && n != "" {
		name = n
	}
	col := fgHex(hueColor(p.Hue, name))
	mark := "▸"
	if r.expandAll || r.expanded[p.MessageID] {
		mark = "▾"
	}
	return style(postTime(p.TS, c), "2") + " " + style(mark+" "+wire.OneLine(name)+" "+plural(count, "post"), col, "1")
}

// foldedLines appends a post's lines within an open fold.
func (r *roomState) foldedLines(out []roomLine, q wire.Post, w int, c roomCtx) []roomLine {
	for _, l := range r.postLines(q, w, c) {
		out = append(out, roomLine{text: "  " + l.text, post: l.post})
	}
	return out
}

// dayKey is the day the room is drawn on, in its zone.
func dayKey(c roomCtx) string {
	loc := c.loc
	if loc == nil {
		loc = time.Local
	}
	return c.now.In(loc).Format("2006-01-02")
}

// postTime is the post's local time: HH:MM today, MM/DD HH:MM before.
func postTime(ts string, c roomCtx) string {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return "--:--"
	}
	loc := c.loc
	if loc == nil {
		loc = time.Local
	}
	t = t.In(loc)
	n := c.now.In(loc)
	if t.Year() == n.Year() && t.YearDay() == n.YearDay() {
		return t.Format("15:04")
	}
	return t.Format("01/02 15:04")
}

// postLines draws one post: a header (time, speaker in colour, addressees)
// and the body wrapped under it. Only the person's own posts are marked
// "▶" in reverse (the room seats no one else under the person's name).
func (r *roomState) postLines(p wire.Post, w int, c roomCtx) []roomLine {
	name := wire.OneLine(p.Speaker)
	col := fgHex(hueColor(p.Hue, p.Speaker))
	var h strings.Builder
	h.WriteString(style(postTime(p.TS, c), "2"))
	h.WriteString(" ")
	switch {
	case p.FromApp:
		h.WriteString(style("ⓘ "+name, "2", "3"))
	case r.isOwn(p, c):
		h.WriteString(style("▶ "+name, col, "1", "7")) // the person's own
	default:
		h.WriteString(style(name, col, "1"))
	}
	if len(p.To) > 0 {
		to := make([]string, len(p.To))
		for i, t := range p.To {
			to[i] = wire.OneLine(t)
		}
		h.WriteString(style(" → "+strings.Join(to, ", "), col))
	}
	out := []roomLine{{text: h.String(), post: p.MessageID}}
	body := bodyLines(p, w, c)
	for _, l := range body {
		if p.FromApp {
			l = style(l, "2")
		}
		out = append(out, roomLine{text: "  " + l, post: p.MessageID})
	}
	if l := r.markLine(p.MessageID, w, c); l != "" {
		out = append(out, roomLine{text: l, post: p.MessageID})
	}
	return out
}

// view is the visible lines for a height, clamping the offset.
func (r *roomState) view(w, h int, c roomCtx) (vis []roomLine, atTop bool) {
	all := r.lines(w, c)
	maxOff := max(len(all)-h, 0)
	r.offset = min(max(r.offset, 0), maxOff)
	end := len(all) - r.offset
	start := max(end-h, 0)
	return all[start:end], r.offset == maxOff
}

func (m *model) roomPage() int {
	return max(m.lay.Room.Inner().H-1, 1)
}

// scrollRoom moves the room view for a scrolling action (from the room or
// the input line) and reports whether act was one.
func (m *model) scrollRoom(rs *roomState, act action) bool {
	switch act {
	case actUp:
		rs.offset++
	case actDown:
		rs.offset--
	case actPgUp:
		rs.offset += m.roomPage()
	case actPgDn:
		rs.offset -= m.roomPage()
	case actTop:
		rs.offset = 1 << 30
	case actBottom:
		rs.offset = 0
	default:
		return false
	}
	if rs.offset <= 0 && rs.topic == m.topic {
		delete(m.mentions, m.topic)
	}
	return true
}
