package tui

// The room's post cursor: with the room focused, one post (or a closed
// fold's header) is selected, moved post by post with ↑/↓ and k/j or a
// click. selectedPost is the one place the actions on it (copying it,
// opening a fold, and later a post's attachments or a notice) read it.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"pullcept/room/wire"
)

// itemKey names one item of the room: a fold header (fold set) or a post
// (post set). The zero key is the newest item, whatever it is: a cursor
// on the newest follows the posts that come in, as a log follower does.
type itemKey struct{ fold, post string }

func (l roomLine) key() itemKey { return itemKey{fold: l.fold, post: l.post} }

// roomItem is one item's lines in the room's drawn lines.
type roomItem struct {
	key         itemKey
	first, last int
}

// roomItems splits the drawn lines into items.
func roomItems(all []roomLine) []roomItem {
	var out []roomItem
	for i, l := range all {
		k := l.key()
		if n := len(out); n > 0 && out[n-1].key == k && out[n-1].last == i-1 {
			out[n-1].last = i
			continue
		}
		out = append(out, roomItem{key: k, first: i, last: i})
	}
	return out
}

// postSel is what the post cursor is on: a post, or a fold's header (fold
// is its key, posts the fold's posts).
type postSel struct {
	fold  string
	posts []wire.Post
	first int // its first drawn line
	last  int
}

// cursorAt is the index in items of the room's post cursor: the newest
// for the zero key; a post a closed fold hides is found as its fold.
func (r *roomState) cursorAt(items []roomItem, c roomCtx) int {
	if len(items) == 0 {
		return -1
	}
	k := r.cursor
	if k == (itemKey{}) {
		return len(items) - 1
	}
	find := func(k itemKey) int {
		for i := len(items) - 1; i >= 0; i-- {
			if items[i].key == k {
				return i
			}
		}
		return -1
	}
	if i := find(k); i >= 0 {
		return i
	}
	if k.post != "" {
		if lo, _, ok := r.group(k.post, c); ok {
			if i := find(itemKey{fold: r.posts[lo].MessageID}); i >= 0 {
				return i
			}
		}
	}
	if k.fold != "" {
		if i := find(itemKey{post: k.fold}); i >= 0 {
			return i // the fold is gone: its first post
		}
	}
	return len(items) - 1
}

