package app

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/seat"
)

// A seat whose window reaches 100 % is limited: the room is told in the
// app's words with the reset time, posts for it are held (visible as
// held), and when the limit is over the release is told, the resume
// instruction is typed first, then the held post.
func TestUsageLimitHoldsAndResumes(t *testing.T) {
	t.Parallel()
	// "ready" once the echo is off: text typed before that is echoed by the
	// terminal besides cat's copy, and would read as typed twice.
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty -echo; echo ready; exec cat"}}
	a := newApp(t, []seat.Account{{ID: "lay", Name: "Lay", Kind: seat.KindCLI, Command: "my-cli"}}, st)
	var mu sync.Mutex
	var release func()
	a.limits.after = func(d time.Duration, f func()) *time.Timer {
		mu.Lock()
		release = f
		mu.Unlock()
		return time.NewTimer(time.Hour) // the test fires f itself
	}
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.StartSeat(context.Background(), topic, "lay"); err != nil {
		t.Fatal(err)
	}
	joinAsSidecar(t, a, sub, topic, "lay", "Lay")
	post := func(want string) string {
		t.Helper()
		for {
			if ev := next(t, sub); ev.Kind == EventRoom && ev.Room.Kind == RoomPost && strings.Contains(ev.Room.Post.Content, want) {
				if ev.Room.Post.Speaker != room.AppName || ev.Room.Role != wire.RoleApp {
					t.Fatalf("%q came from %q as %q", want, ev.Room.Post.Speaker, ev.Room.Role)
				}
				return ev.Room.Post.MessageID
			}
		}
	}
	pane, err := a.Pane(topic, "lay")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(pane.Render(), "ready"); {
		if time.Now().After(deadline) {
			t.Fatalf("the seat's echo never went off:\n%s", pane.Render())
		}
		time.Sleep(5 * time.Millisecond) // polling the screen: no event says a PTY printed
	}

	reset := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	a.engine.RecordUsage(topic, "lay", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 100, ResetsAt: reset.Format(time.RFC3339)}})
	notice := post("Lay が利用上限で止まりました。解除予定 " + reset.Local().Format("15:04"))
	s, _ := a.seats.Seat(topic, "lay")
	if snap := s.Activity.Snapshot(); snap.State != seat.ActLimited || !strings.Contains(snap.Hold, "usage limit") {
		t.Fatalf("activity %+v", snap)
	}
	// The same figures again say nothing twice.
	a.engine.RecordUsage(topic, "lay", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 100, ResetsAt: reset.Format(time.RFC3339)}})

	if o, err := a.Post(topic, "held for Lay", notice); err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if n, why := a.typist.Held(topic, "lay"); n == 1 && strings.Contains(why, "usage limit") {
			break
		}
		if time.Now().After(deadline) {
			n, why := a.typist.Held(topic, "lay")
			t.Fatalf("held %d (%q)", n, why)
		}
		time.Sleep(5 * time.Millisecond) // the typist reports its hold by callback only
	}
	if strings.Contains(pane.Render(), "held for Lay") {
		t.Fatal("a post was typed into a limited seat")
	}

	mu.Lock()
	f := release
	mu.Unlock()
	if f == nil {
		t.Fatal("no release was scheduled for the reset time")
	}
	f()
	post("Lay の利用上限が解除されました")
	deadline = time.Now().Add(15 * time.Second)
	for {
		screen := pane.Render()
		i, j := strings.Index(screen, "利用上限が解除されました。上限で止まる前"), strings.Index(screen, "held for Lay")
		if i >= 0 && j >= 0 {
			if i > j {
				t.Fatalf("the held post was typed before the resume instruction:\n%s", screen)
			}
			if strings.Count(screen, "上限で止まる前") != 1 {
				t.Fatalf("the resume instruction was typed more than once:\n%s", screen)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the release the pane shows:\n%s", screen)
		}
		time.Sleep(20 * time.Millisecond) // polling the screen: no event says a PTY echoed
	}
	if snap := s.Activity.Snapshot(); snap.State == seat.ActLimited {
		t.Fatalf("still limited: %+v", snap)
	}
}

// A window at 100 % limits only until its reset time: kept in the book with
// its age, it must not limit the seat again once that time has passed.
func TestAtLimitIgnoresPassedResets(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := window
	for _, tc := range []struct {
		name  string
		w     []*wire.Window
		at    bool
		until string
	}{
		{"below the limit", []*wire.Window{at(99.9, "2026-12-01T13:00:00Z")}, false, ""},
		{"at the limit", []*wire.Window{at(100, "2026-12-01T13:00:00Z")}, true, "2026-12-01T13:00:00Z"},
		{"its reset has passed", []*wire.Window{at(100, "2026-12-01T11:59:59Z")}, false, ""},
		{"no reset time", []*wire.Window{at(100, "")}, true, ""},
		{"the later of two", []*wire.Window{at(100, "2026-12-01T13:00:00Z"), at(100, "2026-12-05T00:00:00Z")}, true, "2026-12-05T00:00:00Z"},
		{"one passed, one not", []*wire.Window{at(100, "2026-12-01T11:00:00Z"), at(100, "2026-12-05T00:00:00Z")}, true, "2026-12-05T00:00:00Z"},
		{"none", []*wire.Window{nil, nil}, false, ""},
		{"the weekly window alone", []*wire.Window{nil, at(100, "2026-12-05T00:00:00Z")}, true, "2026-12-05T00:00:00Z"},
	} {
		until, got := atLimit(now, tc.w...)
		want := time.Time{}
		if tc.until != "" {
			want, _ = time.Parse(time.RFC3339, tc.until)
		}
		if got != tc.at || !until.Equal(want) {
			t.Errorf("%s: at %v until %v, want %v %v", tc.name, got, until, tc.at, want)
		}
	}
}

