package e2e

// Usage figures and limits end to end (issue "Usage and limits",
// docs/decisions.md "Usage figures and limits"): the real Claude Code's
// status line and the real Codex's rollout feed the seat's book, serve
// writes it as usage events, say_to_room's result carries the seat's own
// block, the participants panel draws it, and a seat stopped at its usage
// limit (a real Codex's 429, a cli seat's window at 100 %) is held, told,
// resumed and released. The two limit tests wait app.LimitMargin (30 s)
// each, in parallel.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
	"pullcept/e2e/fakemodel"
	"pullcept/room"
)

// usageOf is the figures of a usage event (nil when it has none).
func usageOf(m map[string]any) map[string]any {
	u, _ := m["usage"].(map[string]any)
	return u
}

// waitUsage waits for serve's usage event of account in topic, from line
// from on, whose figures match.
func (s *serve) waitUsage(from int, topic, account string, match func(u map[string]any) bool) map[string]any {
	s.t.Helper()
	return usageOf(s.waitFrom(from, func(m map[string]any) bool {
		return m["event"] == "usage" && m["topic"] == topic && m["account"] == account && usageOf(m) != nil && match(usageOf(m))
	}))
}

// figure is one figure of a usage event: five_hour, seven_day or context.
func figure(u map[string]any, name string) map[string]any {
	f, _ := u[name].(map[string]any)
	return f
}

// sayResults waits until the agent's model has received n say_to_room
// results and returns them, oldest first (fakemodel's Request.AllResults:
// exactly what the model was sent).
func sayResults(t *testing.T, m *fakemodel.Server, api fakemodel.API, n int) []fakemodel.ToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cliWait)
	defer cancel()
	var got []fakemodel.ToolResult
	if _, err := m.Wait(ctx, func(reqs []fakemodel.Request) bool {
		for _, r := range reqs {
			if r.API != api {
				continue
			}
			var res []fakemodel.ToolResult
			for _, x := range r.AllResults {
				if strings.HasSuffix(x.Tool, "__"+fakemodel.SayToRoom) {
					res = append(res, x)
				}
			}
			if len(res) >= n {
				got = res
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatalf("the model never got %d say_to_room results: %v\n%s", n, err, describeRequests(m.Requests()))
	}
	return got
}

var (
	blockNow     = regexp.MustCompile(`(?m)^now: (\d{4}-\d\d-\d\dT\d\d:\d\d[+-]\d\d:\d\d)$`)
	blockContext = regexp.MustCompile(`(?m)^  context: (not reported|([0-9.]+)% used \(received \d{4}-\d\d-\d\dT\d\d:\d\d[+-]\d\d:\d\d, (\d+) min ago\))$`)
)

// checkBlock checks the seat's own block at the end of a say_to_room
// result: who, the time now with its UTC offset (within a minute of the
// test's clock), and the usage heading; it returns the context line's
// percentage ("" when "not reported").
func checkBlock(t *testing.T, out, name string) string {
	t.Helper()
	if !strings.Contains(out, "\n— you: "+name+"\n") || !strings.Contains(out, "\nyour usage, as last reported (not live):\n") {
		t.Fatalf("say_to_room's result has no usage block for %s:\n%s", name, out)
	}
	m := blockNow.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no \"now: <local time with offset>\" line:\n%s", out)
	}
	now, err := time.Parse("2006-01-02T15:04-07:00", m[1])
	if err != nil || time.Since(now) > 2*time.Minute || time.Until(now) > time.Minute {
		t.Fatalf("now: %s is not the time now (%v): %v", m[1], time.Now(), err)
	}
	c := blockContext.FindStringSubmatch(out)
	if c == nil {
		t.Fatalf("no context line:\n%s", out)
	}
	return c[2]
}

