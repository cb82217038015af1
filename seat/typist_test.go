package seat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/room/wire"
)

var tokyo = time.FixedZone("JST", 9*3600)

func roomPost(id, speaker, content string) wire.Post {
	return wire.Post{MessageID: id, Speaker: speaker, Content: content, TS: "2026-10-01T16:14:59Z"}
}

func typedPost(role string, p wire.Post) string {
	return wire.TagLine(role, p, tokyo) + "\n" + wire.TypedBody(p.Content)
}

// fakeTerm is a TerminalWriter that records what is typed.
type fakeTerm struct {
	mu       sync.Mutex
	pending  bool
	events   []string // "text:<...>" and "submit"
	gate     chan struct{}
	typed    chan string // every event, as it happens
	released chan struct{}
	// afterSubmit runs under mu after each SubmitRoom.
	afterSubmit func()
	lastInput   time.Time
}

func newFakeTerm() *fakeTerm {
	return &fakeTerm{typed: make(chan string, 100), released: make(chan struct{}, 1)}
}

func (f *fakeTerm) TypeRoom(ctx context.Context, b []byte) error {
	f.mu.Lock()
	gate := f.gate
	f.mu.Unlock()
	if gate != nil {
		select {
		case <-gate:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	f.record("text:" + string(b))
	return nil
}

func (f *fakeTerm) SubmitRoom(ctx context.Context) error {
	f.mu.Lock()
	f.pending = false // as Pane: the \r sends what the person typed
	if f.afterSubmit != nil {
		f.afterSubmit()
	}
	f.mu.Unlock()
	f.record("submit")
	return nil
}

func (f *fakeTerm) record(e string) {
	f.mu.Lock()
	f.events = append(f.events, e)
	f.mu.Unlock()
	f.typed <- e
}

func (f *fakeTerm) Pending() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.pending
}

func (f *fakeTerm) setPending(p bool) {
	f.mu.Lock()
	was := f.pending
	f.pending = p
	f.mu.Unlock()
	if was && !p {
		notifyChan(f.released)
	}
}

func (f *fakeTerm) InputReleased() <-chan struct{} { return f.released }

func (f *fakeTerm) LastInput() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lastInput
}

func (f *fakeTerm) Events() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.events...)
}

// next waits for the next event.
func (f *fakeTerm) next(t *testing.T) string {
	t.Helper()
	select {
	case e := <-f.typed:
		return e
	case <-time.After(testWait):
		t.Fatalf("nothing typed; so far %q", f.Events())
		return ""
	}
}

// fakeSleep returns at once and records the pauses asked for.
type fakeSleep struct {
	mu     sync.Mutex
	pauses []time.Duration
}

func (s *fakeSleep) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.pauses = append(s.pauses, d)
	s.mu.Unlock()
	return ctx.Err()
}

func newTestTypist(t *testing.T) (*Typist, *fakeSleep) {
	s := &fakeSleep{}
	ty := NewTypist(TypistOptions{Sleep: s.Sleep, Location: tokyo})
	t.Cleanup(ty.Close)
	return ty, s
}

func TestTypistTypesTagBodyPauseSubmit(t *testing.T) {
	t.Parallel()
	ty, sl := newTestTypist(t)
	term := newFakeTerm()
	ty.Attach("topic", "acct", term)
	p := roomPost("m1", "Lin", "hello\r\nworld\x1b[31m\ttab\x07")
	p.To = []string{"Mei"}
	ty.Deliver("topic", p, "admin", []string{"acct"})
	want := `text:[pullcept] {"role":"admin","from":"Lin","message_id":"m1","at":"2026-10-02T01:14+09:00","to":["Mei"]}` + "\nhello\nworld[31mtab"
	if got := term.next(t); got != want {
		t.Errorf("typed %q\nwant  %q", got, want)
	}
	if got := term.next(t); got != "submit" {
		t.Errorf("then %q, want submit", got)
	}
	sl.mu.Lock()
	defer sl.mu.Unlock()
	if len(sl.pauses) != 1 || sl.pauses[0] != DefaultTypingPause {
		t.Errorf("pauses %v, want one of %v", sl.pauses, DefaultTypingPause)
	}
}