// group finds post id and the run of posts folded with it: [lo, hi).
// A post that does not fold is a run of one.
func (r *roomState) group(id string, c roomCtx) (lo, hi int, ok bool) {
	at := -1
	for i := len(r.posts) - 1; i >= 0; i-- {
		if r.posts[i].MessageID == id {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, 0, false
	}
	key := r.foldKey(r.posts[at], c)
	lo, hi = at, at+1
	if key == "" {
		return lo, hi, true
	}
	for lo > 0 && r.foldKey(r.posts[lo-1], c) == key {
		lo--
	}
	for hi < len(r.posts) && r.foldKey(r.posts[hi], c) == key {
		hi++
	}
	return lo, hi, true
}

// roomItemsNow are the current room's lines, items and cursor index.
func (m *model) roomItemsNow() ([]roomLine, []roomItem, int) {
	rs := m.cur()
	all, _ := m.roomLines()
	if rs == nil || len(all) == 0 {
		return nil, nil, -1
	}
	items := roomItems(all)
	return all, items, rs.cursorAt(items, m.roomCtx())
}

// selectedPost is what the room's post cursor is on; false when the room
// has nothing drawn.
func (m *model) selectedPost() (postSel, bool) {
	rs := m.cur()
	_, items, i := m.roomItemsNow()
	if i < 0 {
		return postSel{}, false
	}
	it := items[i]
	s := postSel{fold: it.key.fold, first: it.first, last: it.last}
	id := it.key.post
	if id == "" {
		id = it.key.fold
	}
	lo, hi, ok := rs.group(id, m.roomCtx())
	if !ok {
		return postSel{}, false
	}
	if s.fold == "" {
		lo += indexOf(rs.posts[lo:hi], id)
		hi = lo + 1
	}
	s.posts = rs.posts[lo:hi]
	return s, true
}

func indexOf(ps []wire.Post, id string) int {
	for i, p := range ps {
		if p.MessageID == id {
			return i
		}
	}
	return 0
}

// setCursor puts the cursor on items[i] (the newest: the zero key, which
// follows new posts) and scrolls the view to show it.
func (m *model) setCursor(items []roomItem, i int) {
	rs := m.cur()
	if rs == nil || len(items) == 0 {
		return
	}
	i = min(max(i, 0), len(items)-1)
	if i == len(items)-1 {
		rs.cursor = itemKey{}
	} else {
		rs.cursor = items[i].key
	}
	m.showItem(items[i])
}

// showItem scrolls the room the least that shows it (its first line when
// it is taller than the view).
func (m *model) showItem(it roomItem) {
	rs := m.cur()
	all, _ := m.roomLines()
	h := m.lay.Room.Inner().H
	n := len(all)
	if end := n - rs.offset; it.last >= end {
		rs.offset = n - 1 - it.last
	}
	if start := max(n-rs.offset-h, 0); it.first < start {
		rs.offset = n - it.first - h
	}
	rs.offset = max(rs.offset, 0)
}

// cursorIntoView moves the cursor onto the view after it scrolled: to the
// nearest item shown.
func (m *model) cursorIntoView() {
	rs := m.cur()
	all, start := m.roomLines()
	if rs == nil || len(all) == 0 {
		return
	}
	end := min(start+m.lay.Room.Inner().H, len(all))
	items := roomItems(all)
	i := rs.cursorAt(items, m.roomCtx())
	switch {
	case items[i].last < start:
		for i < len(items)-1 && items[i].last < start {
			i++
		}
	case items[i].first >= end:
		for i > 0 && items[i].first >= end {
			i--
		}
	default:
		return
	}
	if i == len(items)-1 {
		rs.cursor = itemKey{}
	} else {
		rs.cursor = items[i].key
	}
}

// enterRoom starts the cursor at the newest post as the room gets focus.
func (m *model) enterRoom() {
	rs := m.cur()
	if rs == nil {
		return
	}
	rs.cursor = itemKey{}
	if _, items, i := m.roomItemsNow(); i >= 0 {
		m.showItem(items[i])
	}
}

// cursorKey carries out a moving action on the post cursor; false when
// act is not one.
func (m *model) cursorKey(rs *roomState, act action) bool {
	switch act {
	case actUp, actDown:
		_, items, i := m.roomItemsNow()
		if i < 0 {
			return true
		}
		if act == actUp {
			i--
		} else {
			i++
		}
		m.setCursor(items, i)
	case actPgUp, actPgDn:
		m.scrollRoom(rs, act)
		m.cursorIntoView()
	case actTop:
		m.scrollRoom(rs, act)
		if _, items, _ := m.roomItemsNow(); len(items) > 0 {
			m.setCursor(items, 0)
		}
	case actBottom:
		m.scrollRoom(rs, act)
		rs.cursor = itemKey{}
	default:
		return false
	}
	if rs.offset <= 0 && rs.topic == m.topic {
		delete(m.mentions, m.topic)
	}
	return true
}

// toggleFold opens or closes the fold whose key is id; the cursor, on a
// post the fold now hides, goes to its header.
func (m *model) toggleFold(rs *roomState, id string) {
	rs.expanded[id] = !rs.expanded[id]
	rs.invalidate()
	if rs != m.cur() {
		return
	}
	if _, items, i := m.roomItemsNow(); i >= 0 {
		if rs.cursor != (itemKey{}) {
			rs.cursor = items[i].key
		}
		m.showItem(items[i])
	}
}

// openSelected is enter on the selected item: a fold opens or closes.
func (m *model) openSelected() {
	s, ok := m.selectedPost()
	if !ok {
		return
	}
	if s.fold == "" {
		m.status = "enter opens a fold; y copies this post"
		return
	}
	m.toggleFold(m.cur(), s.fold)
}

// postText is a post as copied: its speaker line (time, name, addressees)
// and its body, plain.
func (r *roomState) postText(p wire.Post, c roomCtx) string {
	q := p
	q.Content = "" // the header only: the body is copied as it was written
	head := plainLine(r.postLines(q, 1, c)[0].text)
	return head + "\n" + wire.Visible(p.Content)
}

// copyPost puts the selected post (a fold: its posts) on the clipboard.
func (m *model) copyPost() tea.Cmd {
	s, ok := m.selectedPost()
	if !ok {
		m.status = "nothing in the room to copy"
		return nil
	}
	rs, c := m.cur(), m.roomCtx()
	parts := make([]string, len(s.posts))
	for i, p := range s.posts {
		parts[i] = rs.postText(p, c)
	}
	what := "the post"
	if len(parts) != 1 {
		what = fmt.Sprintf("%d posts", len(parts))
	}
	return m.clip(strings.Join(parts, "\n"), what)
}

// cursorLine is the drawn line (an index in the room's lines, looked for
// in [start, end)) that marks the cursor: its item's first; -1 when none
// is shown there.
func (m *model) cursorLine(all []roomLine, start, end int) int {
	rs := m.cur()
	if rs == nil || len(all) == 0 || m.focus != focusRoom || (m.sel != nil && m.sel.room) {
		return -1
	}
	k := rs.cursor
	if k == (itemKey{}) {
		k = all[len(all)-1].key()
	}
	for i := min(end, len(all)) - 1; i >= max(start, 0); i-- {
		if all[i].key() == k && (i == 0 || all[i-1].key() != k) {
			return i
		}
	}
	return -1
}