// A seat's StopFailure hook (Claude: its turn ended on an API error) with
// the rate_limit cause limits the seat until the reset the book gives
// (the payload carries none), and tells the room; another cause (overloaded)
// is the seat's failure, shown in its activity, and holds nothing.
func TestStopFailureLimitsOnlyOnRateLimit(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty raw -echo; cat >/dev/null"}}
	a := newApp(t, []seat.Account{{ID: "lin", Name: "Lin", Kind: seat.KindCLI, Command: "my-cli"}}, st)
	a.limits.after = func(time.Duration, func()) *time.Timer { return time.NewTimer(time.Hour) }
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.StartSeat(context.Background(), topic, "lin"); err != nil {
		t.Fatal(err)
	}
	joinAsSidecar(t, a, sub, topic, "lin", "Lin")
	s, _ := a.seats.Seat(topic, "lin")
	hook := func(event, body string) {
		t.Helper()
		if err := a.seats.Activity(context.Background(), topic, "lin", event, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	hook("UserPromptSubmit", `{}`)
	hook("StopFailure", `{"error":"overloaded","error_details":"529 Overloaded"}`)
	if snap := s.Activity.Snapshot(); snap.State != seat.ActReady || snap.Failure != "overloaded" || snap.Hold != "" {
		t.Fatalf("after an overloaded StopFailure: %+v", snap)
	}
	if limited, _ := s.Activity.Limited(); limited {
		t.Fatal("an overloaded API limited the seat")
	}

	// The status line's figures: the 5-hour window is full.
	reset := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	a.engine.RecordUsage(topic, "lin", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 99, ResetsAt: reset.Format(time.RFC3339)},
		SevenDay: &wire.Window{UsedPercentage: 40, ResetsAt: reset.Add(72 * time.Hour).Format(time.RFC3339)}})
	hook("UserPromptSubmit", `{}`)
	hook("StopFailure", `{"error":"rate_limit","error_details":"429"}`)
	limited, until := s.Activity.Limited()
	if !limited || !until.Equal(reset) {
		t.Fatalf("after a rate_limit StopFailure: limited %v until %v, want until %v (the book's nearest reset)", limited, until, reset)
	}
	for {
		ev := next(t, sub)
		if ev.Kind == EventRoom && ev.Room.Kind == RoomPost && strings.Contains(ev.Room.Post.Content, "Lin が利用上限で止まりました。解除予定 "+reset.Local().Format("15:04")) {
			break
		}
	}
	// A status line below the limit does not end a limit the CLI said.
	a.engine.RecordUsage(topic, "lin", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 10, ResetsAt: reset.Format(time.RFC3339)}})
	a.checkLimit(topic, "lin")
	if limited, _ := s.Activity.Limited(); !limited {
		t.Fatal("figures below the limit ended the limit the CLI reported")
	}
}

// bookReset: a limit reported without a reset time lifts at the book's
// full window's reset, else its nearest reset to come, else unknown.
func TestBookReset(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	at := window
	for _, tc := range []struct {
		name string
		w    []*wire.Window
		want string
	}{
		{"no figures", []*wire.Window{nil, nil}, ""},
		{"the full window's reset", []*wire.Window{at(30, "2026-12-01T13:00:00Z"), at(100, "2026-12-03T00:00:00Z")}, "2026-12-03T00:00:00Z"},
		{"none full: the nearest to come", []*wire.Window{at(90, "2026-12-01T13:00:00Z"), at(50, "2026-12-03T00:00:00Z")}, "2026-12-01T13:00:00Z"},
		{"the weekly window alone", []*wire.Window{nil, at(100, "2026-12-03T00:00:00Z")}, "2026-12-03T00:00:00Z"},
		{"passed resets say nothing", []*wire.Window{at(100, "2026-12-01T11:00:00Z"), at(20, "2026-12-01T11:30:00Z")}, ""},
		{"full with no reset time: the other's", []*wire.Window{at(100, ""), at(20, "2026-12-02T00:00:00Z")}, "2026-12-02T00:00:00Z"},
	} {
		got := bookReset(now, tc.w...)
		want := time.Time{}
		if tc.want != "" {
			want, _ = time.Parse(time.RFC3339, tc.want)
		}
		if !got.Equal(want) {
			t.Errorf("%s: %v, want %v", tc.name, got, want)
		}
	}
}

// window is a usage window at pct, resetting at reset (RFC 3339).
func window(pct float64, reset string) *wire.Window {
	return &wire.Window{UsedPercentage: pct, ResetsAt: reset}
}