// An addressed post's tag tells each receiver its names as saved when the
// post is typed (a rename while it waits is what it reads); a room-wide
// post's tag has neither field.
func TestTypistTellsTheReceiverItsNames(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	names := map[string][2]string{"acc-lin": {"Lin", "Claude Lin"}, "acc-lay": {"Lay", "Lay"}}
	ty := NewTypist(TypistOptions{Sleep: (&fakeSleep{}).Sleep, Location: tokyo, Names: func(a string) (string, string, bool) {
		mu.Lock()
		defer mu.Unlock()
		n, ok := names[a]
		return n[0], n[1], ok
	}})
	t.Cleanup(ty.Close)
	lin, lay := newFakeTerm(), newFakeTerm()
	lin.setPending(true) // the person is typing in Lin's pane: its post waits
	ty.Attach("t", "acc-lin", lin)
	ty.Attach("t", "acc-lay", lay)
	p := roomPost("m1", "Eta", "hi")
	p.FullName, p.To = "Codex Eta", []string{"Lay"}
	ty.Deliver("t", p, "cli", []string{"acc-lin", "acc-lay"})
	const head = `text:[pullcept] {"role":"cli","from":"Eta","full_name":"Codex Eta","message_id":"m1","at":"2026-10-02T01:14+09:00","to":["Lay"]`
	if got, want := lay.next(t), head+`,"you":"Lay","your_full_name":"Lay"}`+"\nhi"; got != want {
		t.Errorf("Lay typed %q\nwant      %q", got, want)
	}
	mu.Lock()
	names["acc-lin"] = [2]string{"Luna", "Claude Lin"} // renamed while its post waits
	mu.Unlock()
	lin.setPending(false)
	if got, want := lin.next(t), head+`,"you":"Luna","your_full_name":"Claude Lin"}`+"\nhi"; got != want {
		t.Errorf("Lin typed %q\nwant      %q", got, want)
	}
	lin.next(t) // submit
	wide := roomPost("m2", "Eta", "all")
	wide.FullName = "Codex Eta"
	ty.Deliver("t", wide, "cli", []string{"acc-lin"})
	if got := lin.next(t); strings.Contains(got, `"you"`) || strings.Contains(got, "your_full_name") || !strings.Contains(got, `"full_name":"Codex Eta"`) {
		t.Errorf("room-wide post typed %q: want the speaker's full name and no receiver fields", got)
	}
}

// A post's text keeps the pause from the last keys written before it, so
// an earlier \r is not read together with it.
func TestTypistKeepsPauseAfterEarlierInput(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 10, 2, 0, 0, 0, 0, time.UTC)
	var pauses []time.Duration
	ty := NewTypist(TypistOptions{
		Now: func() time.Time { mu.Lock(); defer mu.Unlock(); return now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			mu.Lock()
			defer mu.Unlock()
			pauses = append(pauses, d)
			now = now.Add(d)
			return nil
		},
	})
	t.Cleanup(ty.Close)
	term := newFakeTerm()
	term.lastInput = now.Add(-50 * time.Millisecond)
	ty.Attach("t", "a", term)
	ty.Deliver("t", roomPost("m1", "Lin", "one"), "admin", []string{"a"})
	term.next(t)
	term.next(t)
	mu.Lock()
	defer mu.Unlock()
	if want := []time.Duration{150 * time.Millisecond, DefaultTypingPause}; fmt.Sprint(pauses) != fmt.Sprint(want) {
		t.Errorf("pauses %v, want %v", pauses, want)
	}
}

func TestTypistInOrderAndDeliverNeverWaits(t *testing.T) {
	t.Parallel()
	ty, _ := newTestTypist(t)
	term := newFakeTerm()
	term.gate = make(chan struct{}) // every write blocks until the gate opens
	ty.Attach("t", "a", term)
	start := time.Now()
	for i := range 20 {
		ty.Deliver("t", roomPost(fmt.Sprint("m", i), "Lin", fmt.Sprint("body ", i)), "admin", []string{"a"})
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("Deliver waited %v", d)
	}
	close(term.gate)
	for i := range 20 {
		if got, want := term.next(t), "text:"+typedPost("admin", roomPost(fmt.Sprint("m", i), "Lin", fmt.Sprint("body ", i))); got != want {
			t.Fatalf("post %d: %q, want %q", i, got, want)
		}
		if got := term.next(t); got != "submit" {
			t.Fatalf("post %d: then %q", i, got)
		}
	}
}