// pct is a percentage as the block writes it.
func pct(v float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") }

// TestUsageRealClaude: the real Claude Code (pinned, API key) reports
// through its per-launch status line; the room books the model and the
// context use and never a 5h/7d window (no rate_limits with an API key);
// say_to_room's result, as the model receives it, ends with the seat's
// block: who, now with its offset, "5h: not reported", "7d: not
// reported" and the context line — a percentage with its received time
// once the status line has reported it.
func TestUsageRealClaude(t *testing.T) {
	t.Parallel()
	start := time.Now()
	c := newCLIRoom(t, roomAgent(nil))
	topic := c.topic()
	c.startSeat(t, topic, "claude", claudeName)

	c.post(t, topic, "@"+claudeName+" hello", "")
	c.waitPost(topic, claudeName, "ack from Lin: hello")
	first := sayResults(t, c.model, fakemodel.Anthropic, 1)[0].Output
	checkBlock(t, first, claudeName)
	for _, line := range []string{"\n  5h: not reported\n", "\n  7d: not reported\n"} {
		if !strings.Contains(first, line) {
			t.Fatalf("the result lacks %q:\n%s", strings.TrimSpace(line), first)
		}
	}

	// The status line's report: model and context, no window.
	u := c.waitUsage(0, topic, "claude", func(u map[string]any) bool { return figure(u, "context") != nil })
	if m, _ := u["model"].(string); m == "" || u["model_received_at"] == nil {
		t.Fatalf("Claude's usage has no model: %v", u)
	}
	ctxUse, _ := figure(u, "context")["used_percentage"].(float64)
	if ctxUse <= 0 || ctxUse > 100 || figure(u, "context")["received_at"] == nil {
		t.Fatalf("Claude's context use: %v", u)
	}

	// The first turn's result may say "context: not reported": the status
	// line runs after the model's answers, debounced, and can come after
	// the sidecar read the book. The second turn comes after a report
	// with the context (awaited above), so its result must carry it.
	c.post(t, topic, "@"+claudeName+" again", c.lastPostID(topic))
	c.waitPost(topic, claudeName, "ack from Lin: again")
	second := sayResults(t, c.model, fakemodel.Anthropic, 2)[1].Output
	got := checkBlock(t, second, claudeName)
	if got == "" {
		t.Fatalf("the second turn's result has no context use:\n%s", second)
	}
	// It is one of the figures the book received.
	booked := map[string]bool{}
	for _, l := range c.linesOf("usage", topic, "claude") {
		if f := figure(usageOf(l), "context"); f != nil {
			booked[pct(f["used_percentage"].(float64))] = true
		}
	}
	if !booked[got] {
		t.Fatalf("the result says context %s%%, the book received %v:\n%s", got, booked, second)
	}
	if !strings.Contains(second, "\n  5h: not reported\n") || !strings.Contains(second, "\n  7d: not reported\n") {
		t.Fatalf("the second result reports a window an API-key session never has:\n%s", second)
	}
	for _, l := range c.linesOf("usage", topic, "claude") {
		if u := usageOf(l); figure(u, "five_hour") != nil || figure(u, "seven_day") != nil {
			t.Fatalf("a usage event of an API-key Claude session has a window: %v", l)
		}
	}
	t.Logf("took %v", time.Since(start).Round(time.Millisecond))
}

// linesOf is serve's lines so far of event for account in topic (any
// account when "").
func (s *serve) linesOf(event, topic, account string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range s.lines {
		if l["event"] == event && l["topic"] == topic && (account == "" || l["account"] == account) {
			out = append(out, l)
		}
	}
	return out
}

// TestUsageCLIStatusReports: a cli account's program reports a status line
// with both windows (e2e/testdata/usagecli.sh, `pullcept hook status`);
// serve's usage event carries both windows with their reset times, the
// context, model and effort, and the TUI's participants panel draws them
// under the seat's row. serve attaches to the TUI's server as a control
// client, so one server shows both.
func TestUsageCLIStatusReports(t *testing.T) {
	t.Parallel()
	start := time.Now()
	phome := t.TempDir()
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "usagecli.sh")
	writeConfig(t, phome, `{"accounts":[{"id":"use","name":"Use","kind":"cli","command":`+strconv.Quote(script)+`}]}`)
	r := startTUI(t, phome, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}, 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Use")
	s := startServe(t, phome) // a control client of the TUI's server

	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Use · cli · running", "usagecli READY")
	seatEv := s.wait(func(m map[string]any) bool { return m["event"] == "seat" && m["account"] == "use" })
	topic := seatEv["topic"].(string)
	s.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, "Use")
	})

	reset5 := time.Now().Add(3 * time.Hour).Truncate(time.Second)
	reset7 := time.Now().Add(4 * 24 * time.Hour).Truncate(time.Second)
	from := s.mark()
	if res := s.do(map[string]any{"cmd": "post", "topic": topic,
		"content": fmt.Sprintf("@Use status 85 %d 40.5 %d 42", reset5.Unix(), reset7.Unix())}); res["delivered"] != true {
		t.Fatalf("post: %v", res)
	}
	u := s.waitUsage(from, topic, "use", func(u map[string]any) bool { return figure(u, "five_hour") != nil })
	want := func(name string, pct float64, reset time.Time) {
		f := figure(u, name)
		if f == nil || f["used_percentage"] != pct || f["received_at"] == nil ||
			(!reset.IsZero() && f["resets_at"] != reset.UTC().Format(time.RFC3339)) {
			t.Errorf("%s = %v, want %v%% resetting at %v", name, f, pct, reset.UTC())
		}
	}
	want("five_hour", 85, reset5)
	want("seven_day", 40.5, reset7)
	want("context", 42, time.Time{})
	if u["model"] != "Scripted" || u["effort"] != "high" {
		t.Errorf("model/effort = %v/%v", u["model"], u["effort"])
	}

	// The participants panel: the seat's row, then its figures.
	r.waitFor("the seat's figures in the participants panel", func(scr string) bool {
		return regexp.MustCompile(`(?m)^.*● Use +in room\n.*Scripted · high\n.*5h 85% 7d 40%\n.*ctx 42%`).MatchString(participantsText(scr))
	})
	t.Logf("took %v", time.Since(start).Round(time.Millisecond))
}

