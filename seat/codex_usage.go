package seat

// A Codex seat's usage figures, read from its rollout file (transcript.go
// says where it is). Codex 0.171.0 writes, as JSON lines (measured with the
// real CLI against a scripted endpoint; seat/testdata/codex_usage holds two
// of those rollouts):
//
//   - turn_context (one per turn): payload.model, payload.effort (only when
//     a reasoning effort is set; also collaboration_mode.settings
//     .reasoning_effort); event_msg thread_settings_applied carries
//     thread_settings.model and .reasoning_effort likewise. session_meta has
//     no model in 0.171.0 (model_provider only); one that has is read too.
//   - event_msg token_count: info {total_token_usage, last_token_usage
//     {input_tokens, cached_input_tokens, output_tokens,
//     reasoning_output_tokens, total_tokens, …}, model_context_window} and
//     rate_limits {primary, secondary: {used_percent, window_minutes,
//     resets_at (epoch s)}, …}, any of which may be null (rate_limits are
//     null without Codex's x-codex-primary-*/secondary-* headers).
//   - event_msg task_complete with error {message, codex_error_info:
//     "usage_limit_exceeded"} when a turn stopped at the usage limit (after
//     a token_count carrying the 429's rate limits, the full window at 100).
//
// Only these lines are decoded; everything else (the conversation) is
// skipped unread beyond finding its end.

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"time"

	"pullcept/room/wire"
)

// codexUsageMaxLine bounds a rollout line kept in memory; a longer line
// (a big tool output: never a line the figures are in) is skipped.
const codexUsageMaxLine = 1 << 20

// codexUsageChunk is how much of the file one read takes.
const codexUsageChunk = 64 << 10

// Window lengths Codex reports (window_minutes).
const (
	codexFiveHourMinutes = 300
	codexSevenDayMinutes = 7 * 24 * 60
)