func TestTypistRoutesByTopicAndAccount(t *testing.T) {
	t.Parallel()
	ty, _ := newTestTypist(t)
	ta, tb, ua := newFakeTerm(), newFakeTerm(), newFakeTerm()
	ty.Attach("t", "a", ta)
	ty.Attach("t", "b", tb)
	ty.Attach("u", "a", ua)
	ty.Deliver("t", roomPost("m1", "Lin", "one"), "admin", []string{"a", "a", "c"})
	ty.Deliver("t", roomPost("m2", "Lin", "two"), "admin", nil)
	ty.Deliver("t", roomPost("m3", "Lin", "three"), "admin", []string{"b"})
	// tb's first post is m3: it never got m1 (its queue is strictly ordered).
	if got := tb.next(t); !strings.Contains(got, `"message_id":"m3"`) {
		t.Errorf("b typed %q first, want m3", got)
	}
	ta.next(t)
	ta.next(t)
	ty.Deliver("u", roomPost("m4", "Lin", "four"), "admin", []string{"a"})
	if got := ua.next(t); !strings.Contains(got, `"message_id":"m4"`) {
		t.Errorf("u/a typed %q first, want m4", got)
	}
	ty.Close()
	if got := ta.Events(); len(got) != 2 || !strings.Contains(got[0], `"m1"`) {
		t.Errorf("t/a got %q, want m1 once", got)
	}
}

func TestTypistHoldsWhilePendingAndReleasesInOrder(t *testing.T) {
	t.Parallel()
	ty, _ := newTestTypist(t)
	term := newFakeTerm()
	term.pending = true
	held := make(chan struct{}, 10)
	ty.attach("t", "a", term, nil, func() { held <- struct{}{} })
	ty.Deliver("t", roomPost("m1", "Lin", "one"), "admin", []string{"a"})
	ty.Deliver("t", roomPost("m2", "Lin", "two"), "admin", []string{"a"})
	<-held
	ty.Deliver("t", roomPost("m3", "Lin", "three"), "admin", []string{"a"})
	if ev := term.Events(); len(ev) != 0 {
		t.Fatalf("typed while held: %q", ev)
	}
	term.setPending(false)
	for _, id := range []string{"m1", "m2", "m3"} {
		if got := term.next(t); !strings.Contains(got, `"message_id":"`+id+`"`) {
			t.Fatalf("typed %q, want %s", got, id)
		}
		term.next(t) // submit
	}
}

// The hold is decided when a post's turn comes, not when it is delivered:
// the person starts typing after m1's \r, while m2 waits in the queue.
func TestTypistDecidesAtTypingTime(t *testing.T) {
	t.Parallel()
	ty, _ := newTestTypist(t)
	term := newFakeTerm()
	term.afterSubmit = func() { term.pending = true } // once, below
	held := make(chan struct{}, 10)
	ty.attach("t", "a", term, nil, func() { held <- struct{}{} })
	ty.Deliver("t", roomPost("m1", "Lin", "one"), "admin", []string{"a"})
	ty.Deliver("t", roomPost("m2", "Lin", "two"), "admin", []string{"a"})
	if got := term.next(t); !strings.Contains(got, `"m1"`) {
		t.Fatalf("typed %q, want m1", got)
	}
	term.next(t) // submit
	select {
	case <-held:
	case <-time.After(testWait):
		t.Fatalf("m2 not held; typed %q", term.Events())
	}
	if ev := term.Events(); len(ev) != 2 {
		t.Fatalf("typed while held: %q", ev)
	}
	term.mu.Lock()
	term.afterSubmit = nil
	term.mu.Unlock()
	term.setPending(false)
	if got := term.next(t); !strings.Contains(got, `"m2"`) {
		t.Fatalf("typed %q, want m2", got)
	}
	term.next(t)
}

