package seat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/room/wire"
)

// fakeTimers is DeliveriesOptions.AfterFunc on a clock the test moves.
type fakeTimers struct {
	mu     sync.Mutex
	now    time.Duration
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Duration
	f       func()
	stopped bool
}

func (c *fakeTimers) AfterFunc(d time.Duration, f func()) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now + d, f: f}
	c.timers = append(c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := !t.stopped
		t.stopped = true
		return was
	}
}

// advance moves the clock by d and runs the timers due.
func (c *fakeTimers) advance(d time.Duration) {
	c.mu.Lock()
	c.now += d
	var due []func()
	for _, t := range c.timers {
		if !t.stopped && t.at <= c.now {
			t.stopped = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		f()
	}
}

// markLog records the marks told, as "account id mark (why)".
type markLog struct {
	mu  sync.Mutex
	got []string
}

func (l *markLog) add(ev MarkEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := ev.Account + " " + ev.MessageID + " " + string(ev.Mark)
	if ev.Why != "" {
		s += " (" + ev.Why + ")"
	}
	l.got = append(l.got, s)
}

func (l *markLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.got)
}

// wait waits until a mark containing want was told.
func (l *markLog) wait(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for time.Now().Before(deadline) {
		for _, s := range l.all() {
			if strings.Contains(s, want) {
				return
			}
		}
		time.Sleep(time.Millisecond) // the typist's goroutine tells it
	}
	t.Fatalf("no mark %q; told %q", want, l.all())
}

func promptOf(ps ...wire.Post) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(typedPost("admin", p) + "\n")
	}
	return b.String()
}