// watchCodexSessionUsage finds the rollout of Codex session id under root
// (waiting for it, polling every CodexPollInterval) and follows it with
// watchCodexUsage until ctx ends.
func watchCodexSessionUsage(ctx context.Context, root, id string, report func(wire.UsageReport), aborted func()) {
	tick := time.NewTicker(CodexPollInterval)
	defer tick.Stop()
	for {
		if path, ok, _ := FindCodexRollout(root, id); ok {
			watchCodexUsage(ctx, path, report, aborted)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// watchCodexUsage follows the rollout file at path from its start until ctx
// ends, calling report (from this goroutine) with the figures it finds. The
// file may not exist yet: it is looked for every CodexPollInterval, and once
// open its size is polled at that interval and only the new bytes are read.
// Whole lines only are taken (a torn last line waits for its end), a line
// over 1 MiB or not understood is skipped: bad input never stops it. What
// the file already holds when it is first opened (a resumed session's past
// turns) is folded into one report of its latest figures, leaving out what
// is over (a window whose reset passed, a limit that lifted or was followed
// by another turn); after that each line with figures is one report. When
// ctx ends it reads once more, so lines written just before the process
// ended are not missed, and returns.
func watchCodexUsage(ctx context.Context, path string, report func(wire.UsageReport), aborted func()) {
	t := &codexUsageTail{path: path, report: report, aborted: aborted, now: time.Now}
	defer t.close()
	tick := time.NewTicker(CodexPollInterval)
	defer tick.Stop()
	for {
		t.poll()
		select {
		case <-ctx.Done():
			t.poll()
			return
		case <-tick.C:
		}
	}
}

// codexUsageTail is the state of one follow.
type codexUsageTail struct {
	path    string
	report  func(wire.UsageReport)
	aborted func() // an interrupted turn's end (turn_aborted) was written; nil: not asked
	now     func() time.Time

	f        *os.File
	off      int64
	backlog  int64 // the size when first opened: bytes to fold
	folding  bool
	partial  []byte // the torn last line so far
	skipping bool   // inside an over-long line, until its newline
	buf      []byte

	pending       wire.UsageReport
	model, effort string            // last reported
	windows       []codexRateWindow // of the latest token_count with rate limits
}

// codexMaxEpoch is the last second RFC 3339 can write (9999-12-31); a
// later resets_at is no time.
const codexMaxEpoch = 253402300799

// codexRateWindow is one rate-limit window as Codex writes it.
type codexRateWindow struct {
	UsedPercent   *float64 `json:"used_percent"`
	WindowMinutes *float64 `json:"window_minutes"`
	ResetsAt      *float64 `json:"resets_at"`
}

func (w codexRateWindow) resets() (time.Time, bool) {
	if w.ResetsAt == nil || *w.ResetsAt <= 0 || *w.ResetsAt > codexMaxEpoch {
		return time.Time{}, false
	}
	return time.Unix(int64(*w.ResetsAt), 0), true
}

func (t *codexUsageTail) close() {
	if t.f != nil {
		t.f.Close()
	}
}

// poll reads what was appended since the last poll.
func (t *codexUsageTail) poll() {
	if t.f == nil {
		f, err := os.Open(t.path)
		if err != nil {
			return // not there yet
		}
		info, err := f.Stat()
		if err != nil || !info.Mode().IsRegular() {
			f.Close()
			return
		}
		t.f, t.backlog, t.folding = f, info.Size(), true
	}
	info, err := t.f.Stat()
	if err != nil {
		return
	}
	size := info.Size()
	if size < t.off { // cut short: read it again from the start
		t.off, t.partial, t.skipping = 0, nil, false
	}
	if t.buf == nil {
		t.buf = make([]byte, codexUsageChunk)
	}
	if t.folding {
		t.readTo(min(size, t.backlog))
		if t.off < t.backlog {
			return // the rest of the past next time
		}
		t.folding = false
		t.flush(true)
	}
	t.readTo(size)
}

// readTo reads the file up to offset end.
func (t *codexUsageTail) readTo(end int64) {
	for t.off < end {
		n, err := t.f.ReadAt(t.buf[:min(int64(len(t.buf)), end-t.off)], t.off)
		t.off += int64(n)
		t.feed(t.buf[:n])
		if n == 0 || err != nil && !errors.Is(err, io.EOF) {
			return
		}
	}
}

// feed splits bytes into lines.
func (t *codexUsageTail) feed(b []byte) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			if !t.skipping {
				if len(t.partial)+len(b) > codexUsageMaxLine {
					t.partial, t.skipping = nil, true
				} else {
					t.partial = append(t.partial, b...)
				}
			}
			return
		}
		seg := b[:i]
		b = b[i+1:]
		if t.skipping {
			t.skipping = false
			continue
		}
		if len(t.partial)+len(seg) > codexUsageMaxLine {
			t.partial = nil
			continue
		}
		line := seg
		if len(t.partial) > 0 {
			line = append(t.partial, seg...)
		}
		t.line(bytes.TrimSuffix(line, []byte("\r")))
		if cap(t.partial) > codexUsageChunk {
			t.partial = nil // a big line's buffer is not kept
		} else {
			t.partial = t.partial[:0]
		}
	}
}

// codexUsageMarks are the strings a line with figures holds; others are
// not decoded.
var codexUsageMarks = [][]byte{[]byte(`"token_count"`), []byte(`"turn_context"`), []byte(`"task_complete"`),
	[]byte(`"task_started"`), []byte(`"thread_settings_applied"`), []byte(`"session_meta"`), []byte(`"turn_aborted"`)}

