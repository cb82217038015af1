package seat

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"pullcept/room/wire"
	"pullcept/topicstore"
)

// The real rollouts (Codex 0.171.0 exec against a scripted endpoint that
// sends x-codex-primary/secondary-* headers; base instructions and long
// prompts trimmed, see testdata/codex_usage/README.md).
const (
	// limitRollout: one turn with primary 42.5 % (300 min) and secondary
	// 12 % (10080 min), then a turn stopped by a 429 usage_limit_reached
	// with primary at 100 %.
	limitRollout = "testdata/codex_usage/limit-0.171.0.jsonl"
	// effortRollout: model_reasoning_effort="high", no rate-limit headers.
	effortRollout = "testdata/codex_usage/effort-0.171.0.jsonl"
)

// The limit rollout's figures.
var (
	limitStarted = time.Date(2026, 12, 1, 12, 5, 50, 0, time.UTC) // before its resets
	limitContext = 100 * 12500.0 / 258400
	limitMessage = "You\u2019ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro), visit https://chatgpt.com/settings/usage to purchase more credits or try again at 2:05 PM."
)

func ptr[T any](v T) *T { return &v }

// cuTail is a tail on a file in a temp dir, polled by hand.
type cuTail struct {
	t       *testing.T
	path    string
	tail    *codexUsageTail
	reports []wire.UsageReport
}

func newCUTail(t *testing.T, now time.Time) *cuTail {
	t.Helper()
	c := &cuTail{t: t, path: filepath.Join(t.TempDir(), "rollout.jsonl")}
	c.tail = &codexUsageTail{path: c.path, now: func() time.Time { return now },
		report: func(r wire.UsageReport) { c.reports = append(c.reports, r) }}
	t.Cleanup(c.tail.close)
	return c
}

// append adds b to the file.
func (c *cuTail) append(b []byte) {
	c.t.Helper()
	f, err := os.OpenFile(c.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		c.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// take polls and returns the reports since the last take.
func (c *cuTail) take() []wire.UsageReport {
	c.tail.poll()
	r := c.reports
	c.reports = nil
	return r
}

// live opens the (empty) file, so what is appended next is followed line
// by line rather than folded.
func (c *cuTail) live() *cuTail {
	c.append(nil)
	if r := c.take(); len(r) != 0 {
		c.t.Fatalf("empty file reported %v", r)
	}
	return c
}

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func same(t *testing.T, what string, got, want []wire.UsageReport) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %s\nwant %s", what, showReports(got), showReports(want))
	}
}

func showReports(rs []wire.UsageReport) string {
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "\n  {model %q effort %q", r.Model, r.Effort)
		if r.FiveHour != nil {
			fmt.Fprintf(&b, " 5h %+v", *r.FiveHour)
		}
		if r.SevenDay != nil {
			fmt.Fprintf(&b, " 7d %+v", *r.SevenDay)
		}
		if r.Context != nil {
			fmt.Fprintf(&b, " ctx %v", *r.Context)
		}
		if r.Limit != nil {
			fmt.Fprintf(&b, " limit %v %q", r.Limit.Until.UTC(), r.Limit.Message)
		}
		b.WriteString("}")
	}
	return b.String()
}

// limitLive is what following the limit rollout line by line reports.
func limitLive() []wire.UsageReport {
	return []wire.UsageReport{
		{Model: "fake-model"}, // turn_context (thread_settings_applied says the same)
		{FiveHour: &wire.Window{UsedPercentage: 42.5, ResetsAt: "2026-12-01T14:05:53Z"},
			SevenDay: &wire.Window{UsedPercentage: 12, ResetsAt: "2026-12-04T12:05:53Z"}, Context: ptr(limitContext)},
		// the second turn: its settings are the same, so no model report
		{FiveHour: &wire.Window{UsedPercentage: 100, ResetsAt: "2026-12-01T14:05:54Z"},
			SevenDay: &wire.Window{UsedPercentage: 12, ResetsAt: "2026-12-04T12:05:54Z"}, Context: ptr(limitContext)},
		{Limit: &wire.UsageLimit{Until: time.Unix(1796133954, 0), Message: limitMessage}},
	}
}

