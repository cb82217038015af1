package seat

// Held posts: one model (issue 31, point 5; docs/decisions.md "One model
// of held posts"). A terminal types its queued posts in the order they
// arrived, once each, when no hold reason applies (spec #346
// 「待ちが終わってから届いた順に一度だけ打つ」). Every reason is a HoldKind
// here: a later hold (a sleeping seat, a loop budget, a queue bound) is a
// new kind with its place in the precedence and its release, not a new
// mechanism. The seat's Activity reports the CLI's reasons, the typist the
// terminal's (unsent keys); the typist shows the one that comes first.

// HoldKind is one kind of reason to hold a seat's posts.
type HoldKind string

const (
	// HoldByLimit: the CLI stopped at its usage limit.
	HoldByLimit HoldKind = "limit"
	// HoldByPrompt: a permission prompt, a question or an input dialog
	// waits for the person.
	HoldByPrompt HoldKind = "prompt"
	// HoldByTool: a tool runs, an answered prompt's tool or turn goes on,
	// or an interrupted turn is being wound down.
	HoldByTool HoldKind = "tool"
	// HoldByUnsent: the person has unsent keys in the seat's pane.
	HoldByUnsent HoldKind = "unsent"
	// HoldByBacklog: the seat's program does not take its input (a post's
	// write has waited StuckAfter), or its queue is at its bound and takes
	// no more posts (typist.go, "A seat's queue is bounded").
	HoldByBacklog HoldKind = "backlog"
	// HoldByStarting: the seat has not joined the room yet. The room gives
	// no past post to a later joiner, so this hold lives in the screen's
	// input line (docs/decisions.md "A post to a seat that is still
	// starting"); it is named here so every hold has one place.
	HoldByStarting HoldKind = "starting"
	// HoldByLoop: with config.json's "agent_loop": "hold", an agent post
	// past the budget of agent posts per post of the person (issue 36),
	// and every post after it in the seat's queue. The person's go-on key
	// lets another budget be typed; a post of theirs types them all, before
	// itself. Ordered after the seat's own reasons: when they end, this is
	// what still holds.
	HoldByLoop HoldKind = "loop"
	// HoldByWaking: a sleeping seat was woken by a post addressed to it
	// (app/hibernate.go): the post waits until the resumed seat has joined
	// the room, then is typed once (docs/decisions.md "Sleeping seats").
	HoldByWaking HoldKind = "waking"
)

// holdOrder is the precedence: when several reasons apply, the first of
// them is the one shown. A reason further up is the one the person must
// act on first (or the one no key of theirs can end).
// A backlog comes after the reasons that stop the head: once they end the
// queue drains; it is the reason only when the program itself does not read.
var holdOrder = []HoldKind{HoldByLimit, HoldByPrompt, HoldByTool, HoldByUnsent, HoldByBacklog, HoldByStarting,
	HoldByWaking, // its join ends it; no key of the person's does
	HoldByLoop}

// rank is k's place in holdOrder (len for an unknown kind).
func (k HoldKind) rank() int {
	for i, x := range holdOrder {
		if x == k {
			return i
		}
	}
	return len(holdOrder)
}

// ReleaseBy says what the person's release (`u` in the participants) does
// for a kind.
type ReleaseBy int

const (
	// ReleaseEnds: the release ends the hold (an answered prompt, a tool,
	// a settle, a usage limit ended early).
	ReleaseEnds ReleaseBy = iota
	// ReleaseRefused: nothing may be typed; the person answers in the
	// pane (a post's letters would answer the prompt).
	ReleaseRefused
	// ReleaseAfterClear: the release says what it believes is unsent and,
	// only on the person's second word, clears it with the kind's clear key
	// and types the held posts.
	ReleaseAfterClear
	// ReleaseNothing: the seat itself holds nothing (starting: the screen
	// sends on the join, or at once on a second Enter).
	ReleaseNothing
	// ReleaseCannot: no word of the person's makes the program read its
	// input (backlog); the release says so and drops nothing.
	ReleaseCannot
	// ReleaseByTopic: the hold is the topic's, for every seat (the loop
	// budget); the release names the topic's go-on key, or a post.
	ReleaseByTopic
)

// Release is what the person's release does for k.
func (k HoldKind) Release() ReleaseBy {
	switch k {
	case HoldByPrompt:
		return ReleaseRefused
	case HoldByUnsent:
		return ReleaseAfterClear
	case HoldByStarting:
		return ReleaseNothing
	case HoldByBacklog, HoldByWaking:
		return ReleaseCannot
	case HoldByLoop:
		return ReleaseByTopic
	}
	return ReleaseEnds
}

// HoldReason is why a terminal holds its posts now: a kind and the text
// shown for it (the zero value: nothing holds).
type HoldReason struct {
	Kind HoldKind
	Text string
}

// Held reports whether r holds.
func (r HoldReason) Held() bool { return r.Kind != "" }

// firstHold is the reason shown when a and b both may apply.
func firstHold(a, b HoldReason) HoldReason {
	switch {
	case !a.Held():
		return b
	case !b.Held():
		return a
	case b.Kind.rank() < a.Kind.rank():
		return b
	}
	return a
}

// HoldLoop is why a terminal holds posts past the loop budget.
const HoldLoop = "agent posts past the loop budget (go on, or post)"

// unsentHold is the unsent-keys reason.
var unsentHold = HoldReason{HoldByUnsent, HoldUnsent}
