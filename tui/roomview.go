package tui

// The room pane: one topic's posts, folded MCP notices, paging back.
//
// Spec 003 "床": a rejection's returned posts are drawn at once, duplicates
// dropped by message_id, and the watermark moves to the newest returned.
// "webhook の通知": consecutive posts of one mcp account fold into
// "<name> N posts". Post content only ever reaches the screen through
// wire.Visible.

import (
	"strconv"
	"strings"
	"time"

	"pullcept/app"
	"pullcept/room/wire"
)

// roomState is what the screen keeps of one topic's room.
type roomState struct {
	topic string
	posts []wire.Post // oldest first
	seen  map[string]bool
	mcp   map[string]bool // ids delivered live with role mcp
	// own are the ids the person at this screen said (the event's Own, or
	// the answer to the person's post); others are the other ids delivered
	// live. A post known neither way (an older page) is the person's when it
	// has no account and the person's name, which the room lets no
	// connection take (room.ErrPersonsName).
	own    map[string]bool
	others map[string]bool
	roster []app.Participant
	// marks are the posts' delivery marks: message id -> account ->
	// mark (marks.go).
	marks map[string]map[string]app.Delivery

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
		marks: map[string]map[string]app.Delivery{}}
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
		}
	}
	r.posts = append(add, r.posts...)
	if r.watermark == "" && len(r.posts) > 0 {
		r.watermark = r.posts[len(r.posts)-1].MessageID
	}
	r.hasMore = hasMore
	r.loaded = true
	r.invalidate()
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
	if valid && !r.appended {
		return r.cache
	}
	var out []roomLine
	start := 0
	if valid && r.cacheFrom <= len(r.posts) && r.cacheAt <= len(r.cache) {
		out, start = r.cache[:r.cacheAt], r.cacheFrom
	}
	for i := start; i < len(r.posts); {
		r.cacheFrom, r.cacheAt = i, len(out)
		p := r.posts[i]
		key := r.foldKey(p, c)
		if key == "" {
			out = append(out, r.postLines(p, w, c)...)
			i++
			continue
		}
		j := i
		for j < len(r.posts) && r.foldKey(r.posts[j], c) == key {
			j++
		}
		id := p.MessageID
		open := r.expandAll || r.expanded[id]
		name := p.Speaker
		if n, ok := c.names[p.Account]; ok && n != "" {
			name = n
		}
		col := fgHex(hueColor(p.Hue, name))
		mark := "▸"
		if open {
			mark = "▾"
		}
		head := style(postTime(p.TS, c), "2") + " " + style(mark+" "+wire.OneLine(name)+" "+strconv.Itoa(j-i)+" posts", col, "1")
		out = append(out, roomLine{text: head, fold: id})
		if open {
			for _, q := range r.posts[i:j] {
				for _, l := range r.postLines(q, w, c) {
					out = append(out, roomLine{text: "  " + l.text, post: l.post})
				}
			}
		}
		i = j
	}
	r.cache, r.cacheW, r.cacheOK, r.cacheDay, r.appended = out, w, true, day, false
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
