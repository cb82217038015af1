package sidecar_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pullcept/room/wire"
	"pullcept/sidecar"
)

// say_to_room's result carries the seat's own block (spec 003 #385): who
// it is, the time now, its figures as last reported with their received
// times and ages, "not reported" for what never came; the post's outcome
// and isError are as without it.
func TestSayResultCarriesTheSeatsOwnUsage(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-r")
	lin := h.join("Lin", "topic-r", sidecar.EnvAccountID, "acc-lin", sidecar.EnvAgentFullName, "Lin Wei")
	anon := h.join("Anon", "topic-r")
	loc := time.Local
	now := h.now.Add(12*time.Minute + 30*time.Second) // the sidecars' clock

	text, isErr := lin.call(t, sidecar.ToolSay, map[string]any{"content": "first"})
	if isErr || !strings.HasPrefix(text, sidecar.DeliveredPrefix) {
		t.Fatalf("delivered: %v %q", isErr, text)
	}
	for _, want := range []string{"\n\n— you: Lin (full name: Lin Wei)\n", "now: " + wire.LocalMinute(now, loc),
		"your usage, as last reported (not live):", "  5h: not reported", "  7d: not reported", "  context: not reported"} {
		if !strings.Contains(text, want) {
			t.Errorf("before any figures: %q lacks %q", text, want)
		}
	}

	ctx := 42.5
	h.e.Usage().Record("topic-r", "acc-lin", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 85, ResetsAt: "2026-10-10T10:05:00Z"}}, h.now)
	h.e.Usage().Record("topic-r", "acc-lin", wire.UsageReport{Context: &ctx}, h.now.Add(10*time.Minute))
	id, _ := sidecar.DeliveredID(text)
	text, isErr = lin.call(t, sidecar.ToolSay, map[string]any{"content": "second", "last_seen": id})
	if isErr {
		t.Fatalf("second: %q", text)
	}
	five := fmt.Sprintf("  5h: 85%% used, resets %s (received %s, 12 min ago)", wire.LocalMinute(time.Date(2026, 10, 10, 10, 5, 0, 0, time.UTC), loc), wire.LocalMinute(h.now, loc))
	cx := fmt.Sprintf("  context: 42.5%% used (received %s, 2 min ago)", wire.LocalMinute(h.now.Add(10*time.Minute), loc))
	for _, want := range []string{five, "  7d: not reported", cx} {
		if !strings.Contains(text, want) {
			t.Errorf("with figures: %q lacks %q", text, want)
		}
	}

	// A refusal stays an error, draft and all, with the block after it.
	text, isErr = anon.call(t, sidecar.ToolSay, map[string]any{"content": "late", "last_seen": id})
	if !isErr || !strings.HasPrefix(text, "Not delivered") || !strings.Contains(text, "Your text is kept as a draft") {
		t.Fatalf("refused: %v %q", isErr, text)
	}
	if !strings.Contains(text, "— you: Anon\n") || !strings.Contains(text, "your usage: unknown (this connection has no account") {
		t.Errorf("an account-less seat's block: %q", text)
	}
}

// my_usage dates the windows by their own received time: a context report
// since does not make them look new.
func TestMyUsageDatesTheWindows(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-w")
	lin := h.join("Lin", "topic-w", sidecar.EnvAccountID, "acc-lin")
	h.e.Usage().Record("topic-w", "acc-lin", wire.UsageReport{SevenDay: &wire.Window{UsedPercentage: 40}}, h.now)
	ctx := 10.0
	h.e.Usage().Record("topic-w", "acc-lin", wire.UsageReport{Context: &ctx}, h.now.Add(12*time.Minute))
	text, isErr := lin.call(t, sidecar.ToolUsage, nil)
	want := fmt.Sprintf("5h: not reported\n7d: 40%% used\nreceived %s (12 min ago)\n\n— you: Lin", wire.LocalMinute(h.now, time.Local))
	if isErr || text != want {
		t.Fatalf("my_usage:\n got %q\nwant %q", text, want)
	}
}