// codexUsageLine is what is read of a rollout line.
type codexUsageLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type string `json:"type"`
		// turn_context, session_meta
		Model             string `json:"model"`
		Effort            string `json:"effort"`
		ReasoningEffort   string `json:"reasoning_effort"`
		CollaborationMode *struct {
			Settings struct {
				Model           string `json:"model"`
				ReasoningEffort string `json:"reasoning_effort"`
			} `json:"settings"`
		} `json:"collaboration_mode"`
		// event_msg thread_settings_applied
		ThreadSettings *struct {
			Model           string `json:"model"`
			ReasoningEffort string `json:"reasoning_effort"`
		} `json:"thread_settings"`
		// event_msg token_count
		Info *struct {
			LastTokenUsage *struct {
				TotalTokens *float64 `json:"total_tokens"`
			} `json:"last_token_usage"`
			ModelContextWindow *float64 `json:"model_context_window"`
		} `json:"info"`
		RateLimits *struct {
			Primary   *codexRateWindow `json:"primary"`
			Secondary *codexRateWindow `json:"secondary"`
		} `json:"rate_limits"`
		// event_msg task_complete
		Error *struct {
			Message        string          `json:"message"`
			CodexErrorInfo json.RawMessage `json:"codex_error_info"`
		} `json:"error"`
	} `json:"payload"`
}

// line takes one whole line.
func (t *codexUsageTail) line(b []byte) {
	marked := false
	for _, m := range codexUsageMarks {
		if bytes.Contains(b, m) {
			marked = true
			break
		}
	}
	if !marked {
		return
	}
	var l codexUsageLine
	if json.Unmarshal(b, &l) != nil {
		// Not JSON, or one of the fields read is of another type (a
		// partly decoded line can hold zeros that were never written).
		return
	}
	p := &l.Payload
	switch {
	case l.Type == "turn_context" || l.Type == "session_meta":
		model, effort := p.Model, p.Effort
		if c := p.CollaborationMode; c != nil {
			model, effort = cmp.Or(model, c.Settings.Model), cmp.Or(effort, c.Settings.ReasoningEffort)
		}
		t.setModel(model, cmp.Or(effort, p.ReasoningEffort))
	case l.Type != "event_msg":
	case p.Type == "thread_settings_applied":
		if s := p.ThreadSettings; s != nil {
			t.setModel(s.Model, s.ReasoningEffort)
		}
	case p.Type == "token_count":
		t.tokenCount(&l)
	case p.Type == "task_started":
		t.pending.Limit = nil // a turn after the limit: it lifted
	case p.Type == "turn_aborted":
		// Only a new one: the past of a resumed session ended long ago.
		if !t.folding && t.aborted != nil {
			t.aborted()
		}
	case p.Type == "task_complete":
		if e := p.Error; e != nil && codexUsageLimitHit(e.CodexErrorInfo) {
			t.pending.Limit = &wire.UsageLimit{Until: t.limitUntil(), Message: e.Message}
		} else {
			t.pending.Limit = nil
		}
	}
	if !t.folding {
		t.flush(false)
	}
}

func (t *codexUsageTail) setModel(model, effort string) {
	if model == "" || model == t.model && effort == t.effort {
		return
	}
	t.model, t.effort = model, effort
	t.pending.Model, t.pending.Effort = model, effort
}

// codexUsageLimitHit says whether codex_error_info names the usage limit
// ("usage_limit_exceeded"; an object keyed by it is taken too).
func codexUsageLimitHit(raw json.RawMessage) bool {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s == "usage_limit_exceeded"
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		_, ok := m["usage_limit_exceeded"]
		return ok
	}
	return false
}

