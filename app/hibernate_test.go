package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"pullcept/dirs"
	"pullcept/room/wire"
	"pullcept/seat"
)

// sleepyAccount is a cli account pullcept can resume natively: it mints
// the session id and has a resume line.
var sleepyAccount = seat.Account{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "bot --session {session_id}", Resume: "bot --resume {session_id}"}

// newSleepyApp is an app whose seats sleep after hibernate idle, running
// cat in a real PTY for each launch.
func newSleepyApp(t *testing.T, hibernate time.Duration) (*App, *fakeStarter) {
	t.Helper()
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	st := &fakeStarter{argv: []string{"cat"}}
	a, err := Start(context.Background(), Options{Dirs: d, PersonName: "Master", Accounts: []seat.Account{sleepyAccount}, ExePath: "/bin/false",
		StartPane: st.start, HibernateAfter: hibernate})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a, st
}

// waitFor polls cond (the state it reads has no event of its own) until a
// generous deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (f *fakeStarter) launches() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.specs)
}

// sleepyRoom is a sleepy app (hibernate_after 300ms) with a topic, a
// subscription and bot's seat started in it (sleepSeated).
func sleepyRoom(t *testing.T) (*App, *fakeStarter, string, *Subscription, func()) {
	t.Helper()
	a, st := newSleepyApp(t, 300*time.Millisecond)
	topic, _ := a.NewTopic()
	sub := a.Subscribe()
	t.Cleanup(sub.Close)
	_, asleep := sleepSeated(t, a, sub, topic)
	return a, st, topic, sub, asleep
}

// sleepSeated starts bot's seat in topic with a fake sidecar in the room
// and returns its pane and a func that waits until it sleeps, then closes
// that sidecar as the CLI's end closes the real one.
func sleepSeated(t *testing.T, a *App, sub *Subscription, topic string) (*seat.Pane, func()) {
	t.Helper()
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	c := joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	pane, err := a.Pane(topic, "bot")
	if err != nil {
		t.Fatal(err)
	}
	return pane, func() {
		t.Helper()
		waitAsleep(t, a, topic)
		c.Close()
		waitFor(t, "its sidecar leaves", func() bool { n, _ := rosterOf(a, topic, "Bot"); return n == 1 })
	}
}

// waitAsleep waits until bot's seat in topic sleeps, its process gone.
func waitAsleep(t *testing.T, a *App, topic string) {
	t.Helper()
	waitFor(t, "the idle seat sleeps", func() bool { _, running := a.seats.Seat(topic, "bot"); return a.Asleep(topic, "bot") && !running })
}

func rosterOf(a *App, topic, name string) (n int, asleep bool) {
	for _, p := range a.engine.Roster(topic) {
		if p.Name == name {
			n++
			asleep = asleep || p.Asleep
		}
	}
	return n, asleep
}

// An idle seat sleeps (stopped, its record kept, a placeholder in the
// room); a room-wide post wakes nobody and is never typed into it; a post
// addressed to it wakes it, resumed, held "waking" until it joins, then
// typed once after the wake notice (docs/decisions.md "Sleeping seats").
func TestSeatSleepsAndWakesWhenAddressed(t *testing.T) {
	t.Parallel()
	a, st, topic, sub, asleep := sleepyRoom(t)
	sid, err := a.seats.ResumeCheck(topic, "bot")
	if err != nil {
		t.Fatal(err)
	}

	asleep()
	if s, ok := a.seats.Seat(topic, "bot"); ok && s.State() != seat.StateExited {
		t.Fatal("the sleeping seat's process still runs")
	}
	if tp, _ := a.store.Get(topic); tp.Sessions["bot"] != sid {
		t.Fatalf("the resume record went: %v", tp.Sessions)
	}
	if n, asleep := rosterOf(a, topic, "Bot"); n != 1 || !asleep {
		t.Fatalf("roster while asleep: %+v", a.engine.Roster(topic))
	}
	if ss := a.Seats(topic); len(ss) != 1 || ss[0].State != StateAsleep || ss[0].AsleepSince.IsZero() {
		t.Fatalf("seats while asleep: %+v", ss)
	}
	if a.Running()[topic] != 1 {
		t.Fatalf("a sleeping seat is no session for the server's self-exit: %v", a.Running())
	}

	if _, err := a.Post(topic, "room-wide news", ""); err != nil {
		t.Fatal(err)
	}
	if st.launches() != 1 {
		t.Fatal("a room-wide post woke the seat")
	}
	o, err := a.Post(topic, "@Bot are you there?", "")
	if err != nil || len(o.Post.To) != 1 || o.Post.To[0] != "Bot" {
		t.Fatalf("addressed post: %+v %v (the placeholder must keep @Bot resolvable)", o, err)
	}
	waitFor(t, "the woken seat holds the post, waking", func() bool {
		n, why := a.typist.HeldReason(topic, "bot")
		return n >= 1 && why.Kind == seat.HoldByWaking
	})
	if st.launches() != 2 {
		t.Fatalf("launches: %d", st.launches())
	}
	if s, _ := a.seats.Seat(topic, "bot"); s.Launch.ResumedFrom != sid {
		t.Fatalf("woken fresh, want resumed from %s: %+v", sid, s.Launch)
	}
	pane, err := a.Pane(topic, "bot")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(pane.Render(), "are you there?") {
		t.Fatal("the post was typed before the woken seat joined")
	}
	joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	waitFor(t, "the post is typed after the join", func() bool { return strings.Contains(pane.Render(), "are you there?") })
	screen := pane.Render()
	if strings.Count(screen, "are you there?") != 1 || strings.Contains(screen, "room-wide news") || !strings.Contains(screen, "read_room_history") {
		t.Fatalf("typed after the wake:\n%s", screen)
	}
	if strings.Index(screen, "read_room_history") > strings.Index(screen, "are you there?") {
		t.Fatalf("the wake notice must come before the held post:\n%s", screen)
	}
	waitFor(t, "the placeholder leaves", func() bool { n, asleep := rosterOf(a, topic, "Bot"); return n == 1 && !asleep })
	if a.Asleep(topic, "bot") {
		t.Fatal("still asleep after the join")
	}
}