// participantsText is the participants panel (the rightmost one), its
// rows trimmed.
func participantsText(scr string) string {
	x0, _, ok := column(scr, "Participants")
	if !ok {
		return ""
	}
	var rows []string
	for _, row := range strings.Split(scr, "\n") {
		rows = append(rows, strings.TrimSpace(ansi.Cut(row, x0, ansi.StringWidth(row))))
	}
	return strings.Join(rows, "\n")
}

// serverZone is the time zone the server shows times in: its environment
// (newCLIRoom's) has no TZ, so it is the system's.
func serverZone() *time.Location {
	if os.Getenv("TZ") == "" {
		return time.Local
	}
	if b, err := os.ReadFile("/etc/localtime"); err == nil {
		if loc, err := time.LoadLocationFromTZData("", b); err == nil {
			return loc
		}
	}
	return time.UTC
}

// TestUsageRealCodexLimit: the real Codex (pinned) gets the x-codex-*
// rate-limit headers on every answer; its rollout's token_count gives the
// seat both windows with their reset times and the context. Then the
// endpoint answers a turn with a 429 usage_limit_reached (primary at
// 100 %, reset a few seconds ahead): the seat is limited (activity
// "limited", the app notice with the reset time), a post to it is held;
// after the reset plus app.LimitMargin (30 s: this test waits that long)
// the resume instruction is posted and typed into the seat once, before
// the held post, and the release is told.
func TestUsageRealCodexLimit(t *testing.T) {
	t.Parallel()
	start := time.Now()
	const (
		trigger  = "hit the limit"
		heldBody = "are you back?"
	)
	var (
		mu      sync.Mutex
		limitAt time.Time // the 429's reset time, once answered
	)
	limited := make(chan struct{})
	agent := roomAgent(nil)
	c := newCLIRoom(t, func(r fakemodel.Request) fakemodel.Reply {
		if r.API == fakemodel.OpenAI {
			if _, body, ok := fakemodel.ParseTagged(r.LastUserTurn()); ok && body == trigger {
				mu.Lock()
				defer mu.Unlock()
				if limitAt.IsZero() {
					// A few seconds ahead: the seat must still read it
					// as to come when the rollout's lines arrive.
					limitAt = time.Now().Add(4 * time.Second).Truncate(time.Second)
					close(limited)
				}
				return fakemodel.UsageLimitReached(
					&fakemodel.RateWindow{UsedPercent: 100, WindowMinutes: fakemodel.FiveHourMinutes, ResetAt: limitAt},
					&fakemodel.RateWindow{UsedPercent: 30, WindowMinutes: fakemodel.SevenDayMinutes, ResetAt: limitAt.Add(72 * time.Hour)})
			}
		}
		return agent(r)
	})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the model's requests:\n%s", describeRequests(c.model.Requests()))
		}
	})
	reset5 := time.Now().Add(2 * time.Hour).Truncate(time.Second)
	reset7 := time.Now().Add(72 * time.Hour).Truncate(time.Second)
	c.model.SetHeaders(fakemodel.CodexRateLimitHeaders(
		&fakemodel.RateWindow{UsedPercent: 42.5, WindowMinutes: fakemodel.FiveHourMinutes, ResetAt: reset5},
		&fakemodel.RateWindow{UsedPercent: 12, WindowMinutes: fakemodel.SevenDayMinutes, ResetAt: reset7}))
	// At the usage limit Codex 0.171 opens "Approaching rate limits —
	// Switch to gpt-6-luna for lower credit usage? 1. Switch … 2. Keep
	// current model 3. … (never show again)" in its pane, and the room's
	// next post is typed into that list: seen here, the resume
	// instruction lost the head of its tag line (up to a "1") and the seat
	// switched to gpt-6-luna, whose requests then offered no tools. The
	// seat's launch turns the nudge off (-c notice.hide_rate_limit_model_
	// nudge=true): this CODEX_HOME does nothing about it.
	topic := c.topic()
	c.startSeat(t, topic, "codex", codexName)

	// A turn: the rollout's token_count gives both windows and the context.
	from := c.mark()
	c.post(t, topic, "@"+codexName+" hello", "")
	c.waitPost(topic, codexName, "ack from Lay: hello")
	u := c.waitUsage(from, topic, "codex", func(u map[string]any) bool { return figure(u, "five_hour") != nil })
	for name, want := range map[string][2]any{"five_hour": {42.5, reset5}, "seven_day": {12.0, reset7}} {
		f := figure(u, name)
		if f == nil || f["used_percentage"] != want[0] || f["resets_at"] != want[1].(time.Time).UTC().Format(time.RFC3339) || f["received_at"] == nil {
			t.Fatalf("%s = %v, want %v%% resetting at %v (usage %v)", name, f, want[0], want[1], u)
		}
	}
	if f := figure(u, "context"); f == nil || f["used_percentage"].(float64) <= 0 {
		t.Fatalf("Codex's usage has no context use: %v", u)
	}

	// The limit: a 429 usage_limit_reached ends the next turn.
	from = c.mark()
	c.post(t, topic, "@"+codexName+" "+trigger, c.lastPostID(topic))
	select {
	case <-limited:
	case <-time.After(cliWait):
		t.Fatal("the model never got the turn to answer with the usage limit")
	}
	mu.Lock()
	until := limitAt
	mu.Unlock()
	act := c.waitActivity(t, from, topic, "codex", func(a map[string]any) bool { return a["state"] == "limited" })
	if hold, _ := act["hold"].(string); !strings.Contains(hold, "usage limit") {
		t.Errorf("the limited activity's hold = %q", hold)
	}
	notice := codexName + " が利用上限で止まりました。解除予定 " + until.In(serverZone()).Format("15:04") + room.NoReply
	n := c.waitFrom(from, appPost(topic, "利用上限で止まりました"))
	if p := n["post"].(map[string]any); p["content"] != notice || p["speaker"] != room.AppName {
		t.Fatalf("the limit notice = %v, want %q from %s", p, notice, room.AppName)
	}
	// The book: the 429's headers put the 5-hour window at 100 %.
	c.waitUsage(from, topic, "codex", func(u map[string]any) bool {
		f := figure(u, "five_hour")
		return f != nil && f["used_percentage"] == 100.0
	})
	// After the reset, fresh windows (the resumed turn's token_count must
	// not limit it again).
	c.model.SetHeaders(fakemodel.CodexRateLimitHeaders(
		&fakemodel.RateWindow{UsedPercent: 1, WindowMinutes: fakemodel.FiveHourMinutes, ResetAt: until.Add(5 * time.Hour)},
		&fakemodel.RateWindow{UsedPercent: 31, WindowMinutes: fakemodel.SevenDayMinutes, ResetAt: until.Add(72 * time.Hour)}))

	// A post meanwhile is held.
	held := c.post(t, topic, "@"+codexName+" "+heldBody, c.lastPostID(topic))
	c.waitHeld(t, from, topic, "codex", 1, "stopped at its usage limit")
	seats, _ := c.do(map[string]any{"cmd": "seats", "topic": topic})["result"].([]any)
	if len(seats) != 1 || seats[0].(map[string]any)["held"] != 1.0 || seats[0].(map[string]any)["activity"].(map[string]any)["state"] != "limited" {
		t.Errorf("seats while limited: %v", seats)
	}

	// The release, after until + LimitMargin: the instruction to Lay, then
	// the notice for the others.
	instr := app.ResumeInstruction(codexName)
	var instrAt, releaseAt int
	isPost := func(m map[string]any, content string) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && m["topic"] == topic && m["role"] == "app" && p["content"] == room.AppNoticeText(content)
	}
	c.waitFrom(from, func(m map[string]any) bool { return isPost(m, codexName+" の利用上限が解除されました") })
	released := time.Now()
	if early := until.Add(app.LimitMargin); released.Before(early) {
		t.Errorf("released at %v, before the reset plus the margin (%v)", released, early)
	}
	c.mu.Lock()
	for i, l := range c.lines {
		switch {
		case isPost(l, instr):
			if instrAt != 0 {
				t.Errorf("the resume instruction was posted twice")
			}
			instrAt = i
			if to := fmt.Sprint(l["post"].(map[string]any)["to"]); to != "["+codexName+"]" {
				t.Errorf("the resume instruction is addressed to %s", to)
			}
		case isPost(l, codexName+" の利用上限が解除されました"):
			releaseAt = i
		}
	}
	c.mu.Unlock()
	if instrAt == 0 || instrAt > releaseAt {
		t.Fatalf("want the resume instruction (line %d) before the release notice (line %d)", instrAt, releaseAt)
	}

	// Typed into Codex: the instruction once, then the held post.
	c.waitPost(topic, codexName, "ack from Lay: "+heldBody)
	reqs := c.model.Requests()
	firstHeld := -1
	for i, r := range reqs {
		if r.API != fakemodel.OpenAI {
			continue
		}
		text := strings.Join(r.UserTurns, "\n")
		if strings.Contains(text, held) {
			firstHeld = i
			if strings.Count(text, instr) != 1 || strings.Index(text, instr) > strings.Index(text, held) {
				t.Fatalf("the first request with the held post must carry the resume instruction once, before it:\n%s", describeRequests(reqs[i:i+1]))
			}
			break
		}
	}
	if firstHeld < 0 {
		t.Fatalf("the model never got the held post:\n%s", describeRequests(reqs))
	}
	last := reqs[len(reqs)-1]
	if n := strings.Count(strings.Join(last.UserTurns, "\n"), instr); n != 1 {
		t.Errorf("the instruction is in the conversation %d times, want once", n)
	}
	// The limit notice was not typed into the limited seat itself.
	if strings.Contains(strings.Join(last.UserTurns, "\n"), "利用上限で止まりました") {
		t.Errorf("the limit notice was typed into the limited seat")
	}
	// No second limit.
	if n := c.count(appPost(topic, "利用上限で止まりました")); n != 1 {
		t.Errorf("%d limit notices, want 1", n)
	}
	t.Logf("took %v (released %v after the reset)", time.Since(start).Round(time.Millisecond), released.Sub(until).Round(time.Millisecond))
}