// tokenCount takes a token_count entry.
func (t *codexUsageTail) tokenCount(l *codexUsageLine) {
	p := &l.Payload
	if i := p.Info; i != nil && i.LastTokenUsage != nil && i.LastTokenUsage.TotalTokens != nil && i.ModelContextWindow != nil {
		// The share of the context window the conversation fills now:
		// last_token_usage is the latest request, whose total_tokens (its
		// whole input, cached or not, plus its output, which the next
		// request carries as input) is what the context holds
		// (codex-rs TokenUsage::tokens_in_context_window). total_token_usage
		// is the session's running sum, not a size. Codex's own footer
		// shows "N% left" after also taking a fixed 12,000-token baseline
		// off both sides (BASELINE_TOKENS); the raw share is reported here
		// as Claude's used_percentage is. An empty usage or an unknown
		// window is no figure.
		used, window := *i.LastTokenUsage.TotalTokens, *i.ModelContextWindow
		if used > 0 && window > 0 {
			c := min(100*used/window, 100)
			t.pending.Context = &c
		}
	}
	rl := p.RateLimits
	if rl == nil || rl.Primary == nil && rl.Secondary == nil {
		return
	}
	t.windows = t.windows[:0]
	// Each window by its length; one of another length by its place
	// (primary the short one, secondary the long one) when that slot is
	// free.
	var slots [2]*codexRateWindow
	given := []*codexRateWindow{rl.Primary, rl.Secondary}
	for _, w := range given {
		if w == nil || w.WindowMinutes == nil {
			continue
		}
		switch *w.WindowMinutes {
		case codexFiveHourMinutes:
			slots[0] = cmp.Or(slots[0], w)
		case codexSevenDayMinutes:
			slots[1] = cmp.Or(slots[1], w)
		}
	}
	for i, w := range given {
		if w == nil {
			continue
		}
		t.windows = append(t.windows, *w)
		if m := w.WindowMinutes; (m == nil || *m != codexFiveHourMinutes && *m != codexSevenDayMinutes) && slots[i] == nil {
			slots[i] = w
		}
	}
	for i, w := range slots {
		if w == nil || w.UsedPercent == nil || *w.UsedPercent < 0 { // a negative share is no figure
			continue
		}
		ww := &wire.Window{UsedPercentage: *w.UsedPercent}
		if r, ok := w.resets(); ok {
			ww.ResetsAt = r.UTC().Format(time.RFC3339)
		}
		if i == 0 {
			t.pending.FiveHour = ww
		} else {
			t.pending.SevenDay = ww
		}
	}
}

// limitUntil is when a usage limit hit now lifts, from the latest
// token_count that had rate limits: the latest reset of the windows that
// are full (at 100 % or more), else the nearest reset to come; zero when
// none is known.
func (t *codexUsageTail) limitUntil() time.Time {
	now := t.now()
	var full, next time.Time
	for _, w := range t.windows {
		r, ok := w.resets()
		if !ok {
			continue
		}
		// A full window's reset that passed: in the past it dates the
		// limit (which then lifted); live it is a stale figure, left out.
		if w.UsedPercent != nil && *w.UsedPercent >= 100 && r.After(full) && (t.folding || r.After(now)) {
			full = r
		}
		if r.After(now) && (next.IsZero() || r.Before(next)) {
			next = r
		}
	}
	if !full.IsZero() {
		return full
	}
	return next
}

// flush reports what is pending, without what is over: a window whose
// reset time passed (its percentage is of a window that ended) and, when
// past (the folded lines that were there at the start), a limit not known
// to hold still.
func (t *codexUsageTail) flush(past bool) {
	r := t.pending
	t.pending = wire.UsageReport{}
	now := t.now()
	over := func(w *wire.Window) bool {
		if w == nil || w.ResetsAt == "" {
			return false
		}
		at, err := time.Parse(time.RFC3339, w.ResetsAt)
		return err == nil && !at.After(now)
	}
	if over(r.FiveHour) {
		r.FiveHour = nil
	}
	if over(r.SevenDay) {
		r.SevenDay = nil
	}
	if r.Limit != nil && past && !r.Limit.Until.After(now) {
		r.Limit = nil // from the past turns: lifted, or not known to hold
	}
	if !r.Empty() {
		t.report(r)
	}
}

// watchUsage follows the figures of a Codex seat's session id in its
// rollout, reporting them to OnUsage, until ctx ends (the seat's process
// ended). Other kinds, a manager without OnUsage and an unknown id are left
// alone.
func (m *Manager) watchUsage(ctx context.Context, s *Seat, root, id string) {
	if s.Account.Kind != KindCodex || id == "" || root == "" {
		return
	}
	topic, account := s.Topic, s.Account.ID
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		watchCodexSessionUsage(ctx, root, id, func(r wire.UsageReport) {
			if m.o.OnUsage != nil {
				m.o.OnUsage(topic, account, r)
			}
		}, s.Activity.TurnAborted)
	}()
}
