package sidecar

// The say_to_room result's own block (spec 003 投稿結果の利用量フィードバック
// #385): after the delivered/refused text, who the seat is, the time now,
// and its usage as last reported — each figure with when it was received —
// in my_usage's wording. The figures come with the post's answer (the room
// reads them after the outcome); only a call that got no answer asks for
// them with my_usage's request. Reading them never changes the post's
// outcome, isError, last_seen or draft.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"pullcept/ids"
	"pullcept/room/wire"
)

// withUsage appends the block to r's text (r's isError stays as it is).
// answer is the post's answer, nil when none came (nothing was sent, or
// the room did not answer): then the figures are asked for.
func (s *Sidecar) withUsage(ctx context.Context, r *mcp.CallToolResult, answer *wire.PostResult) *mcp.CallToolResult {
	var res *wire.UsageResult
	var err error
	switch {
	case answer == nil:
		res, err = s.readUsage(ctx)
	case answer.Usage == nil:
		err = errors.New("the room's answer carried none")
	default:
		res = answer.Usage
	}
	return appendText(r, s.usageBlock(res, err))
}

// usageBlock is the block itself; the time is computed at each call.
func (s *Sidecar) usageBlock(res *wire.UsageResult, err error) string {
	var b strings.Builder
	b.WriteString("— " + s.self().selfText())
	now := s.now()
	fmt.Fprintf(&b, "\nnow: %s", wire.LocalMinute(now, s.loc))
	switch {
	case err != nil:
		fmt.Fprintf(&b, "\nyour usage: unknown (%v)", err)
	case res.Error != "":
		fmt.Fprintf(&b, "\nyour usage: unknown (%s)", res.Error)
	default:
		b.WriteString("\nyour usage, as last reported (not live):")
		window := func(label string, w *wire.Window) {
			b.WriteString("\n  " + label + ": ")
			if w == nil {
				b.WriteString("not reported")
				return
			}
			b.WriteString(percent(w.UsedPercentage) + "% used")
			if w.ResetsAt != "" {
				b.WriteString(", resets " + localTime(w.ResetsAt, s.loc))
			} else {
				b.WriteString(", reset time not reported")
			}
			b.WriteString(received(w.ReceivedAt, now, s.loc))
		}
		window("5h", res.FiveHour)
		window("7d", res.SevenDay)
		b.WriteString("\n  context: ")
		if c := res.Context; c != nil {
			b.WriteString(percent(c.UsedPercentage) + "% used" + received(c.ReceivedAt, now, s.loc))
		} else {
			b.WriteString("not reported")
		}
	}
	return b.String()
}

// readUsage asks the room for this seat's figures, waiting at most
// wire.UsageWait.
func (s *Sidecar) readUsage(ctx context.Context) (*wire.UsageResult, error) {
	if s.room == nil {
		return nil, fmt.Errorf("not connected to the room")
	}
	ctx, cancel := context.WithTimeout(ctx, wire.UsageWait)
	defer cancel()
	id := ids.Random()
	v, err := s.room.request(ctx, reqKey(id), wire.UsageFrame{Type: wire.TypeUsage, RequestID: id})
	if err != nil {
		return nil, fmt.Errorf("could not read it: %v", err)
	}
	return v.(*wire.UsageResult), nil
}

// received says when a figure was received and how long ago.
func received(at string, now time.Time, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return ""
	}
	return fmt.Sprintf(" (received %s, %s)", wire.LocalMinute(t, loc), ago(now.Sub(t)))
}

// ago is an age in minutes (hours past two hours).
func ago(d time.Duration) string {
	m := int(d / time.Minute)
	switch {
	case m < 0:
		return "0 min ago"
	case m < 120:
		return fmt.Sprintf("%d min ago", m)
	default:
		return fmt.Sprintf("%d h ago", m/60)
	}
}
