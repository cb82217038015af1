package room

// The loop budget (issue 36): per topic, the posts of agents since the
// person's last post there. The room counts and never judges content
// (spec 003 床 「部屋は内容を判定しない」): a post counts by its door and
// role alone. At the budget the person is told; with Hold, the agent posts
// past it are delivered as usual — floor, log, room-message — but held in
// every terminal until the person posts or lets them go on
// (docs/decisions.md "Agents that talk in circles").

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"pullcept/room/wire"
)

// LoopRule is config.json's "agent_posts_per_person_post" and
// "agent_loop" as the room applies them.
type LoopRule struct {
	// Budget is how many agent posts may follow a post of the person
	// before the person is told (0: nothing is counted).
	Budget int
	// Hold: agent posts past the budget are held in every terminal.
	Hold bool
}

// LoopState is a topic's count as the person is shown it.
type LoopState struct {
	Topic string
	// Count is the agent posts since the person's last post in Topic.
	Count int
	// Budget is the rule's; Limit the count up to which posts are typed
	// (the budget, plus one budget for each go-on of the person).
	Budget, Limit int
	// Held is how many of those posts the terminals hold (Hold only).
	Held int
	Hold bool
	// Speakers are the agents who posted them, first post first.
	Speakers []string
}

// Reached reports whether the count is at or past what is typed.
func (s LoopState) Reached() bool { return s.Budget > 0 && s.Count >= s.Limit }

// Text is the sentence that tells the person: "Lin and Lay have exchanged
// 12 posts without you".
func (s LoopState) Text() string {
	n := strconv.Itoa(s.Count) + " posts"
	if s.Count == 1 {
		n = "1 post"
	}
	switch len(s.Speakers) {
	case 0:
		return "agents have made " + n + " without you"
	case 1:
		return s.Speakers[0] + " has made " + n + " without you"
	}
	last := len(s.Speakers) - 1
	return strings.Join(s.Speakers[:last], ", ") + " and " + s.Speakers[last] + " have exchanged " + n + " without you"
}

// LoopReleaser is a Typer that holds posts by the loop budget: it types,
// in order, the posts of topic it holds whose ordinal is at most upTo.
// The room calls it under the room's lock, so no later post overtakes.
type LoopReleaser interface {
	ReleaseLoop(topic string, upTo int)
}

// agentRoles are the roles of agents' posts (seats of kinds claude_code,
// codex, cli): mcp servers and the app's notices do not count.
var agentRoles = map[string]bool{"claude_code": true, "codex": true, "cli": true}

// loopCount is a room's count (under the room's lock). It starts afresh
// with each run: nothing of it is logged.
type loopCount struct {
	count, extra, held int
	speakers           []string
}

func (l *loopCount) state(topic string, rule LoopRule) LoopState {
	return LoopState{Topic: topic, Count: l.count, Budget: rule.Budget, Limit: rule.Budget + l.extra, Held: l.held, Hold: rule.Hold,
		Speakers: append([]string(nil), l.speakers...)}
}

func (e *Engine) loopRule() LoopRule {
	if e.cfg.Loop == nil {
		return LoopRule{}
	}
	r := e.cfg.Loop()
	if r.Budget < 0 {
		r.Budget = 0
	}
	return r
}

// countLoop counts post p (under r.mu, before it is handed to the typist)
// and says how the typist treats it: seq > 0 holds it as that ordinal. A
// post of the person first releases every held post of the topic. The
// state is published when the person must see it.
func (e *Engine) countLoop(r *Room, src source, role string, p wire.Post, person string) (seq int) {
	rule := e.loopRule()
	l := &r.loop
	switch {
	case src == fromPerson:
		told := l.count > 0 && l.count >= rule.Budget+l.extra || l.held > 0
		if l.held > 0 {
			// Typed before the person's post, queued after them: each
			// seat's order stays the room's (spec 003 発言は端末へ入る).
			if lr, ok := e.cfg.Typer.(LoopReleaser); ok {
				lr.ReleaseLoop(r.topic, releaseAll)
			}
		}
		*l = loopCount{}
		if told {
			e.broker.publish(Event{Kind: EventLoop, Topic: r.topic, Loop: l.state(r.topic, rule)})
		}
		return 0
	case src != fromSocket || !agentRoles[role] || rule.Budget == 0:
		return 0
	case len(p.To) > 0 && !slices.ContainsFunc(p.To, func(n string) bool { return n != person }):
		return 0 // addressed to the person alone
	}
	l.count++
	if !slices.Contains(l.speakers, p.Speaker) {
		l.speakers = append(l.speakers, p.Speaker)
	}
	limit := rule.Budget + l.extra
	if rule.Hold && l.count > limit {
		l.held++
		seq = l.count
	}
	if l.count == limit || seq > 0 {
		e.broker.publish(Event{Kind: EventLoop, Topic: r.topic, Loop: l.state(r.topic, rule)})
	}
	return seq
}

// GoOn lets the agents of topic go on for another budget: the held posts
// up to it are typed, in order (the person's go-on key). ok is false when
// nothing was held.
func (e *Engine) GoOn(topic string) (LoopState, bool, error) {
	r, ok := e.Room(topic)
	if !ok {
		return LoopState{}, false, ErrNoRoom
	}
	rule := e.loopRule()
	r.mu.Lock()
	defer r.mu.Unlock()
	l := &r.loop
	if l.held == 0 {
		return l.state(topic, rule), false, nil
	}
	l.extra += rule.Budget
	limit := rule.Budget + l.extra
	l.held = max(l.count-limit, 0)
	if lr, ok := e.cfg.Typer.(LoopReleaser); ok {
		lr.ReleaseLoop(topic, limit)
	}
	st := l.state(topic, rule)
	e.broker.publish(Event{Kind: EventLoop, Topic: topic, Loop: st})
	return st, true, nil
}

// Loop is topic's count now.
func (e *Engine) Loop(topic string) LoopState {
	r, ok := e.Room(topic)
	rule := e.loopRule()
	if !ok {
		return LoopState{Topic: topic, Budget: rule.Budget, Limit: rule.Budget, Hold: rule.Hold}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.loop.state(topic, rule)
}

// releaseAll is the ordinal that releases every held post.
const releaseAll = math.MaxInt
