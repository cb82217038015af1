package seat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pullcept/room/wire"
)

// Codex (AbortReported): after an Interrupt the seat stays held until the
// rollout says the turn was aborted, at least SettleTime and at most
// SettleMax. A post typed before that went back into Codex's composer.
func TestCodexSettleLastsUntilTheTurnIsAborted(t *testing.T) {
	held := func(a *Activity) bool { return strings.Contains(a.Snapshot().Hold, "ending the interrupted turn") }
	start := func(t *testing.T) (*Activity, *fakeClock) {
		clock := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
		a := NewActivity(ActivityOptions{AbortReported: true, CLI: "Lay", Now: clock.Now})
		a.Launched()
		apply(t, a, hkCodexInterrupt)
		if !held(a) {
			t.Fatalf("not held after the Interrupt: %+v", a.Snapshot())
		}
		return a, clock
	}
	t.Run("aborted after SettleTime", func(t *testing.T) {
		a, clock := start(t)
		clock.Add(SettleTime)
		if !held(a) {
			t.Fatalf("released after %v though the turn is not reported aborted", SettleTime)
		}
		a.TurnAborted()
		if held(a) || a.Snapshot().Signal != SignalTurnAborted {
			t.Fatalf("still held, or another signal, after TurnAborted: %+v", a.Snapshot())
		}
		if ok, _ := a.Begin(); !ok {
			t.Fatal("Begin refused once the turn was aborted")
		}
		a.End()
	})
	t.Run("aborted before SettleTime", func(t *testing.T) {
		a, clock := start(t)
		a.TurnAborted()
		if !held(a) {
			t.Fatal("released before SettleTime")
		}
		clock.Add(SettleTime)
		if held(a) {
			t.Fatal("held after SettleTime and the abort")
		}
	})
	t.Run("never reported", func(t *testing.T) {
		a, clock := start(t)
		clock.Add(SettleMax - time.Millisecond)
		if !held(a) {
			t.Fatal("released before SettleMax with no abort reported")
		}
		clock.Add(time.Millisecond)
		if held(a) {
			t.Fatal("held after SettleMax")
		}
	})
	t.Run("a new turn ends it", func(t *testing.T) {
		a, clock := start(t)
		clock.Add(SettleTime)
		apply(t, a, hkPrompt)
		if held(a) {
			t.Fatalf("held for the interrupted turn after a new prompt: %+v", a.Snapshot())
		}
	})
	t.Run("a kind that reports no abort settles after SettleTime", func(t *testing.T) {
		clock := &fakeClock{t: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
		a := NewActivity(ActivityOptions{CLI: "Lay", Now: clock.Now})
		a.Launched()
		apply(t, a, hkCodexInterrupt)
		clock.Add(SettleTime)
		if held(a) {
			t.Fatal("held after SettleTime without AbortReported")
		}
	})
}

// The rollout's turn_aborted lines written while it is followed are
// reported; the ones already in it (a resumed session's past) are not.
func TestWatchCodexRolloutReportsTurnAborted(t *testing.T) {
	fastCodexPoll(t)
	path := filepath.Join(t.TempDir(), "rollout.jsonl")
	aborted := `{"type":"event_msg","payload":{"type":"turn_aborted","reason":"interrupted","turn_id":"t1","duration_ms":5}}` + "\n"
	backlog := tokenCount(`{"last_token_usage":{"total_tokens":1},"model_context_window":4}`, `null`) + aborted
	if err := os.WriteFile(path, []byte(backlog), 0o600); err != nil {
		t.Fatal(err)
	}
	calls := make(chan struct{}, 10)
	reports := make(chan wire.UsageReport, 10)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		watchCodexUsage(ctx, path, func(r wire.UsageReport) { reports <- r }, func() { calls <- struct{}{} })
	}()
	t.Cleanup(func() { cancel(); <-done })
	awaitReport(t, reports) // the backlog, folded into one report
	if n := len(calls); n != 0 {
		t.Fatalf("the backlog's turn_aborted was reported (%d)", n)
	}
	appendFile(t, path, aborted)
	select {
	case <-calls:
	case <-time.After(10 * time.Second):
		t.Fatal("the new turn_aborted was not reported")
	}
	cancel()
	<-done
	if n := len(calls); n != 0 {
		t.Fatalf("%d more reports of one new turn_aborted", n)
	}
}
