package tui

// Delivery marks in the room pane (issue 31 point 5; app/marks.go): under
// a post typed into seats, one dim line says what became of it in each,
// e.g. "→ Lin ✓ · Lay held: waiting for your permission", cut with ….

import (
	"slices"
	"strings"

	"pullcept/app"
	"pullcept/room/wire"
)

// markSource is a backend that keeps the marks of a topic's posts (the
// app does; a screen that opens a topic reads them once, then follows
// EventDelivery).
type markSource interface {
	Deliveries(topic string) map[string][]app.Delivery
}

// loadMarks reads a topic's marks from the backend, if it keeps them.
func (r *roomState) loadMarks(b Backend) {
	src, ok := b.(markSource)
	if !ok {
		return
	}
	for _, list := range src.Deliveries(r.topic) {
		for _, d := range list {
			r.putMark(d)
		}
	}
	r.invalidate()
}

func (r *roomState) putMark(d app.Delivery) {
	per := r.marks[d.MessageID]
	if per == nil {
		per = map[string]app.Delivery{}
		r.marks[d.MessageID] = per
		r.markOrder = append(r.markOrder, d.MessageID)
		if len(r.markOrder) > app.DeliveryPosts { // as the app forgets them
			delete(r.marks, r.markOrder[0])
			r.markOrder[0] = ""
			r.markOrder = r.markOrder[1:]
		}
	}
	per[d.Account] = d
}

// setMark takes one mark. Marks change for recent posts: one within the
// last group drawn redraws from that group on, as an appended post does.
func (r *roomState) setMark(d app.Delivery) {
	r.putMark(d)
	for i := len(r.posts) - 1; i >= 0 && i >= r.cacheFrom; i-- {
		if r.posts[i].MessageID == d.MessageID {
			r.appended = true
			return
		}
	}
	r.invalidate()
}

// markWord is how one mark reads.
func markWord(d app.Delivery) string {
	switch d.Mark {
	case app.MarkReceived:
		return "✓"
	case app.MarkTyped:
		return "typed"
	case app.MarkUnknown:
		return "typed (no receipt signal)"
	case app.MarkHeld:
		return "held: " + d.Why
	case app.MarkNotReceived:
		return "✗ not received"
	}
	return string(d.Mark)
}

// markLine is the marks line of a post ("" when it has none).
func (r *roomState) markLine(id string, w int, c roomCtx) string {
	per := r.marks[id]
	if len(per) == 0 {
		return ""
	}
	type one struct{ name, text string }
	var all []one
	for acc, d := range per {
		name := acc
		if n := c.names[acc]; n != "" {
			name = n
		}
		all = append(all, one{wire.OneLine(name), wire.OneLine(markWord(d))})
	}
	slices.SortFunc(all, func(x, y one) int { return strings.Compare(x.name, y.name) })
	parts := make([]string, len(all))
	for i, o := range all {
		parts[i] = o.name + " " + o.text
	}
	return style(ellipsis("  → "+strings.Join(parts, " · "), max(w, 1)), "2")
}
