package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pullcept/dirs"
	"pullcept/room"
	"pullcept/seat"
)

// TestReleaseSaysWhatItDoes: the person's release (`u`) does what it says
// or says why not, for each kind of hold (issue 31, point 4): a seat that
// is not running holds nothing; an open prompt is not typed into; unsent
// keys are reported and cleared only on the second word, with the kind's
// clear key, after which the held post is typed once; a usage limit ends.
func TestReleaseSaysWhatItDoes(t *testing.T) {
	t.Parallel()
	// cat in canonical mode: a line reaches the screen only when sent, and
	// the clear key (Ctrl-U, the terminal's line kill) erases a line.
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty -echo; echo ready; exec cat"}}
	a := newApp(t, []seat.Account{{ID: "lay", Name: "Lay", Kind: seat.KindCodex}, {ID: "cat", Name: "Cat", Kind: seat.KindCLI, Command: "cat"}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.ReleaseSeat(topic, "lay"); !errors.Is(err, seat.ErrNotRunning) {
		t.Fatalf("release of a seat never started: %v", err)
	}
	pane := seatedPane(t, a, sub, topic, "lay", "Lay")
	screenHas := func(what string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(pane.Render(), what); {
			if time.Now().After(deadline) {
				t.Fatalf("the pane never showed %q:\n%s", what, pane.Render())
			}
			time.Sleep(5 * time.Millisecond) // polling the screen: no event says a PTY printed
		}
	}
	screenHas("ready")
	heldBy := func(n int, kind seat.HoldKind) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ; {
			got, why := a.typist.HeldReason(topic, "lay")
			if got == n && why.Kind == kind {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("held %d (%+v), want %d by %s", got, why, n, kind)
			}
			time.Sleep(5 * time.Millisecond) // the typist reports its hold by callback only
		}
	}
	release := func() seat.ReleaseOutcome {
		t.Helper()
		out, err := a.ReleaseSeat(topic, "lay")
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	if out := release(); out.Done || out.Note != "Lay holds no posts" {
		t.Fatalf("release of a seat holding nothing: %+v", out)
	}
	// A tool runs, no post waits: the hold stays for the posts to come.
	s, _ := a.seats.Seat(topic, "lay")
	s.Activity.Apply(seat.HookEvent{Event: "PreToolUse", ToolName: "Bash", ToolUseID: "t0"})
	if out := release(); out.Done || out.Note != "Lay holds no posts (a tool is running)" || s.Activity.Hold().Kind != seat.HoldByTool {
		t.Fatalf("release while a tool runs and nothing is held: %+v", out)
	}
	s.Activity.Apply(seat.HookEvent{Event: "PostToolUse", ToolName: "Bash", ToolUseID: "t0"})

	// Unsent keys: said, not cleared; cleared on the second word.
	if _, err := pane.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	if o, err := a.Post(topic, "first for Lay", ""); err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	heldBy(1, seat.HoldByUnsent)
	out := release()
	if out.Done || out.Unsent != "abc" || out.Held != 1 || !strings.Contains(out.Note, "'abc'") {
		t.Fatalf("release behind unsent keys: %+v", out)
	}
	heldBy(1, seat.HoldByUnsent) // nothing cleared, nothing typed
	if _, err := a.ClearUnsentSeat(topic, "lay", "abd"); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Fatalf("a clear of other keys than the unsent ones: %v", err)
	}
	out, err := a.ClearUnsentSeat(topic, "lay", "abc")
	if err != nil || !out.Done {
		t.Fatalf("clear: %+v %v", out, err)
	}
	screenHas("first for Lay")
	if scr := pane.Render(); strings.Contains(scr, "abc") || strings.Count(scr, "first for Lay") != 1 {
		t.Fatalf("after the clear:\n%s", scr)
	}

	// An open prompt: nothing is typed into it. The tool's PreToolUse
	// comes first, as the CLIs send them: the answer below then leaves the
	// tool's hold with no moment where nothing holds.
	s.Activity.Apply(seat.HookEvent{Event: "PreToolUse", ToolName: "Bash", ToolUseID: "t1"})
	s.Activity.Apply(seat.HookEvent{Event: "PermissionRequest", ToolName: "Bash"})
	if o, err := a.Post(topic, "second for Lay", ""); err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	heldBy(1, seat.HoldByPrompt)
	if out := release(); out.Done || !strings.Contains(out.Note, "answer in its pane") {
		t.Fatalf("release at an open prompt: %+v", out)
	}
	heldBy(1, seat.HoldByPrompt)
	// The person answers; the tool goes on: now the release ends it.
	s.Activity.PersonKeys([]byte("1"))
	heldBy(1, seat.HoldByTool)
	if out := release(); !out.Done || out.Held != 1 {
		t.Fatalf("release after the answer: %+v", out)
	}
	screenHas("second for Lay")

	// A usage limit ends early.
	s.Activity.SetLimited(time.Now().Add(time.Hour))
	if o, err := a.Post(topic, "third for Lay", ""); err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	heldBy(1, seat.HoldByLimit)
	if out := release(); !out.Done || !strings.Contains(out.Note, "usage limit") {
		t.Fatalf("release of a limit: %+v", out)
	}
	screenHas("third for Lay")

	// A kind with no clear key measured safe: says so, offers nothing.
	other, _ := a.NewTopic()
	catPane := seatedPane(t, a, sub, other, "cat", "Cat")
	if _, err := catPane.Write([]byte("xyz")); err != nil {
		t.Fatal(err)
	}
	if o, err := a.Post(other, "for Cat", ""); err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; {
		if n, why := a.typist.HeldReason(other, "cat"); n == 1 && why.Kind == seat.HoldByUnsent {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the post for Cat was not held behind its unsent keys")
		}
		time.Sleep(5 * time.Millisecond) // the typist reports its hold by callback only
	}
	if out, err := a.ReleaseSeat(other, "cat"); err != nil || out.Done || out.Unsent != "" || !strings.Contains(out.Note, "clear them in its pane") {
		t.Fatalf("release behind a cli program's unsent keys: %+v %v", out, err)
	}

	if err := a.StopSeat(topic, "lay", "test"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.ReleaseSeat(topic, "lay"); !errors.Is(err, seat.ErrNotRunning) || err.Error() != "Lay is not running: it holds nothing" {
		t.Fatalf("release of a stopped seat: %v", err)
	}
}

// TestQueueGapNotice (issue 32, finding 3): a seat whose full queue has
// drained is told, once, through the room, how many posts it was not
// typed and how to read them: typed into that seat alone and kept in the
// log as the app's notice addressed to it.
func TestQueueGapNotice(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "echo ready; exec cat"}}
	a := newApp(t, []seat.Account{{ID: "cat", Name: "Cat", Kind: seat.KindCLI, Command: "cat"}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	pane := seatedPane(t, a, sub, topic, "cat", "Cat")
	a.queueGap(topic, "cat", seat.Gap{Skipped: 300, First: "m-first", Last: "m-last"})
	p, err := a.Page(topic, 10, "")
	if err != nil || len(p.Posts) != 1 {
		t.Fatalf("page: %+v %v", p, err)
	}
	got := p.Posts[0]
	if got.Speaker != room.AppName || len(got.To) != 1 || got.To[0] != "Cat" || !strings.Contains(got.Content, "300 件") ||
		!strings.Contains(got.Content, "m-first") || !strings.Contains(got.Content, "read_room_history") {
		t.Fatalf("the notice in the log: %+v", got)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(pane.Render(), "300"); {
		if time.Now().After(deadline) {
			t.Fatalf("the notice was never typed into the seat:\n%s", pane.Render())
		}
		time.Sleep(5 * time.Millisecond) // polling the screen: no event says a PTY printed
	}
}

// TestQueueFullThenDrainedTellsTheGap (issue 32, finding 3): a real PTY
// program that does not read its input until told (a file appears) gets
// posts past its seat's queue bound (3 here): the queue takes no more;
// once the program reads, the queued posts are typed, then, once, the
// app's notice naming the posts not typed, then the posts after it.
func TestQueueFullThenDrainedTellsTheGap(t *testing.T) {
	t.Parallel()
	readNow := filepath.Join(t.TempDir(), "read")
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty raw; echo ready; while [ ! -e " + readNow + " ]; do sleep 0.05; done; exec cat >/dev/null"}}
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := Start(context.Background(), Options{Dirs: d, PersonName: "Master", ExePath: "/bin/false", StartPane: st.start, QueuePosts: 3,
		Accounts: []seat.Account{{ID: "cat", Name: "Cat", Kind: seat.KindCLI, Command: "cat"}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	pane := seatedPane(t, a, sub, topic, "cat", "Cat")
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); !ok(); {
			if time.Now().After(deadline) {
				t.Fatalf("never %s; held %d, skipped %d:\n%s", what, a.Seats(topic)[0].Held, a.typist.Skipped(topic, "cat"), pane.Render())
			}
			time.Sleep(10 * time.Millisecond) // polled: the pane and the typist report by callback only
		}
	}
	waitFor("ready", func() bool { return strings.Contains(pane.Render(), "ready") })
	// 40 KB posts: the PTY's buffers take a post or two, then the writes wait.
	big := strings.Repeat("x", 40<<10)
	for i := range 10 {
		if o, err := a.Post(topic, fmt.Sprintf("%s end-%02d", big, i), ""); err != nil || !o.Delivered {
			t.Fatalf("%+v %v", o, err)
		}
	}
	waitFor("full", func() bool {
		s := a.Seats(topic)[0]
		return s.Skipped > 0 && s.HoldKind == seat.HoldByBacklog && s.Held == 3
	})
	skipped := a.typist.Skipped(topic, "cat")
	if err := os.WriteFile(readNow, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The screen wraps the notice: its words are matched without spaces.
	flat := func() string { return strings.Join(strings.Fields(pane.Render()), "") }
	notice := fmt.Sprintf("%d件", skipped)
	waitFor("told of the gap", func() bool { return strings.Contains(flat(), notice) })
	newest, err := a.Page(topic, 1, "")
	if err != nil || len(newest.Posts) != 1 {
		t.Fatalf("%+v %v", newest, err)
	}
	if o, err := a.Post(topic, "after the gap", newest.Posts[0].MessageID); err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	waitFor("typed the post after the gap", func() bool { return strings.Contains(pane.Render(), "after the gap") })
	if scr := flat(); strings.Index(scr, notice) > strings.Index(scr, "afterthegap") {
		t.Fatalf("the post after the gap came before the notice:\n%s", pane.Render())
	}
	if n, why := a.typist.HeldReason(topic, "cat"); n != 0 || why.Held() || a.typist.Skipped(topic, "cat") != 0 {
		t.Fatalf("after draining: held %d %+v", n, why)
	}
	// The notice is in the log, addressed to the seat, once.
	p, err := a.Page(topic, 50, "")
	if err != nil {
		t.Fatal(err)
	}
	notices := 0
	for _, q := range p.Posts {
		if q.Speaker == room.AppName && strings.Contains(q.Content, fmt.Sprintf("%d 件", skipped)) {
			notices++
		}
	}
	if notices != 1 || len(p.Posts) != 12 {
		t.Fatalf("%d notices, %d posts in the log", notices, len(p.Posts))
	}
}