func TestTypistDetachDropsAndClose(t *testing.T) {
	t.Parallel()
	ty, _ := newTestTypist(t)
	term := newFakeTerm()
	term.pending = true
	held := make(chan struct{}, 10)
	ty.attach("t", "a", term, nil, func() { held <- struct{}{} })
	ty.Deliver("t", roomPost("m1", "Lin", "one"), "admin", []string{"a"})
	<-held
	ty.Detach("t", "a") // returns: the held goroutine ends
	term.setPending(false)
	ty.Deliver("t", roomPost("m2", "Lin", "two"), "admin", []string{"a"})
	// Attach a new terminal under the same key: it starts empty.
	t2 := newFakeTerm()
	ty.Attach("t", "a", t2)
	ty.Deliver("t", roomPost("m3", "Lin", "three"), "admin", []string{"a"})
	if got := t2.next(t); !strings.Contains(got, `"m3"`) {
		t.Fatalf("new terminal typed %q, want m3", got)
	}
	t2.next(t)
	ty.Close()
	if ev := term.Events(); len(ev) != 0 {
		t.Errorf("detached terminal got %q", ev)
	}
	ty.Attach("t", "b", newFakeTerm()) // after Close: nothing
	ty.Deliver("t", roomPost("m4", "Lin", "four"), "admin", []string{"b"})
}

// --- real PTY with the scripted CLI ---

// submits splits a record's reads at each read that is exactly "\r" into
// the text typed before it.
func submits(rec []recEntry) []string {
	var out []string
	var cur bytes.Buffer
	for _, e := range inputs(rec) {
		if string(e.data) == "\r" {
			out = append(out, cur.String())
			cur.Reset()
			continue
		}
		cur.Write(e.data)
	}
	return out
}

func countSubmits(n int) func([]recEntry) bool {
	return func(r []recEntry) bool { return len(submits(r)) >= n }
}

func realTypist(t *testing.T) *Typist {
	ty := NewTypist(TypistOptions{Location: tokyo})
	t.Cleanup(ty.Close)
	return ty
}

func TestTypistIntoScriptCLI(t *testing.T) {
	t.Parallel()
	bin := buildScriptCLI(t)
	p, rec := startScriptCLI(t, bin)
	ty := realTypist(t)
	ty.Attach("t", "a", p)
	po := roomPost("m-1", "Lin \"quoted\"", "line one\r\nline two\r\x1b[2J\x03 end\x7f")
	po.To = []string{"Mei", "Kai"}
	ty.Deliver("t", po, "claude_code", []string{"a"})
	r := waitRecord(t, rec, "one submitted post", countSubmits(1))
	in := inputs(r)
	want := typedPost("claude_code", po)
	if !strings.HasPrefix(want, `[pullcept] {"role":"claude_code","from":"Lin \"quoted\"","message_id":"m-1","at":"2026-10-02T01:14+09:00","to":["Mei","Kai"]}`+"\n") {
		t.Fatalf("tag line: %q", want)
	}
	if strings.ContainsAny(strings.SplitN(want, "\n", 2)[1], "\r\x1b\x03\x7f") {
		t.Fatalf("body not sanitised: %q", want)
	}
	// The text may be read in pieces, but \r is a read of its own, at
	// least ~150 ms after the last piece of the text.
	last := len(in) - 1
	if string(in[last].data) != "\r" {
		t.Fatalf("last read %q, want \\r", in[last].data)
	}
	var text bytes.Buffer
	for _, e := range in[:last] {
		text.Write(e.data)
	}
	if text.String() != want {
		t.Errorf("typed %q\nwant  %q", text.String(), want)
	}
	if gap := in[last].at.Sub(in[last-1].at); gap < 150*time.Millisecond {
		t.Errorf("\\r came %v after the text, want about %v", gap, DefaultTypingPause)
	}
	if p.Pending() {
		t.Error("pending after the typist's \\r")
	}
	waitScreen(t, p, "line two")
}

func TestTypistBurstInOrderIntoScriptCLI(t *testing.T) {
	t.Parallel()
	bin := buildScriptCLI(t)
	p, rec := startScriptCLI(t, bin)
	ty := realTypist(t)
	ty.Attach("t", "a", p)
	const n = 20
	for i := range n {
		ty.Deliver("t", roomPost(fmt.Sprintf("m%02d", i), "Lin", fmt.Sprintf("post %02d\nsecond line", i)), "admin", []string{"a"})
	}
	r := waitRecord(t, rec, fmt.Sprint(n, " submits"), countSubmits(n))
	got := submits(r)
	for i := range n {
		if want := typedPost("admin", roomPost(fmt.Sprintf("m%02d", i), "Lin", fmt.Sprintf("post %02d\nsecond line", i))); got[i] != want {
			t.Errorf("submit %d = %q\nwant %q", i, got[i], want)
		}
	}
}