// A seat never sleeps with a prompt open, held posts, unsent keys, or its
// pane on a screen; once that ends, it does.
func TestSeatNeverSleepsWhileNeeded(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		hold, end func(t *testing.T, a *App, topic string, pane *seat.Pane)
	}{
		{"prompt", func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			hook(t, a, topic, "PermissionRequest", `{"hook_event_name":"PermissionRequest","tool_name":"Bash"}`)
		}, func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			hook(t, a, topic, "PostToolUse", `{"hook_event_name":"PostToolUse","tool_name":"Bash"}`)
			hook(t, a, topic, "Stop", `{"hook_event_name":"Stop"}`)
		}},
		{"held posts", func(t *testing.T, a *App, topic string, pane *seat.Pane) {
			hook(t, a, topic, "PreToolUse", `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"t1"}`)
			if _, err := a.Post(topic, "@Bot wait for it", ""); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, a *App, topic string, pane *seat.Pane) {
			hook(t, a, topic, "PostToolUse", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t1"}`)
			hook(t, a, topic, "Stop", `{"hook_event_name":"Stop"}`)
			waitFor(t, "the held post is typed", func() bool { return strings.Contains(pane.Render(), "wait for it") })
		}},
		{"unsent keys", func(t *testing.T, a *App, topic string, pane *seat.Pane) {
			if _, err := pane.Write([]byte("half")); err != nil {
				t.Fatal(err)
			}
		}, func(t *testing.T, a *App, topic string, pane *seat.Pane) {
			if _, err := pane.Write([]byte("\x15")); err != nil { // Ctrl-U clears them
				t.Fatal(err)
			}
		}},
		{"background task", func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			// Claude's Stop: a backgrounded Bash still runs.
			hook(t, a, topic, "Stop", `{"hook_event_name":"Stop","background_tasks":[{"task_id":"b1","task_type":"local_bash","status":"running"}],"session_crons":[]}`)
		}, func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			hook(t, a, topic, "Stop", `{"hook_event_name":"Stop","background_tasks":[],"session_crons":[]}`)
		}},
		{"scheduled wake-up", func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			hook(t, a, topic, "Stop", `{"hook_event_name":"Stop","background_tasks":[],"session_crons":[{"id":"c1","cron":"*/5 * * * *","prompt":"check"}]}`)
		}, func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			hook(t, a, topic, "Stop", `{"hook_event_name":"Stop"}`)
		}},
		{"pane on a screen", func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			a.SetShown("screen", topic, []string{"bot"})
		}, func(t *testing.T, a *App, topic string, _ *seat.Pane) {
			a.SetShown("screen", "", nil)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			a, _ := newSleepyApp(t, 300*time.Millisecond)
			topic, _ := a.NewTopic()
			sub := a.Subscribe()
			defer sub.Close()
			a.SetShown("screen", topic, []string{"bot"}) // awake until the condition holds
			pane := seatedPane(t, a, sub, topic, "bot", "Bot")
			tc.hold(t, a, topic, pane)
			a.SetShown("screen", "", nil)
			if tc.name == "pane on a screen" {
				tc.hold(t, a, topic, pane)
			}
			// Six sweeps past hibernate_after: it stays awake.
			time.Sleep(6 * hibernateTick(300*time.Millisecond))
			if a.Asleep(topic, "bot") {
				t.Fatalf("slept with %s", tc.name)
			}
			tc.end(t, a, topic, pane)
			waitFor(t, "it sleeps once "+tc.name+" ended", func() bool { return a.Asleep(topic, "bot") })
		})
	}
}

