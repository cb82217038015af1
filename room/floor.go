package room

// The floor (spec 003 "床（同時発話の順序付け）"): a sender declares
// last_seen, the newest post it really saw. If any post from another
// connection arrived after that post and after the sender took its seat, the
// post is not delivered and those posts are returned in order. An id the
// floor does not know (never seen, or evicted from the 512-post window)
// counts as nothing seen. Judging and appending happen under the room's one
// lock, so whoever passes first is already on the floor the next one reads.

import "pullcept/room/wire"

// FloorWindow is how many recent posts the floor keeps.
const FloorWindow = 512

type floorEntry struct {
	seq    uint64
	post   wire.Post
	origin ConnID
}

// floor is a ring of the last FloorWindow posts with their sequence numbers.
type floor struct {
	entries []floorEntry // oldest first, at most FloorWindow
	byID    map[string]uint64
	last    uint64 // seq of the newest post, 0 when none
	// prior: the ids of the topic's posts logged before this run, oldest
	// first (seedPrior), only for refusing a reused message_id across a
	// restart: with entries they are the topic's last FloorWindow posts.
	prior    []string
	priorSet map[string]bool
}

func newFloor() *floor { return &floor{byID: map[string]uint64{}} }

// position is the seq of id, or 0 when the floor does not hold it.
func (f *floor) position(id string) uint64 {
	if id == "" {
		return 0
	}
	return f.byID[id]
}

// has reports whether id is one of the topic's last FloorWindow posts: on
// the floor, or logged before this run.
func (f *floor) has(id string) bool { _, ok := f.byID[id]; return ok || f.priorSet[id] }

// seedPrior takes the ids of the topic's last posts in the log, oldest
// first, read with the room unlocked: those the floor took meanwhile are
// its own, and only as many as the window has room for are kept.
func (f *floor) seedPrior(logged []string) {
	var older []string
	for _, id := range logged {
		if _, ok := f.byID[id]; !ok && id != "" {
			older = append(older, id)
		}
	}
	older = older[max(0, len(older)-(FloorWindow-len(f.entries))):]
	f.prior = older
	f.priorSet = make(map[string]bool, len(older))
	for _, id := range older {
		f.priorSet[id] = true
	}
}

// missed lists the posts from other connections after both lastSeen and the
// seat's position.
func (f *floor) missed(lastSeen string, since uint64, self ConnID) []wire.Post {
	from := f.position(lastSeen)
	if since > from {
		from = since
	}
	var out []wire.Post
	for _, e := range f.entries {
		if e.seq > from && e.origin != self {
			out = append(out, e.post)
		}
	}
	return out
}

// add puts a delivered post on the floor, evicting the oldest past the window.
func (f *floor) add(p wire.Post, origin ConnID) {
	f.last++
	if len(f.entries) == FloorWindow {
		delete(f.byID, f.entries[0].post.MessageID)
		copy(f.entries, f.entries[1:])
		f.entries = f.entries[:len(f.entries)-1]
	}
	f.entries = append(f.entries, floorEntry{seq: f.last, post: p, origin: origin})
	f.byID[p.MessageID] = f.last
	if len(f.prior) > 0 && len(f.entries)+len(f.prior) > FloorWindow {
		delete(f.priorSet, f.prior[0])
		f.prior = f.prior[1:]
	}
}
