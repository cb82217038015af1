package app

import (
	"testing"
)

// TestLoopNeedToldOnce (issue 36): the topic's needs-you signal agent_loop
// is published when the budget is reached and when the person's post ends
// it, not again for each post held past the budget.
func TestLoopNeedToldOnce(t *testing.T) {
	t.Parallel()
	a := newApp(t, nil, nil)
	sub := a.Subscribe()
	defer sub.Close()
	at := func(count, held int) LoopState {
		return LoopState{Topic: "t", Count: count, Budget: 3, Limit: 3, Held: held, Hold: true, Speakers: []string{"Lin", "Lay"}}
	}
	a.noteLoop(at(3, 0))
	a.noteLoop(at(4, 1))
	a.noteLoop(at(5, 2))
	a.noteLoop(LoopState{Topic: "t", Budget: 3, Limit: 3})
	var got []Need
	for len(got) < 2 {
		if ev := next(t, sub); ev.Kind == EventNeedsYou {
			got = append(got, ev.Need)
		}
	}
	if !got[0].On || got[0].Why != NeedLoop || got[0].Name != "Lin and Lay have exchanged 3 posts without you" || got[1].On {
		t.Fatalf("needs %+v: want on at the budget, then off", got)
	}
	if a.NeedsAny()["t"] {
		t.Fatal("the signal outlived the person's post")
	}
}
