package tui

import (
	"strings"
	"testing"

	"pullcept/app"
)

// GoOn and Loop make the test backend a loopBackend (the engine counts).
func (b *testBackend) GoOn(topic string) (app.LoopState, bool, error) { return b.eng.GoOn(topic) }
func (b *testBackend) Loop(topic string) app.LoopState                { return b.eng.Loop(topic) }

// TestLoopBudgetOnTheScreen (issue 36): a topic at the loop budget is
// marked ↻ and told on the status line with the held posts and the go-on
// key; the needs-you signal rings as "notify" "agent_loop" says; the
// person's post (count 0) ends it; prefix g says when nothing is held.
func TestLoopBudgetOnTheScreen(t *testing.T) {
	hs := newHarness(t, nil, 120, 30)
	topic := hs.m.topic
	st := app.LoopState{Topic: topic, Count: 4, Budget: 3, Limit: 3, Held: 1, Hold: true, Speakers: []string{"Lin", "Lay"}}
	hs.m.Update(roomEventMsg{app.RoomEvent{Kind: app.RoomLoop, Topic: topic, Loop: st}})
	if !hs.m.loops[topic].Reached() {
		t.Fatal("the topic is not marked")
	}
	if s := hs.screen(); !strings.Contains(s, "Lin and Lay have exchanged 4 posts without you") || !strings.Contains(s, "1 held; ctrl+b g lets them go on") {
		t.Fatalf("status line:\n%s", s)
	}
	hs.m.notify.AgentLoop = "bell"
	_, cmd := hs.m.Update(appEventMsg{app.Event{Kind: app.EventNeedsYou, Need: app.Need{Topic: topic, Name: st.Text(), Why: app.NeedLoop, On: true}}})
	if got := rawOf(cmd); got != "\a" {
		t.Fatalf("rang %q, want a bell", got)
	}
	if len(hs.m.needs[topic]) != 0 {
		t.Fatal("the topic's signal was kept as a seat's")
	}
	hs.m.Update(roomEventMsg{app.RoomEvent{Kind: app.RoomLoop, Topic: topic, Loop: app.LoopState{Topic: topic, Budget: 3, Limit: 3}}})
	if _, ok := hs.m.loops[topic]; ok {
		t.Fatal("the mark outlived the person's post")
	}
	hs.prefix('g', "g")
	if !strings.Contains(hs.m.status, "nothing held past the loop budget") {
		t.Fatalf("prefix g said %q", hs.m.status)
	}
}

// loopStub is the test backend with a topic at the budget.
type loopStub struct {
	*testBackend
	st app.LoopState
}

func (s loopStub) Loop(string) app.LoopState { return s.st }

// TestLoopReadOnShow: a topic shown reads its count from the run (a
// screen attached after the budget was reached marks it too) and the
// status line says it when it has nothing else.
func TestLoopReadOnShow(t *testing.T) {
	hs := newHarness(t, nil, 120, 30)
	topic := hs.m.topic
	hs.m.app = loopStub{hs.m.app.(*testBackend), app.LoopState{Topic: topic, Count: 12, Budget: 12, Limit: 12, Speakers: []string{"Lin", "Lay"}}}
	hs.m.show(topic)
	hs.m.status = ""
	if !hs.m.loops[topic].Reached() {
		t.Fatal("not read on show")
	}
	if s := hs.screen(); !strings.Contains(s, "Lin and Lay have exchanged 12 posts without you") {
		t.Fatalf("status line:\n%s", s)
	}
}
