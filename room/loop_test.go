package room

import (
	"slices"
	"sync"
	"testing"

	"pullcept/room/wire"
)

// loopTypist records deliveries and the loop releases, in one order.
type loopTypist struct {
	typist
	mu       sync.Mutex
	releases []int
	order    []string // "post <id>" / "release <upTo>"
}

func (t *loopTypist) Type(d Delivery) {
	t.typist.Type(d)
	t.mu.Lock()
	t.order = append(t.order, "post "+d.Post.MessageID)
	t.mu.Unlock()
}

func (t *loopTypist) ReleaseLoop(topic string, upTo int) {
	t.mu.Lock()
	t.releases = append(t.releases, upTo)
	t.order = append(t.order, "release")
	t.mu.Unlock()
}

func loopFixture(t *testing.T, rule LoopRule) (*fixture, *loopTypist) {
	t.Helper()
	f := newFixture(t)
	ty := &loopTypist{}
	f.e.cfg.Typer = ty
	f.e.cfg.Loop = func() LoopRule { return rule }
	return f, ty
}

// TestLoopCountsAgentPostsSinceThePersons (issue 36, point 1): agent posts
// count, room-wide and to other agents; a post to the person alone, an mcp
// or app post does not; only the person's post resets.
func TestLoopCountsAgentPostsSinceThePersons(t *testing.T) {
	t.Parallel()
	f, ty := loopFixture(t, LoopRule{Budget: 3})
	sub := f.e.Subscribe()
	defer sub.Close()
	lin := f.join(t, "Lin", "acc-claude")
	lay := f.join(t, "Lay", "acc-codex")
	mcp := f.join(t, "hook", "acc-mcp")
	last := ""
	say := func(id ConnID, content string, to ...string) Outcome {
		o, err := f.e.PostFromConn(id, wire.PostFrame{Type: wire.TypePost, Content: content, To: to, LastSeen: last})
		if err != nil || !o.Delivered {
			t.Fatalf("post %q: %+v %v", content, o, err)
		}
		last = o.Post.MessageID
		return o
	}
	say(lin, "one")
	say(lay, "to you", "Master") // to the person alone: not counted
	say(mcp, "unknown role")     // role unknown: not counted
	if o, err := f.e.AppNotice(topicA, "notice"); err != nil {
		t.Fatal(err)
	} else {
		last = o.Post.MessageID
	}
	say(lay, "two", "Lin")
	if st := f.e.Loop(topicA); st.Count != 2 || st.Reached() {
		t.Fatalf("count %+v, want 2", st)
	}
	say(lin, "three", "Lay", "Master") // to the person and an agent: counted
	st := f.e.Loop(topicA)
	if st.Count != 3 || !st.Reached() || st.Text() != "Lin and Lay have exchanged 3 posts without you" {
		t.Fatalf("at the budget: %+v %q", st, st.Text())
	}
	var ev Event
	for ev.Kind != EventLoop {
		ev = nextEvent(t, sub)
	}
	if ev.Loop.Count != 3 || ev.Topic != topicA {
		t.Fatalf("loop event %+v", ev)
	}
	// Tell only: the fourth is typed as usual.
	if o := say(lay, "four"); o.LoopHeld != 0 {
		t.Fatalf("held in tell mode: %+v", o)
	}
	if d := ty.typist.all(); d[len(d)-1].LoopSeq != 0 {
		t.Fatalf("delivery held in tell mode: %+v", d[len(d)-1])
	}
	o, err := f.e.PostAsPerson(topicA, "stop", last)
	if err != nil || !o.Delivered {
		t.Fatalf("person: %+v %v", o, err)
	}
	if st := f.e.Loop(topicA); st.Count != 0 || st.Reached() {
		t.Fatalf("after the person's post: %+v", st)
	}
}

// TestLoopHoldsPastTheBudget (issue 36, point 3): with Hold, posts past the
// budget are delivered and logged but handed to the typist held, in order;
// go-on releases another budget's worth; the person's post releases all,
// before its own delivery.
func TestLoopHoldsPastTheBudget(t *testing.T) {
	t.Parallel()
	f, ty := loopFixture(t, LoopRule{Budget: 2, Hold: true})
	lin := f.join(t, "Lin", "acc-claude")
	lay := f.join(t, "Lay", "acc-codex")
	last := ""
	var seqs []int
	for i := range 5 {
		id := lin
		if i%2 == 1 {
			id = lay
		}
		o := f.say(t, id, "post", last)
		last = o.Post.MessageID
		d := ty.typist.all()
		seqs = append(seqs, d[len(d)-1].LoopSeq)
		if want := map[bool]int{true: 2}[i >= 2]; o.LoopHeld != want {
			t.Fatalf("post %d: LoopHeld %d", i, o.LoopHeld)
		}
	}
	if !slices.Equal(seqs, []int{0, 0, 3, 4, 5}) {
		t.Fatalf("held ordinals %v", seqs)
	}
	if n := len(f.log.ids(topicA)); n != 5 {
		t.Fatalf("%d posts logged, want 5", n)
	}
	st, ok, err := f.e.GoOn(topicA)
	if err != nil || !ok || st.Limit != 4 || st.Held != 1 || !slices.Equal(ty.releases, []int{4}) {
		t.Fatalf("go on: %+v %v %v releases %v", st, ok, err, ty.releases)
	}
	o, err := f.e.PostAsPerson(topicA, "enough", last)
	if err != nil || !o.Delivered {
		t.Fatalf("person: %+v %v", o, err)
	}
	if len(ty.releases) != 2 || ty.releases[1] != releaseAll || ty.order[len(ty.order)-2] != "release" || ty.order[len(ty.order)-1] != "post "+o.Post.MessageID {
		t.Fatalf("the person's post must release before its own delivery: %v %v", ty.releases, ty.order)
	}
	if _, ok, _ := f.e.GoOn(topicA); ok {
		t.Fatal("go on with nothing held")
	}
}