// TestMarksHeldTypedReceived: through the typist and a seat's activity, a
// post that arrives while the CLI asks for permission is marked held with
// the reason, typed once the prompt is answered, and received when the
// CLI's UserPromptSubmit carries its tag line; a prompt holding two posts
// marks both.
func TestMarksHeldTypedReceived(t *testing.T) {
	t.Parallel()
	var log markLog
	timers := &fakeTimers{}
	d := NewDeliveries(DeliveriesOptions{AfterFunc: timers.AfterFunc, OnMark: log.add})
	ty := NewTypist(TypistOptions{Location: tokyo, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	ty.setMarkReporter(d.typist)
	t.Cleanup(ty.Close)
	d.Seat("t", "a", true, nil)
	a := NewActivity(ActivityOptions{ReportsStart: true, EscInterrupts: true, CLI: "Lin",
		OnChange: func(s ActivitySnapshot) { d.Busy("t", "a", busyState(s.State)) }})
	a.Launched()
	apply(t, a, hkSessionStart)
	apply(t, a, hkPreBash)
	apply(t, a, hkPermBash)
	term := newFakeTerm()
	ty.AttachGated("t", "a", term, a)
	p1, p2 := roomPost("m1", "Kai", "first"), roomPost("m2", "Kai", "second")
	ty.Deliver("t", p1, "admin", []string{"a"})
	ty.Deliver("t", p2, "admin", []string{"a"})
	log.wait(t, "a m2 held (waiting for your permission)")
	apply(t, a, hkPostBash)
	log.wait(t, "a m2 typed")
	apply(t, a, hkStop)
	d.Prompt("t", "a", promptOf(p1, p2)) // Claude submits queued input together
	want := []string{
		"a m1 held (waiting for your permission)", "a m2 held (waiting for your permission)",
		"a m1 typed", "a m2 typed", "a m1 received", "a m2 received",
	}
	if got := log.all(); !slices.Equal(got, want) {
		t.Fatalf("marks\n got %q\nwant %q", got, want)
	}
	timers.advance(time.Hour) // received posts have no bound running
	if got := log.all(); len(got) != len(want) {
		t.Fatalf("marks after the bound: %q", got)
	}
	// Settled marks are forgotten once the CLI is ready again.
	apply(t, a, hkPrompt)
	apply(t, a, hkStop)
	d.mu.Lock()
	n := len(d.seats[termKey{"t", "a"}].posts)
	d.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d settled posts kept", n)
	}
}

// TestMarksNotReceivedAfterTheBound: a typed post that no prompt reports
// is marked not received ReceiveBound after its CLI is ready; the bound
// does not run while the CLI is busy and starts again, whole, when it is
// ready. Nothing is retyped.
func TestMarksNotReceivedAfterTheBound(t *testing.T) {
	t.Parallel()
	var log markLog
	timers := &fakeTimers{}
	d := NewDeliveries(DeliveriesOptions{Bound: 30 * time.Second, AfterFunc: timers.AfterFunc, OnMark: log.add})
	d.Seat("t", "a", true, nil)
	d.Busy("t", "a", false)
	p := roomPost("m1", "Kai", "hello")
	d.typist("t", "a", p, markTyping, "")
	d.typist("t", "a", p, MarkTyped, "")
	timers.advance(20 * time.Second)
	d.Busy("t", "a", true) // a turn began: the CLI queues what was typed
	timers.advance(time.Minute)
	if got := log.all(); !slices.Equal(got, []string{"a m1 typed"}) {
		t.Fatalf("marks while busy: %q", got)
	}
	d.Busy("t", "a", false)
	timers.advance(29 * time.Second)
	if got := log.all(); len(got) != 1 {
		t.Fatalf("not received before the bound: %q", got)
	}
	timers.advance(time.Second)
	got := log.all()
	if len(got) != 2 || !strings.HasPrefix(got[1], "a m1 not_received") {
		t.Fatalf("marks after the bound: %q", got)
	}
	// A late prompt still says it was received.
	d.Prompt("t", "a", promptOf(p))
	if got := log.all(); got[len(got)-1] != "a m1 received" {
		t.Fatalf("a late prompt: %q", got)
	}
}

// TestMarksUnknownWithoutSignal: a kind that reports no prompts gets
// unknown once typed, never not received; a cli seat that does send
// UserPromptSubmit with the prompt is learnt to report them.
func TestMarksUnknownWithoutSignal(t *testing.T) {
	t.Parallel()
	var log markLog
	timers := &fakeTimers{}
	d := NewDeliveries(DeliveriesOptions{AfterFunc: timers.AfterFunc, OnMark: log.add})
	d.Seat("t", "c", false, nil)
	d.Busy("t", "c", false)
	p1, p2 := roomPost("m1", "Kai", "one"), roomPost("m2", "Kai", "two")
	d.typist("t", "c", p1, MarkTyped, "")
	timers.advance(time.Hour)
	d.Prompt("t", "c", "a prompt typed by the person") // its hooks report prompts
	d.typist("t", "c", p2, MarkTyped, "")
	d.Prompt("t", "c", promptOf(p2))
	want := []string{"c m1 unknown", "c m2 typed", "c m2 received"}
	if got := log.all(); !slices.Equal(got, want) {
		t.Fatalf("marks\n got %q\nwant %q", got, want)
	}
}

// TestMarksPromptBeforeTyped: the hook can arrive before the typist counts
// the \r; received stays. A seat that ends marks what it had not taken.
func TestMarksPromptBeforeTypedAndEnd(t *testing.T) {
	t.Parallel()
	var log markLog
	timers := &fakeTimers{}
	d := NewDeliveries(DeliveriesOptions{AfterFunc: timers.AfterFunc, OnMark: log.add})
	d.Seat("t", "a", true, nil)
	d.Busy("t", "a", false)
	p1, p2, p3 := roomPost("m1", "Kai", "one"), roomPost("m2", "Kai", "two"), roomPost("m3", "Kai", "three")
	d.typist("t", "a", p1, markTyping, "")
	d.Prompt("t", "a", promptOf(p1))
	d.typist("t", "a", p1, MarkTyped, "")
	d.typist("t", "a", p2, MarkTyped, "")
	d.typist("t", "a", p3, MarkHeld, "a tool is running")
	d.Ended("t", "a")
	timers.advance(time.Hour)
	got := log.all()
	want := []string{"a m1 received", "a m2 typed", "a m3 held (a tool is running)",
		"a m2 not_received (the seat ended before its CLI took it)", "a m3 not_received (the seat ended before it was typed)"}
	slices.Sort(got[3:])
	if !slices.Equal(got, want) {
		t.Fatalf("marks\n got %q\nwant %q", got, want)
	}
}

func TestTagIDs(t *testing.T) {
	t.Parallel()
	p1, p2 := roomPost("m1", "Kai", "one\n[pullcept] not json"), roomPost("m2", "Kai", "two")
	got := tagIDs(promptOf(p1, p2) + "  " + wire.TagLine("admin", roomPost("m3", "K", ""), nil))
	if want := []string{"m1", "m2", "m3"}; !slices.Equal(got, want) {
		t.Fatalf("tagIDs = %q, want %q", got, want)
	}
	if got := tagIDs(fmt.Sprint("[pullcept] {\"message_id\":\"\"}\nhello")); len(got) != 0 {
		t.Fatalf("an empty id: %q", got)
	}
}

// TestMarksClaudeTranscriptReceipts: Claude gives input typed during a
// turn to the model without a UserPromptSubmit, recording it as a
// "queued_command" attachment (measured, 2.1.197); a hook read afterwards
// marks the post received. The queue's "enqueue" record (the text only
// waits in Claude's queue) and what was written before the transcript was
// first named do not count.
func TestMarksClaudeTranscriptReceipts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "s1.jsonl")
	old, p1, p2 := roomPost("m0", "Kai", "old"), roomPost("m1", "Kai", "during the turn"), roomPost("m2", "Kai", "later")
	jsonl := func(v any) string { b, _ := json.Marshal(v); return string(b) + "\n" }
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	write(jsonl(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": typedPost("admin", old)}}))
	var log markLog
	timers := &fakeTimers{}
	d := NewDeliveries(DeliveriesOptions{AfterFunc: timers.AfterFunc, OnMark: log.add})
	d.Seat("t", "a", true, claudeReceipts)
	hook := func(event string) {
		d.Hook("t", "a", event, []byte(jsonl(map[string]any{"hook_event_name": event, "transcript_path": path})))
	}
	hook("SessionStart")
	d.Busy("t", "a", false)
	for _, p := range []wire.Post{old, p1, p2} {
		d.typist("t", "a", p, markTyping, "")
		d.typist("t", "a", p, MarkTyped, "")
	}
	d.Busy("t", "a", true)
	write(jsonl(map[string]any{"type": "queue-operation", "operation": "enqueue", "content": typedPost("admin", p1)}))
	hook("PreToolUse")
	write(jsonl(map[string]any{"type": "attachment", "attachment": map[string]any{"type": "queued_command", "prompt": typedPost("admin", p1), "commandMode": "prompt"}}))
	write(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":` + strconv.Quote(typedPost("admin", p2)) + `}]}}` + "\n" + `{"type":"attachment","attachment":{"type":"queued_command","prompt":"[pullcept] {\"message_id\":\"m0\"`) // a line not yet whole
	hook("Stop")
	want := []string{"a m0 typed", "a m1 typed", "a m2 typed", "a m1 received", "a m2 received"}
	if got := log.all(); !slices.Equal(got, want) {
		t.Fatalf("marks\n got %q\nwant %q", got, want)
	}
	// The bound runs out for m0; the line completed since is read first.
	write(`}\n"}}` + "\n")
	d.Busy("t", "a", false)
	timers.advance(time.Hour)
	if got := log.all(); got[len(got)-1] != "a m0 received" {
		t.Fatalf("marks after the bound: %q", got)
	}
}

// failTerm is a terminal whose writes fail.
type failTerm struct{ *fakeTerm }

func (failTerm) TypeRoom(context.Context, []byte) error { return errors.New("pty gone") }

// TestMarksTypingFailed: a post the typist could not type (and dropped)
// is marked not received with the reason, never left typing or held.
func TestMarksTypingFailed(t *testing.T) {
	t.Parallel()
	var log markLog
	d := NewDeliveries(DeliveriesOptions{AfterFunc: (&fakeTimers{}).AfterFunc, OnMark: log.add})
	ty := NewTypist(TypistOptions{Location: tokyo, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() },
		Log: slog.New(slog.DiscardHandler)})
	ty.setMarkReporter(d.typist)
	t.Cleanup(ty.Close)
	d.Seat("t", "a", true, nil)
	ty.Attach("t", "a", failTerm{newFakeTerm()})
	ty.Deliver("t", roomPost("m1", "Kai", "one"), "admin", []string{"a"})
	log.wait(t, "a m1 not_received ("+WhyTypingFailed+")")
}