func TestCodexUsageRealRolloutLive(t *testing.T) {
	c := newCUTail(t, limitStarted).live()
	c.append(readTestdata(t, limitRollout))
	same(t, "limit rollout", c.take(), limitLive())

	c = newCUTail(t, limitStarted).live()
	c.append(readTestdata(t, effortRollout))
	same(t, "effort rollout (rate_limits null)", c.take(), []wire.UsageReport{
		{Model: "fake-model", Effort: "high"},
		{Context: ptr(limitContext)},
	})
}

// What the file holds when first opened is one report of the latest
// figures, without those that are over.
func TestCodexUsageFoldsThePast(t *testing.T) {
	c := newCUTail(t, limitStarted)
	c.append(readTestdata(t, limitRollout))
	same(t, "folded before the resets", c.take(), []wire.UsageReport{{
		Model:    "fake-model",
		FiveHour: &wire.Window{UsedPercentage: 100, ResetsAt: "2026-12-01T14:05:54Z"},
		SevenDay: &wire.Window{UsedPercentage: 12, ResetsAt: "2026-12-04T12:05:54Z"},
		Context:  ptr(limitContext),
		Limit:    &wire.UsageLimit{Until: time.Unix(1796133954, 0), Message: limitMessage},
	}})
	// Appended afterwards: followed line by line.
	c.append([]byte(tokenCount(`{"last_token_usage":{"total_tokens":25840},"model_context_window":258400}`, `null`)))
	same(t, "after the fold", c.take(), []wire.UsageReport{{Context: ptr(10.0)}})

	// Opened after the 5-hour reset: that window and the limit are over.
	c = newCUTail(t, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	c.append(readTestdata(t, limitRollout))
	same(t, "folded after the 5-hour reset", c.take(), []wire.UsageReport{{
		Model:    "fake-model",
		SevenDay: &wire.Window{UsedPercentage: 12, ResetsAt: "2026-12-04T12:05:54Z"},
		Context:  ptr(limitContext),
	}})

	// A limit followed by another turn has lifted, even before its time.
	c = newCUTail(t, limitStarted)
	c.append(readTestdata(t, limitRollout))
	c.append([]byte(`{"type":"event_msg","payload":{"type":"task_started","turn_id":"x"}}` + "\n"))
	if r := c.take(); len(r) != 1 || r[0].Limit != nil {
		t.Errorf("a limit followed by a turn was reported: %s", showReports(r))
	}
	// A past limit whose end is unknown is not reported either.
	c = newCUTail(t, limitStarted)
	c.append([]byte(taskLimit("stopped")))
	if r := c.take(); len(r) != 0 {
		t.Errorf("a past limit of unknown end was reported: %s", showReports(r))
	}
}

// Bytes arriving in pieces give the same reports as all at once: a torn
// line waits for its end.
func TestCodexUsageTornLines(t *testing.T) {
	data := readTestdata(t, limitRollout)
	for _, piece := range []int{1, 7, 100, 4096} {
		c := newCUTail(t, limitStarted).live()
		var got []wire.UsageReport
		for i := 0; i < len(data); i += piece {
			c.append(data[i:min(i+piece, len(data))])
			got = append(got, c.take()...)
		}
		same(t, fmt.Sprintf("pieces of %d", piece), got, limitLive())
	}

	c := newCUTail(t, limitStarted).live()
	line := tokenCount(`{"last_token_usage":{"total_tokens":50},"model_context_window":100}`, `null`)
	c.append([]byte(line[:len(line)-1])) // all but its newline
	if r := c.take(); len(r) != 0 {
		t.Fatalf("a line without its end was reported: %s", showReports(r))
	}
	c.append([]byte("\n"))
	same(t, "completed line", c.take(), []wire.UsageReport{{Context: ptr(50.0)}})
	// CRLF is taken too.
	c.append([]byte(strings.TrimSuffix(line, "\n") + "\r\n"))
	same(t, "CRLF line", c.take(), []wire.UsageReport{{Context: ptr(50.0)}})
}

func tokenCount(info, rateLimits string) string {
	return `{"timestamp":"2026-12-01T12:00:00.000Z","type":"event_msg","payload":{"type":"token_count","info":` + info + `,"rate_limits":` + rateLimits + "}}\n"
}

func rateLimits(primary, secondary string) string {
	return `{"limit_id":"codex","limit_name":null,"primary":` + primary + `,"secondary":` + secondary + `,"credits":null,"plan_type":null,"rate_limit_reached_type":null}`
}

func taskLimit(message string) string {
	return `{"type":"event_msg","payload":{"type":"task_complete","turn_id":"t","last_agent_message":null,"error":{"message":"` + message + `","codex_error_info":"usage_limit_exceeded"}}}` + "\n"
}

// Resets in the test's future (the tail's clock is limitStarted).
const (
	reset1 = 1796130000 // 2026-12-01T13:00:00Z
	reset2 = 1796140800 // 2026-12-01T16:00:00Z
)

func TestCodexUsageNullParts(t *testing.T) {
	c := newCUTail(t, limitStarted).live()
	for _, l := range []string{
		tokenCount(`null`, `null`),
		tokenCount(`null`, rateLimits(`null`, `null`)),
		tokenCount(`{"total_token_usage":null,"last_token_usage":null,"model_context_window":258400}`, `null`),
		tokenCount(`{"last_token_usage":{"total_tokens":100},"model_context_window":null}`, `null`),
		tokenCount(`{"last_token_usage":{"total_tokens":100},"model_context_window":0}`, `null`),
		tokenCount(`{"last_token_usage":{"total_tokens":0},"model_context_window":1000}`, `null`), // nothing in it yet
		tokenCount(`{"last_token_usage":{"input_tokens":5},"model_context_window":1000}`, `null`),
		tokenCount(`null`, rateLimits(`{"used_percent":null,"window_minutes":300,"resets_at":1796130000}`, `null`)),
		`{"type":"event_msg","payload":{"type":"token_count"}}` + "\n",
		`{"type":"turn_context","payload":{"model":null,"effort":null}}` + "\n",
	} {
		if r := c.take(); len(r) != 0 {
			t.Fatalf("before %q: %s", l, showReports(r))
		}
		c.append([]byte(l))
		if r := c.take(); len(r) != 0 {
			t.Errorf("%q reported %s (nothing is there)", l, showReports(r))
		}
	}
	c.append([]byte(tokenCount(`null`, rateLimits(`null`, `{"used_percent":7,"window_minutes":10080,"resets_at":null}`))))
	same(t, "secondary only, no reset time", c.take(), []wire.UsageReport{{SevenDay: &wire.Window{UsedPercentage: 7}}})
	c.append([]byte(tokenCount(`null`, rateLimits(`{"used_percent":8,"window_minutes":300,"resets_at":1e300}`, `null`))))
	same(t, "a reset time past year 9999", c.take(), []wire.UsageReport{{FiveHour: &wire.Window{UsedPercentage: 8}}})
}

func TestCodexUsageWindowMapping(t *testing.T) {
	w := func(used float64, minutes string, reset int64) string {
		return fmt.Sprintf(`{"used_percent":%v,"window_minutes":%s,"resets_at":%d}`, used, minutes, reset)
	}
	at1, at2 := "2026-12-01T13:00:00Z", "2026-12-01T16:00:00Z"
	for _, tc := range []struct {
		name               string
		primary, secondary string
		five, seven        *wire.Window
	}{
		{"by length", w(1, "300", reset1), w(2, "10080", reset2),
			&wire.Window{UsedPercentage: 1, ResetsAt: at1}, &wire.Window{UsedPercentage: 2, ResetsAt: at2}},
		{"by length, swapped", w(1, "10080", reset1), w(2, "300", reset2),
			&wire.Window{UsedPercentage: 2, ResetsAt: at2}, &wire.Window{UsedPercentage: 1, ResetsAt: at1}},
		{"other lengths by place", w(1, "60", reset1), w(2, "1440", reset2),
			&wire.Window{UsedPercentage: 1, ResetsAt: at1}, &wire.Window{UsedPercentage: 2, ResetsAt: at2}},
		{"no length by place", w(1, "null", reset1), w(2, "null", reset2),
			&wire.Window{UsedPercentage: 1, ResetsAt: at1}, &wire.Window{UsedPercentage: 2, ResetsAt: at2}},
		{"length wins over place", w(1, "60", reset1), w(2, "300", reset2),
			&wire.Window{UsedPercentage: 2, ResetsAt: at2}, nil},
		{"two of one length: the first", w(1, "300", reset1), w(2, "300", reset2),
			&wire.Window{UsedPercentage: 1, ResetsAt: at1}, nil},
		{"secondary alone, other length", `null`, w(2, "43200", reset2),
			nil, &wire.Window{UsedPercentage: 2, ResetsAt: at2}},
		{"a window whose reset passed", w(1, "300", 1796126000), w(2, "10080", reset2),
			nil, &wire.Window{UsedPercentage: 2, ResetsAt: at2}},
		// A plan with a weekly window only: Codex may give it as primary.
		{"the weekly window alone, as primary", w(3, "10080", reset2), `null`,
			nil, &wire.Window{UsedPercentage: 3, ResetsAt: at2}},
		{"the weekly window alone, as secondary", `null`, w(3, "10080", reset2),
			nil, &wire.Window{UsedPercentage: 3, ResetsAt: at2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCUTail(t, limitStarted).live()
			c.append([]byte(tokenCount(`null`, rateLimits(tc.primary, tc.secondary))))
			same(t, tc.name, c.take(), []wire.UsageReport{{FiveHour: tc.five, SevenDay: tc.seven}})
		})
	}
}

func TestCodexUsageContext(t *testing.T) {
	for _, tc := range []struct {
		total, window string
		want          float64
	}{
		{"64600", "258400", 25},
		{"1", "3", 100.0 / 3},
		{"258400", "258400", 100},
		{"300000", "258400", 100}, // over the window: capped
	} {
		c := newCUTail(t, limitStarted).live()
		c.append([]byte(tokenCount(`{"total_token_usage":{"total_tokens":999999999},"last_token_usage":{"input_tokens":1,"total_tokens":`+
			tc.total+`},"model_context_window":`+tc.window+`}`, `null`)))
		r := c.take()
		if len(r) != 1 || r[0].Context == nil || math.Abs(*r[0].Context-tc.want) > 1e-9 {
			t.Errorf("%s of %s: %s, want context %v (last_token_usage, not the running total)", tc.total, tc.window, showReports(r), tc.want)
		}
	}
}

func TestCodexUsageLimit(t *testing.T) {
	w := func(used float64, minutes string, reset int64) string {
		return fmt.Sprintf(`{"used_percent":%v,"window_minutes":%s,"resets_at":%d}`, used, minutes, reset)
	}
	for _, tc := range []struct {
		name  string
		lines string
		until time.Time
	}{
		{"the full window's reset", tokenCount(`null`, rateLimits(w(30, "300", reset1), w(100, "10080", reset2))), time.Unix(reset2, 0)},
		{"both full: the later", tokenCount(`null`, rateLimits(w(100, "300", reset1), w(100.5, "10080", reset2))), time.Unix(reset2, 0)},
		{"none full: the nearest", tokenCount(`null`, rateLimits(w(99, "300", reset2), w(50, "10080", reset1))), time.Unix(reset1, 0)},
		{"none to come: unknown", tokenCount(`null`, rateLimits(w(100, "300", 1796120000), `null`)), time.Time{}},
		{"the weekly window alone, full", tokenCount(`null`, rateLimits(w(100, "10080", reset2), `null`)), time.Unix(reset2, 0)},
		{"the weekly window alone, not full", tokenCount(`null`, rateLimits(`null`, w(40, "10080", reset1))), time.Unix(reset1, 0)},
		{"no rate limits: unknown", tokenCount(`null`, `null`), time.Time{}},
		{"the latest token_count with rate limits",
			tokenCount(`null`, rateLimits(w(100, "300", reset2), `null`)) + tokenCount(`null`, rateLimits(w(100, "300", reset1), `null`)) + tokenCount(`null`, `null`),
			time.Unix(reset1, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCUTail(t, limitStarted).live()
			c.append([]byte(tc.lines))
			c.take()
			c.append([]byte(taskLimit("You have hit your usage limit.")))
			same(t, tc.name, c.take(), []wire.UsageReport{{Limit: &wire.UsageLimit{Until: tc.until, Message: "You have hit your usage limit."}}})
		})
	}

	c := newCUTail(t, limitStarted).live()
	for _, l := range []string{
		// a plain 429 after retries, a turn without error, another error
		`{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"exceeded retry limit, last status: 429 Too Many Requests","codex_error_info":{"response_too_many_failed_attempts":{"http_status_code":429}}}}}`,
		`{"type":"event_msg","payload":{"type":"task_complete","last_agent_message":"done"}}`,
		`{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"boom","codex_error_info":"internal_server_error"}}}`,
		`{"type":"response_item","payload":{"type":"task_complete","error":{"message":"x","codex_error_info":"usage_limit_exceeded"}}}`,
	} {
		c.append([]byte(l + "\n"))
		if r := c.take(); len(r) != 0 {
			t.Errorf("%s reported %s", l, showReports(r))
		}
	}
	c.append([]byte(`{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"m","codex_error_info":{"usage_limit_exceeded":null}}}}` + "\n"))
	same(t, "keyed form", c.take(), []wire.UsageReport{{Limit: &wire.UsageLimit{Message: "m"}}})
}

func TestCodexUsageModel(t *testing.T) {
	c := newCUTail(t, limitStarted).live()
	tc := func(model, effort string) string {
		return `{"type":"turn_context","payload":{"cwd":"/x","model":"` + model + `","effort":"` + effort + `","collaboration_mode":{"mode":"default","settings":{"model":"` + model + `","reasoning_effort":"` + effort + `"}}}}` + "\n"
	}
	c.append([]byte(tc("gpt-5.5", "medium") + tc("gpt-5.5", "medium")))
	same(t, "turn_context twice", c.take(), []wire.UsageReport{{Model: "gpt-5.5", Effort: "medium"}})
	c.append([]byte(`{"type":"event_msg","payload":{"type":"thread_settings_applied","thread_settings":{"model":"gpt-5.5","reasoning_effort":"xhigh"}}}` + "\n"))
	same(t, "thread_settings_applied", c.take(), []wire.UsageReport{{Model: "gpt-5.5", Effort: "xhigh"}})
	c.append([]byte(`{"type":"turn_context","payload":{"collaboration_mode":{"settings":{"model":"o9","reasoning_effort":"low"}}}}` + "\n"))
	same(t, "collaboration_mode settings", c.take(), []wire.UsageReport{{Model: "o9", Effort: "low"}})
	c.append([]byte(`{"type":"session_meta","payload":{"id":"x","model":"m1","reasoning_effort":"high"}}` + "\n"))
	same(t, "session_meta with a model", c.take(), []wire.UsageReport{{Model: "m1", Effort: "high"}})
	c.append([]byte(`{"type":"turn_context","payload":{"model":"m2","effort":5}}` + "\n"))
	same(t, "effort of another type", c.take(), nil)
}

// Lines that are not understood, and a line over 1 MiB (whole or in
// pieces), are skipped; what follows them is read.
func TestCodexUsageBadInput(t *testing.T) {
	good := tokenCount(`{"last_token_usage":{"total_tokens":1},"model_context_window":4}`, `null`)
	want := []wire.UsageReport{{Context: ptr(25.0)}}
	c := newCUTail(t, limitStarted).live()
	for _, bad := range []string{
		"not json at all token_count\n",
		"\x00\xff\xfe token_count \x01\n",
		"\n\n\n",
		`{"type":"event_msg","payload":{"type":"token_count","info":"x","rate_limits":[1,2]}}` + "\n",
		`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":"many"},"model_context_window":4}}}` + "\n",
		`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":` + "\n",
		`[1,2,3,"token_count"]` + "\n",
		`"token_count"` + "\n",
		`{"type":"event_msg","payload":{"type":"token_count","rate_limits":{"primary":{"used_percent":"x","window_minutes":300}}}}` + "\n",
	} {
		c.append([]byte(bad + good))
		same(t, fmt.Sprintf("after %q", bad), c.take(), want)
	}

	// An over-long line that would parse (and says token_count): skipped
	// whole, in one read or across many polls.
	long := tokenCount(`{"last_token_usage":{"total_tokens":3},"model_context_window":4,"pad":"`+strings.Repeat("x", codexUsageMaxLine+10)+`"}`, `null`)
	c.append([]byte(long + good))
	same(t, "after an over-long line", c.take(), want)
	for i := 0; i < len(long); i += 300 << 10 {
		c.append([]byte(long[i:min(i+300<<10, len(long))]))
		if r := c.take(); len(r) != 0 {
			t.Fatalf("part of an over-long line reported %s", showReports(r))
		}
		if len(c.tail.partial) > codexUsageMaxLine {
			t.Fatalf("kept %d bytes of a line", len(c.tail.partial))
		}
	}
	c.append([]byte(good))
	same(t, "after an over-long line in pieces", c.take(), want)
	// A line of exactly the limit is still read.
	pad := codexUsageMaxLine + 1 - len(good) - len(`,"p":""`)
	exact := strings.Replace(good, `"model_context_window":4`, `"model_context_window":4,"p":"`+strings.Repeat("y", pad)+`"`, 1)
	if len(exact) != codexUsageMaxLine+1 { // with its newline
		t.Fatalf("exact line is %d bytes", len(exact))
	}
	c.append([]byte(exact))
	same(t, "a line of the limit", c.take(), want)
}

// A file cut short is read again from its start.
func TestCodexUsageTruncated(t *testing.T) {
	c := newCUTail(t, limitStarted).live()
	c.append([]byte(tokenCount(`{"last_token_usage":{"total_tokens":1},"model_context_window":4}`, `null`)))
	c.take()
	if err := os.WriteFile(c.path, []byte(`{"type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"total_tokens":2},"model_context_window":4}}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	same(t, "rewritten shorter", c.take(), []wire.UsageReport{{Context: ptr(50.0)}})
}

func fastCodexPoll(t *testing.T) {
	old := CodexPollInterval
	CodexPollInterval = 5 * time.Millisecond
	t.Cleanup(func() { CodexPollInterval = old })
}

// runWatch runs watchCodexUsage (or f) in a goroutine; reports arrive on
// the channel, done closes when it returned.
func runWatch(t *testing.T, f func(ctx context.Context, report func(wire.UsageReport))) (<-chan wire.UsageReport, context.CancelFunc, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reports, done := make(chan wire.UsageReport, 100), make(chan struct{})
	go func() {
		defer close(done)
		f(ctx, func(r wire.UsageReport) { reports <- r })
	}()
	t.Cleanup(func() { cancel(); <-done })
	return reports, cancel, done
}

func awaitReport(t *testing.T, reports <-chan wire.UsageReport) wire.UsageReport {
	t.Helper()
	select {
	case r := <-reports:
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no report")
		return wire.UsageReport{}
	}
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

// The file appears after the tail started; ending ctx reads once more,
// then ends it.
func TestWatchCodexUsage(t *testing.T) {
	fastCodexPoll(t)
	path := filepath.Join(t.TempDir(), "sessions", "rollout.jsonl")
	reports, cancel, done := runWatch(t, func(ctx context.Context, report func(wire.UsageReport)) { watchCodexUsage(ctx, path, report, nil) })
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, tokenCount(`{"last_token_usage":{"total_tokens":1},"model_context_window":4}`, `null`))
	if r := awaitReport(t, reports); r.Context == nil || *r.Context != 25 {
		t.Fatalf("late file: %s", showReports([]wire.UsageReport{r}))
	}
	appendFile(t, path, `{"type":"turn_context","payload":{"model":"m"}}`+"\n")
	if r := awaitReport(t, reports); r.Model != "m" {
		t.Fatalf("appended: %s", showReports([]wire.UsageReport{r}))
	}
	appendFile(t, path, `{"type":"turn_context","payload":{"model":"last"}}`+"\n")
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the tail did not end with its context")
	}
	var rest []wire.UsageReport
	for len(reports) > 0 {
		rest = append(rest, <-reports)
	}
	same(t, "the line written before the end", rest, []wire.UsageReport{{Model: "last"}})
}

// A tail on a file that never appears ends with its context.
func TestWatchCodexUsageNoFile(t *testing.T) {
	fastCodexPoll(t)
	_, cancel, done := runWatch(t, func(ctx context.Context, report func(wire.UsageReport)) {
		watchCodexUsage(ctx, filepath.Join(t.TempDir(), "none.jsonl"), report, nil)
	})
	_, cancel2, done2 := runWatch(t, func(ctx context.Context, report func(wire.UsageReport)) {
		watchCodexSessionUsage(ctx, t.TempDir(), uuid.Must(uuid.NewV7()).String(), report, nil)
	})
	cancel()
	cancel2()
	for _, d := range []<-chan struct{}{done, done2} {
		select {
		case <-d:
		case <-time.After(10 * time.Second):
			t.Fatal("the tail did not end with its context")
		}
	}
}

// codexRolloutFile writes (or extends) the rollout of id under home,
// named as Codex names it, starting with its session_meta.
func codexRolloutFile(t *testing.T, home, id, cwd string, created time.Time) string {
	t.Helper()
	local := created.Local()
	dir := filepath.Join(home, "sessions", local.Format("2006"), local.Format("01"), local.Format("02"))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "rollout-"+local.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
	appendFile(t, path, fmt.Sprintf(`{"timestamp":%q,"type":"session_meta","payload":{"session_id":%q,"id":%q,"timestamp":%q,"cwd":%q,"originator":"codex-tui","cli_version":"0.171.0","base_instructions":{"text":"…"}}}`+"\n",
		created.UTC().Format(time.RFC3339Nano), id, id, created.UTC().Format(time.RFC3339Nano), cwd))
	return path
}

// The tail waits for the session's rollout to appear.
func TestWatchCodexSessionUsage(t *testing.T) {
	fastCodexPoll(t)
	home := t.TempDir()
	id := uuid.Must(uuid.NewV7()).String()
	reports, _, _ := runWatch(t, func(ctx context.Context, report func(wire.UsageReport)) {
		watchCodexSessionUsage(ctx, home, id, report, nil)
	})
	path := codexRolloutFile(t, home, id, "/x", time.Now())
	appendFile(t, path, `{"type":"turn_context","payload":{"model":"m"}}`+"\n")
	if r := awaitReport(t, reports); r.Model != "m" {
		t.Fatalf("got %s", showReports([]wire.UsageReport{r}))
	}
}

// A Manager with OnUsage follows a Codex seat's rollout: a fresh launch
// once the capture learnt its id, a resume at once; the seat's end stops
// it.
func TestManagerCodexUsage(t *testing.T) {
	fastCodexPoll(t)
	store, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home, dir := t.TempDir(), t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	topic := topicstore.NewID()
	type usage struct {
		topic, account string
		r              wire.UsageReport
	}
	got := make(chan usage, 100)
	var rollout string
	id := uuid.Must(uuid.NewV7()).String()
	started := make(chan PaneSpec, 2)
	m := NewManager(ManagerOptions{Store: store, RoomURL: "ws://127.0.0.1:1/room", Token: "tok", ExePath: "/bin/false",
		RuntimeDir: t.TempDir(), Home: home, BaseEnv: []string{"PATH=/usr/bin:/bin"},
		StartPane: func(ctx context.Context, spec PaneSpec) (*Pane, error) {
			started <- spec
			spec.Argv = []string{"sleep", "600"}
			spec.Grace = 200 * time.Millisecond
			return StartPane(ctx, spec)
		},
		OnUsage: func(topic, account string, r wire.UsageReport) { got <- usage{topic, account, r} },
	}, []Account{{ID: "codex", Name: "Lay", Kind: KindCodex, Dir: dir}})
	t.Cleanup(m.Close)
	events := m.Subscribe()

	// Fresh: Codex writes its rollout at the first turn.
	ev, err := m.Start(context.Background(), topic, "codex")
	if err != nil {
		t.Fatal(err)
	}
	if ev.SessionID != "" {
		t.Fatalf("a fresh Codex launch has id %q", ev.SessionID)
	}
	<-started
	rollout = codexRolloutFile(t, codexHome, id, dir, time.Now())
	appendFile(t, rollout, `{"type":"turn_context","payload":{"model":"gpt-test","effort":"high"}}`+"\n"+
		tokenCount(`{"last_token_usage":{"total_tokens":10},"model_context_window":40}`, `null`))
	u := awaitUsage(t, got)
	if u.topic != topic || u.account != "codex" {
		t.Fatalf("report for %s/%s", u.topic, u.account)
	}
	// The lines that were there when the tail opened the file are one report.
	same(t, "fresh launch", []wire.UsageReport{u.r}, []wire.UsageReport{{Model: "gpt-test", Effort: "high", Context: ptr(25.0)}})
	appendFile(t, rollout, tokenCount(`{"last_token_usage":{"total_tokens":20},"model_context_window":40}`, `null`))
	same(t, "fresh launch, next turn", []wire.UsageReport{awaitUsage(t, got).r}, []wire.UsageReport{{Context: ptr(50.0)}})
	waitEvent(t, events, func(ev Event) bool { return ev.State == StateRunning && ev.SessionID == id })
	// A line written just before the process ends is read (the tail's last
	// look once the seat's end cancelled it).
	appendFile(t, rollout, tokenCount(`{"last_token_usage":{"total_tokens":30},"model_context_window":40}`, `null`))
	if err := m.Stop(topic, "codex", "test"); err != nil {
		t.Fatal(err)
	}
	same(t, "before the end", []wire.UsageReport{awaitUsage(t, got).r}, []wire.UsageReport{{Context: ptr(75.0)}})

	// Resume: the recorded session's rollout is followed at once.
	if err := store.SetSession(topic, "codex", id); err != nil {
		t.Fatal(err)
	}
	ev, err = m.Start(context.Background(), topic, "codex")
	if err != nil {
		t.Fatal(err)
	}
	if ev.ResumedFrom != id {
		t.Fatalf("not a resume: %+v", ev)
	}
	same(t, "resume", []wire.UsageReport{awaitUsage(t, got).r}, []wire.UsageReport{{Model: "gpt-test", Effort: "high", Context: ptr(75.0)}})
	appendFile(t, rollout, tokenCount(`{"last_token_usage":{"total_tokens":40},"model_context_window":40}`, `null`))
	same(t, "resume, next turn", []wire.UsageReport{awaitUsage(t, got).r}, []wire.UsageReport{{Context: ptr(100.0)}})
	m.Close()
	select {
	case u := <-got:
		t.Fatalf("a report after Close: %s", showReports([]wire.UsageReport{u.r}))
	default:
	}
}

func awaitUsage[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("no usage report")
		var zero T
		return zero
	}
}

func waitEvent(t *testing.T, events <-chan Event, ok func(Event) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ok(ev) {
				return
			}
		case <-deadline:
			t.Fatal("no such seat event")
		}
	}
}
