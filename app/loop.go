package app

// The loop budget (issue 36; room/loop.go counts): config.json's
// "agent_posts_per_person_post" and "agent_loop", the go-on of the person
// and the needs-you signal at the budget (kind NeedLoop, "notify"
// "agent_loop").

import (
	"pullcept/room"
	"pullcept/seat"
)

// LoopState is a topic's count of agent posts since the person's last post.
type LoopState = room.LoopState

// LoopRule is the budget and whether posts past it are held.
type LoopRule = room.LoopRule

// RoomLoop is the room event of a topic's count reaching the budget, a post
// held past it, a go-on, or the person's post ending it.
const RoomLoop = room.EventLoop

// NeedLoop: a topic's agents reached the loop budget without the person
// (its Need has no account; Name is LoopState.Text).
const NeedLoop = "agent_loop"

// loopRuleOf is the rule config.json says.
func loopRuleOf(cfg seat.Config) LoopRule {
	return LoopRule{Budget: cfg.AgentPostsPerPersonPost, Hold: cfg.AgentLoop == seat.AgentLoopHold}
}

// Loop is topic's count now.
func (a *App) Loop(topic string) LoopState { return a.engine.Loop(topic) }

// GoOn lets topic's agents go on for another budget: the posts held past
// it are typed in order, up to the next budget. ok is false when nothing
// was held.
func (a *App) GoOn(topic string) (LoopState, bool, error) { return a.engine.GoOn(topic) }

// noteLoop turns the count into the topic's needs-you signal: on at the
// budget (told once: a post held past it only updates the text kept), off
// once the person posted.
func (a *App) noteLoop(st LoopState) {
	on := st.Reached()
	a.needs.mu.Lock()
	k := seatKey{st.Topic, ""}
	_, had := a.needs.current[k]
	n := Need{Topic: st.Topic, Name: st.Text(), Why: NeedLoop, On: on}
	if on {
		a.needs.current[k] = n
	} else {
		delete(a.needs.current, k)
	}
	a.needs.mu.Unlock()
	if on != had {
		a.needChanged(n) // told, and kept in the needs-you list
	}
}