func TestTypistHoldsForPersonInScriptCLI(t *testing.T) {
	t.Parallel()
	bin := buildScriptCLI(t)
	for _, release := range []string{"\r", "\x15"} {
		t.Run(fmt.Sprintf("%q", release), func(t *testing.T) {
			t.Parallel()
			p, rec := startScriptCLI(t, bin)
			ty := realTypist(t)
			held := make(chan struct{}, 10)
			ty.attach("t", "a", p, nil, func() { held <- struct{}{} })
			p.Write([]byte("half"))
			p.Write([]byte("日本"))
			p.Write([]byte{0x7f})
			ty.Deliver("t", roomPost("m1", "Lin", "one"), "admin", []string{"a"})
			ty.Deliver("t", roomPost("m2", "Lin", "two"), "admin", []string{"a"})
			select {
			case <-held:
			case <-time.After(testWait):
				t.Fatal("never held")
			}
			ty.Deliver("t", roomPost("m3", "Lin", "three"), "admin", []string{"a"})
			// The person's keys are queued before the hold was decided.
			waitRecord(t, rec, "the person's keys", func(r []recEntry) bool {
				var b bytes.Buffer
				for _, e := range inputs(r) {
					b.Write(e.data)
				}
				return b.String() == "half日本\x7f"
			})
			if !p.Pending() {
				t.Fatal("not pending")
			}
			p.Write([]byte(release))
			r := waitRecord(t, rec, "the person's send and three posts", func(r []recEntry) bool {
				n := len(submits(r))
				if release == "\r" {
					return n >= 4
				}
				return n >= 3
			})
			var want []string
			if release == "\r" {
				want = append(want, "half日本\x7f")
			}
			for _, id := range []string{"m1", "m2", "m3"} {
				body := map[string]string{"m1": "one", "m2": "two", "m3": "three"}[id]
				want = append(want, typedPost("admin", roomPost(id, "Lin", body)))
			}
			if release == "\x15" {
				want[0] = "half日本\x7f\x15" + want[0]
			}
			got := submits(r)
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Errorf("submitted\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func TestTypistOnlyListedAccountsInScriptCLI(t *testing.T) {
	t.Parallel()
	bin := buildScriptCLI(t)
	pa, reca := startScriptCLI(t, bin)
	pb, recb := startScriptCLI(t, bin)
	ty := realTypist(t)
	ty.Attach("t", "a", pa)
	ty.Attach("t", "b", pb)
	ty.Deliver("t", roomPost("m1", "Lin", "for a only"), "admin", []string{"a"})
	ty.Deliver("t", roomPost("m2", "Lin", "for b"), "admin", []string{"b"})
	ra := waitRecord(t, reca, "a's post", countSubmits(1))
	rb := waitRecord(t, recb, "b's post", countSubmits(1))
	// b's queue is strictly ordered: had it been given m1, m1 would come
	// before m2.
	if got := submits(rb); !strings.Contains(got[0], `"m2"`) {
		t.Errorf("b typed %q first", got[0])
	}
	if got := submits(ra); !strings.Contains(got[0], `"m1"`) {
		t.Errorf("a typed %q first", got[0])
	}
}

// The scripted CLI answers a typed post through an MCP server, as a real
// CLI answers through the sidecar.
func TestScriptCLISpeaksThroughMCP(t *testing.T) {
	t.Parallel()
	bin := buildScriptCLI(t)
	dir := t.TempDir()
	mcpLog := filepath.Join(dir, "mcp.jsonl")
	cfg := map[string]any{"mcpServers": map[string]any{"room": map[string]any{
		"command": bin, "args": []string{"fake-mcp"}, "env": map[string]string{"SCRIPTCLI_MCP_LOG": mcpLog},
	}}}
	data, _ := json.Marshal(cfg)
	cfgPath := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	p, rec := startScriptCLI(t, bin, "PULLCEPT_MCP_CONFIG="+cfgPath)
	ty := realTypist(t)
	ty.Attach("t", "a", p)
	ty.Deliver("t", roomPost("m-42", "Lin", "are you there?\nsecond line"), "admin", []string{"a"})
	r := waitRecord(t, rec, "the tool's answer", hasKind("said"))
	for _, e := range r {
		if e.kind == "said" && !strings.Contains(e.text, "Delivered to the room. message_id: fake-1") {
			t.Fatalf("said %s", e.text)
		}
	}
	got, err := os.ReadFile(mcpLog)
	if err != nil {
		t.Fatal(err)
	}
	var args map[string]string
	if err := json.Unmarshal(bytes.TrimSpace(got), &args); err != nil {
		t.Fatalf("mcp log %q: %v", got, err)
	}
	if args["content"] != "ack: are you there?\nsecond line" || args["last_seen"] != "m-42" {
		t.Errorf("say_to_room %v", args)
	}
}

// screenTerm is a fakeTerm whose application has drawn (LastOutput) from
// the start, a spinner say, but shows the typed text only once shown is
// set: the typist must not submit before the body's end is on screen.
type screenTerm struct {
	*fakeTerm
	mu     sync.Mutex
	screen string
}

func (s *screenTerm) LastOutput() time.Time { return time.Now().Add(time.Hour) }
func (s *screenTerm) Render() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.screen
}

// A CLI that is busy drawing something else has not read the text yet: the
// \r waits until the body's end shows on its screen (wrapped and indented
// as an input box draws it), not just for any output.
func TestTypistWaitsForTheBodyOnScreen(t *testing.T) {
	t.Parallel()
	term := &screenTerm{fakeTerm: newFakeTerm(), screen: "⠋ Starting MCP servers"}
	var sleeps int
	var mu sync.Mutex
	ty := NewTypist(TypistOptions{Location: tokyo, Sleep: func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		sleeps++
		if sleeps == 5 { // the CLI reads the paste and draws it, wrapped
			term.mu.Lock()
			term.screen = "› [pullcept] {…}\n  please review the\n  change now"
			term.mu.Unlock()
		}
		return ctx.Err()
	}})
	t.Cleanup(ty.Close)
	ty.Attach("t", "a", term)
	ty.Deliver("t", roomPost("m1", "Lin", "please review the change now"), "admin", []string{"a"})
	if got := term.next(t); !strings.HasPrefix(got, "text:") {
		t.Fatalf("first %q, want the text", got)
	}
	if got := term.next(t); got != "submit" {
		t.Fatalf("then %q, want submit", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if sleeps < 6 { // 5 waits for the screen, then the pause
		t.Errorf("submitted after %d sleeps: before the body's end was on screen", sleeps)
	}
}

// TestTypistHoldsByTheLoopBudget (issue 36): a post held by the loop
// budget holds itself and all behind it (HoldByLoop); ReleaseLoop up to an
// ordinal types those, in order, and the rest stay held until released.
func TestTypistHoldsByTheLoopBudget(t *testing.T) {
	t.Parallel()
	ty, _ := newTestTypist(t)
	term := newFakeTerm()
	ty.Attach("topic", "acct", term)
	ty.Deliver("topic", roomPost("m1", "Lin", "one"), "cli", []string{"acct"})
	if got := term.next(t); !strings.Contains(got, "one") {
		t.Fatalf("typed %q", got)
	}
	term.next(t) // submit
	ty.DeliverLoopHeld("topic", roomPost("m2", "Lay", "two"), "cli", []string{"acct"}, 2)
	ty.DeliverLoopHeld("topic", roomPost("m3", "Lin", "three"), "cli", []string{"acct"}, 3)
	ty.Deliver("topic", roomPost("m4", "hook", "notice"), "mcp", []string{"acct"})
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, why := ty.HeldReason("topic", "acct")
		if n == 3 && why.Kind == HoldByLoop {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("held %d %+v, want 3 by the loop", n, why)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if ev := term.Events(); len(ev) != 2 {
		t.Fatalf("typed past the budget: %q", ev)
	}
	ty.ReleaseLoop("other", 10) // another topic's release: nothing here
	ty.ReleaseLoop("topic", 2)
	if got := term.next(t); !strings.Contains(got, "two") {
		t.Fatalf("typed %q, want the released post", got)
	}
	term.next(t)
	for {
		if n, why := ty.HeldReason("topic", "acct"); n == 2 && why.Kind == HoldByLoop {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the post past the new limit is not held")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ty.ReleaseLoop("topic", math.MaxInt)
	for _, want := range []string{"three", "notice"} {
		if got := term.next(t); !strings.Contains(got, want) {
			t.Fatalf("typed %q, want %q", got, want)
		}
		term.next(t)
	}
}
