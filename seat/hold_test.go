package seat

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The hold reasons' precedence and what a release does for each
// (hold.go; docs/decisions.md "One model of held posts").
func TestHoldPrecedenceAndRelease(t *testing.T) {
	t.Parallel()
	limit := HoldReason{HoldByLimit, "stopped at its usage limit"}
	prompt := HoldReason{HoldByPrompt, "waiting for your permission"}
	tool := HoldReason{HoldByTool, "a tool is running"}
	backlog := HoldReason{HoldByBacklog, HoldNotReading}
	for _, tc := range []struct{ a, b, want HoldReason }{
		{HoldReason{}, HoldReason{}, HoldReason{}},
		{HoldReason{}, unsentHold, unsentHold},
		{unsentHold, prompt, prompt},
		{tool, unsentHold, tool},
		{prompt, limit, limit},
		{tool, prompt, prompt},
		{backlog, unsentHold, unsentHold},
		{tool, backlog, tool},
		{HoldReason{}, backlog, backlog},
	} {
		if got := firstHold(tc.a, tc.b); got != tc.want {
			t.Errorf("firstHold(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	for k, want := range map[HoldKind]ReleaseBy{HoldByLimit: ReleaseEnds, HoldByPrompt: ReleaseRefused, HoldByTool: ReleaseEnds,
		HoldByUnsent: ReleaseAfterClear, HoldByStarting: ReleaseNothing, HoldByBacklog: ReleaseCannot, HoldByLoop: ReleaseByTopic} {
		if got := k.Release(); got != want {
			t.Errorf("%s.Release() = %v, want %v", k, got, want)
		}
	}
	// An open prompt is not released; an answered one is.
	a := NewActivity(ActivityOptions{ReportsStart: true, EscInterrupts: true, CLI: "Lin"})
	a.Launched()
	apply(t, a, hkSessionStart)
	apply(t, a, hkPreBash)
	apply(t, a, hkPermBash)
	if was := a.Release(); was.Kind != HoldByPrompt || a.Hold().Kind != HoldByPrompt {
		t.Fatalf("release at an open prompt: was %v, now %v", was, a.Hold())
	}
	a.PersonKeys([]byte("3")) // declined by number: no hook says so
	if was := a.Release(); was.Kind != HoldByTool || a.Hold().Held() {
		t.Fatalf("release after the answer: was %v, now %v", was, a.Hold())
	}
}

// Claude (AnsweredToTurnEnd): after "Yes" the posts wait for the turn's
// end, not the tool's (docs/decisions.md "When a held post is
// released"); Codex's manners keep the release at the tool's end.
func TestAnsweredPromptHoldsUntilTheTurnEnds(t *testing.T) {
	t.Parallel()
	for _, toTurnEnd := range []bool{true, false} {
		a := NewActivity(ActivityOptions{ReportsStart: true, EscInterrupts: true, CLI: "Lin", AnsweredToTurnEnd: toTurnEnd})
		a.Launched()
		apply(t, a, hkSessionStart)
		apply(t, a, hkPrompt)
		apply(t, a, hkPreBash)
		apply(t, a, hkPermBash)
		a.PersonKeys([]byte("\r"))
		snap := apply(t, a, hkPostBash)
		if held := snap.HoldKind == HoldByTool && strings.Contains(snap.Hold, "to end its turn"); held != toTurnEnd {
			t.Fatalf("AnsweredToTurnEnd %v: after PostToolUse the hold is %q (%s)", toTurnEnd, snap.Hold, snap.HoldKind)
		}
		if ok, why := a.Begin(); ok == toTurnEnd {
			t.Fatalf("AnsweredToTurnEnd %v: Begin %v (%v)", toTurnEnd, ok, why)
		} else if ok {
			a.End()
		}
		if snap := apply(t, a, hkStop); snap.Hold != "" {
			t.Fatalf("still held after Stop: %q", snap.Hold)
		}
	}
	// Esc in the pane ends that hold (it interrupts Claude's turn).
	a := NewActivity(ActivityOptions{ReportsStart: true, EscInterrupts: true, CLI: "Lin", AnsweredToTurnEnd: true})
	a.Launched()
	apply(t, a, hkSessionStart)
	apply(t, a, hkPrompt)
	apply(t, a, hkPreBash)
	apply(t, a, hkPermBash)
	a.PersonKeys([]byte("\r"))
	apply(t, a, hkPostBash)
	a.PersonKeys([]byte{0x1b})
	if h := a.Hold(); !strings.Contains(h.Text, "ending the interrupted turn") {
		t.Fatalf("after Esc: %v", h)
	}
}

// A post's \r waits TurnEndSettle after Stop.
func TestSubmitWaitsAfterTheTurnEnds(t *testing.T) {
	t.Parallel()
	clock := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	a := NewActivity(ActivityOptions{ReportsStart: true, CLI: "Lin", Now: clock.Now, TurnEndSettle: 250 * time.Millisecond})
	a.Launched()
	if d := a.SubmitWait(); d != 0 {
		t.Fatalf("before any turn: %v", d)
	}
	apply(t, a, hkStop)
	clock.Add(100 * time.Millisecond)
	if d := a.SubmitWait(); d != 150*time.Millisecond {
		t.Fatalf("100 ms after Stop: %v", d)
	}
	clock.Add(200 * time.Millisecond)
	if d := a.SubmitWait(); d != 0 {
		t.Fatalf("300 ms after Stop: %v", d)
	}
}

// With unsent keys and an open prompt both, the typist shows the prompt
// (the one the person acts on first), then the unsent keys once it ends.
func TestTypistShowsTheFirstReason(t *testing.T) {
	t.Parallel()
	ty := NewTypist(TypistOptions{Location: tokyo, Sleep: func(ctx context.Context, d time.Duration) error { return ctx.Err() }})
	t.Cleanup(ty.Close)
	a := NewActivity(ActivityOptions{ReportsStart: true, CLI: "Lin"})
	a.Launched()
	apply(t, a, hkSessionStart)
	apply(t, a, hkPreBash)
	apply(t, a, hkPermBash)
	term := newFakeTerm()
	term.setPending(true)
	ty.AttachGated("t", "a", term, a)
	ty.Deliver("t", roomPost("m1", "Kai", "hello"), "admin", []string{"a"})
	waitHeldN(t, ty, 1, "waiting for your permission")
	if _, why := ty.HeldReason("t", "a"); why.Kind != HoldByPrompt {
		t.Fatalf("reason %+v", why)
	}
	apply(t, a, hkPostBash)
	waitHeldN(t, ty, 1, HoldUnsent)
	term.setPending(false)
	if got := <-term.typed; !strings.Contains(got, "hello") {
		t.Fatalf("typed %q", got)
	}
}

// Each kind's clear keys: Ctrl-U per line, a Backspace joining each line
// to the one before; none for a kind with no key measured safe.
func TestClearKeys(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind Kind
		text string
		keys string
		ok   bool
	}{
		{KindClaudeCode, "abc", "\x15", true},
		{KindCodex, "first\nsecond", "\x15\x7f\x15", true},
		{KindClaudeCode, "a\r\nb\rc", "\x15\x7f\x15\x7f\x15", true},
		{KindCLI, "abc", "", false},
	} {
		keys, ok := tc.kind.ClearKeys(tc.text)
		if string(keys) != tc.keys || ok != tc.ok {
			t.Errorf("%s %q: %q %v, want %q %v", tc.kind, tc.text, keys, ok, tc.keys, tc.ok)
		}
	}
	if q := QuoteUnsent("a\x1b[31mb\nc" + strings.Repeat("x", 40)); q != "'a[31mb c"+strings.Repeat("x", 15)+"…'" {
		t.Errorf("QuoteUnsent: %q", q)
	}
}