// appearsWithin waits at most d for a line after the first from lines
// matching f. It is for a line that must NOT come: nothing says that it
// never will, so the wait is bounded.
func (s *serve) appearsWithin(from int, d time.Duration, f func(map[string]any) bool) map[string]any {
	return s.scanFrom(from, d, f)
}

// appPost matches serve's post event of the app in topic whose content
// contains text.
func appPost(topic, text string) func(map[string]any) bool {
	return func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && m["topic"] == topic && m["role"] == "app" && strings.Contains(fmt.Sprint(p["content"]), text)
	}
}

// TestUsageCLILimit: a cli seat's status line reports its 5-hour window
// at 100 % (e2e/testdata/usagecli.sh): the seat is limited (activity
// "limited", the app notice with the reset time), a post to it is held;
// after the reset plus app.LimitMargin (30 s: this test waits that long)
// the resume instruction is typed into the seat once and before the held
// post (the program's own log of what it read), and the release is told.
// Then a report without windows (model and context only) must not limit
// the seat again on the window whose reset has passed (it once did: a
// second notice, instruction and release).
func TestUsageCLILimit(t *testing.T) {
	t.Parallel()
	start := time.Now()
	home := t.TempDir()
	seatLog := filepath.Join(t.TempDir(), "read")
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "usagecli.sh")
	writeConfig(t, home, `{"accounts":[{"id":"use","name":"Use","kind":"cli","command":`+strconv.Quote(script)+
		`,"env":{"USAGECLI_LOG":`+strconv.Quote(seatLog)+`}}]}`)
	s := startServe(t, home)
	topic := s.topic()
	if r := s.do(map[string]any{"cmd": "start", "topic": topic, "account": "use"}); r["event"] != "start" {
		t.Fatalf("start: %v", r)
	}
	s.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, "Use")
	})
	post := func(content string) string { // seen: the newest post so far
		t.Helper()
		last := ""
		for _, l := range s.linesOf("post", topic, "") {
			last = l["post"].(map[string]any)["message_id"].(string)
		}
		r := s.do(map[string]any{"cmd": "post", "topic": topic, "content": content, "last_seen": last})
		if r["delivered"] != true {
			t.Fatalf("post %q: %v", content, r)
		}
		return r["message_id"].(string)
	}

	// 2 to 3 s ahead: still to come when the report arrives.
	until := time.Now().Add(3 * time.Second).Truncate(time.Second)
	from := s.mark()
	post(fmt.Sprintf("@Use status 100 %d 40 %d 42", until.Unix(), until.Add(96*time.Hour).Unix()))
	act := s.waitFrom(from, func(m map[string]any) bool {
		a, _ := m["activity"].(map[string]any)
		return m["event"] == "activity" && m["account"] == "use" && a != nil && a["state"] == "limited"
	})["activity"].(map[string]any)
	if hold, _ := act["hold"].(string); !strings.Contains(hold, "stopped at its usage limit until") {
		t.Errorf("the limited activity's hold = %q", hold)
	}
	notice := "Use が利用上限で止まりました。解除予定 " + until.Format("15:04") + room.NoReply // serve runs with this process's environment
	if p := s.waitFrom(from, appPost(topic, "利用上限で止まりました"))["post"].(map[string]any); p["content"] != notice {
		t.Fatalf("the limit notice = %q, want %q", p["content"], notice)
	}
	held := post("@Use are you back?")
	s.waitFrom(from, func(m map[string]any) bool {
		n, _ := m["held"].(float64)
		return m["event"] == "activity" && m["account"] == "use" && n == 1 && strings.Contains(fmt.Sprint(m["hold"]), "stopped at its usage limit")
	})

	instr := app.ResumeInstruction("Use")
	s.waitFrom(from, appPost(topic, "Use の利用上限が解除されました"))
	if at := time.Now(); at.Before(until.Add(app.LimitMargin)) {
		t.Errorf("released at %v, before the reset plus the margin", at)
	}
	if s.count(appPost(topic, instr)) != 1 {
		t.Errorf("want one resume instruction post")
	}
	waitFileHas(t, seatLog, "are you back?")
	b, _ := os.ReadFile(seatLog)
	read := string(b)
	if strings.Count(read, instr) != 1 || strings.Index(read, instr) > strings.Index(read, held) {
		t.Fatalf("want the resume instruction typed once, before the held post (%s); the seat read:\n%s", held, read)
	}
	if strings.Contains(read, "利用上限で止まりました") {
		t.Errorf("the limit notice was typed into the limited seat itself:\n%s", read)
	}

	// A report without windows after the release: the 5-hour window at
	// 100 % in the book has passed its reset, so it limits nothing.
	from = s.mark()
	post("@Use context 50")
	s.waitUsage(from, topic, "use", func(u map[string]any) bool {
		f := figure(u, "context")
		return f != nil && f["used_percentage"] == 50.0
	})
	if again := s.appearsWithin(from, 3*time.Second, appPost(topic, "利用上限で止まりました")); again != nil {
		t.Fatalf("a report after the release limited the seat again on the passed window: %v", again["post"])
	}
	t.Logf("took %v", time.Since(start).Round(time.Millisecond))
}