// hook sends one activity hook of bot's seat in topic.
func hook(t *testing.T, a *App, topic, event, body string) {
	t.Helper()
	if err := a.seats.Activity(context.Background(), topic, "bot", event, []byte(body)); err != nil {
		t.Fatal(err)
	}
}

// stop of a sleeping seat ends its sleep for good: its placeholder
// leaves, its record stays; s (start) wakes it.
func TestStopEndsSleepStartWakes(t *testing.T) {
	t.Parallel()
	a, st, topic, sub, asleep := sleepyRoom(t)
	asleep()
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	if st.launches() != 2 || a.Asleep(topic, "bot") {
		t.Fatal("start did not wake it")
	}
	c := joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	waitAsleep(t, a, topic)
	c.Close()
	if err := a.StopSeat(topic, "bot", "test"); err != nil {
		t.Fatal(err)
	}
	if a.Asleep(topic, "bot") || len(a.Seats(topic)) != 0 || a.Running()[topic] != 0 {
		t.Fatalf("after stop: %+v", a.Seats(topic))
	}
	waitFor(t, "the placeholder leaves", func() bool { n, _ := rosterOf(a, topic, "Bot"); return n == 0 })
	if tp, _ := a.store.Get(topic); tp.Sessions["bot"] == "" {
		t.Fatal("stop while asleep dropped the resume record")
	}
}

// A seat stopped at its usage limit may sleep until the reset; the resume
// at the reset, addressed to it alone, wakes it first and is typed once it
// has joined. restart of a sleeping seat wakes it too.
func TestLimitedSeatSleepsUntilReset(t *testing.T) {
	t.Parallel()
	a, st, topic, sub, asleep := sleepyRoom(t)
	a.limit(topic, "bot", time.Now().Add(time.Hour))
	asleep()
	a.unlimit(topic, "bot")
	var pane *seat.Pane
	waitFor(t, "the resume at the reset wakes it", func() bool {
		var err error
		pane, err = a.Pane(topic, "bot")
		return err == nil && st.launches() == 2
	})
	c := joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	waitFor(t, "the resume instruction is typed after the join", func() bool { return strings.Contains(pane.Render(), "利用上限が解除されました") })

	waitAsleep(t, a, topic)
	c.Close()
	if _, err := a.RestartSeat(context.Background(), topic, "bot"); err != nil || st.launches() != 3 || a.Asleep(topic, "bot") {
		t.Fatalf("restart of a sleeping seat: %v, %d launches", err, st.launches())
	}
}

// The session operations on a sleeping seat: list_account_sessions lists
// it asleep; start wakes it (resumed when asked); stop ends its sleep.
func TestSessionOpsOnASleepingSeat(t *testing.T) {
	t.Parallel()
	a, st, topic, sub, asleep := sleepyRoom(t)
	asleep()
	var listed []wire.SessionSeat
	for _, tp := range a.ops.List(seat.LaunchRef{}).Topics {
		if tp.TopicID == topic {
			listed = tp.Sessions
		}
	}
	if len(listed) != 1 || listed[0].State != StateAsleep || listed[0].PtyID != "" || listed[0].ProcessRunning {
		t.Fatalf("listed: %+v", listed)
	}
	out := a.ops.execute(wire.SessionRecord{SessionOperation: wire.SessionOperation{Action: wire.ActionStart, Mode: wire.ModeResume, TopicID: topic, AccountID: "bot"}})
	if out.state != wire.OpProcessStarted || out.launched != wire.ModeResume || st.launches() != 2 || a.Asleep(topic, "bot") {
		t.Fatalf("start of a sleeping seat: %+v, %d launches", out, st.launches())
	}
	c := joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	waitAsleep(t, a, topic)
	c.Close()
	out = a.ops.execute(wire.SessionRecord{SessionOperation: wire.SessionOperation{Action: wire.ActionStop, TopicID: topic, AccountID: "bot"}})
	if out.state != wire.OpStopped || a.Asleep(topic, "bot") || len(a.Seats(topic)) != 0 {
		t.Fatalf("stop of a sleeping seat: %+v, seats %+v", out, a.Seats(topic))
	}
}
