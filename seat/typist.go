package seat

// The typist types room posts into terminals (spec 003 "発言は端末へ入る").
//
// Each attached terminal has one queue and one goroutine that types its head
// strictly in order; Deliver only appends and never waits. For the head
// post the goroutine decides at typing time: while the person has unsent
// input in that terminal it holds (typing would join the post to the
// half-typed input and the tag would no longer start the first line), and
// it looks again each time the terminal says the input was sent or cleared.
// That signal reaches the same goroutine, which only ever types the head of
// the queue, so a post queued while others were held is typed after them.
//
// A post is the tag line, "\n" and the sanitised body in one write, then,
// after a pause (200 ms), \r as a separate write: the CLIs treat the first
// write as a paste and the \r as the Enter key. The same pause is kept
// between any earlier input to the terminal (the previous post's \r, the
// person's own Enter) and a post's text, or the CLI could read the \r and
// the text in one read and take the \r for part of a paste.
//
// A queue is bounded (MaxQueuedPosts, MaxQueuedBytes; docs/decisions.md
// "A seat's queue is bounded"): a program that does not read its input
// must not grow the server. At the bound the queue stops taking posts —
// they stay in the room and its log — until it has drained empty; then the
// seat is told, once, how many it was not typed (OnGap).

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/charmbracelet/x/ansi"

	"pullcept/room/wire"
)

// DefaultTypingPause is the pause between a post's text and its \r.
const DefaultTypingPause = 200 * time.Millisecond

// The bound of one terminal's queue: the posts waiting in it (the one being
// written included) and their typed bytes. docs/decisions.md "A seat's
// queue is bounded" says why these.
const (
	MaxQueuedPosts = 256
	MaxQueuedBytes = 4 << 20
)

// DefaultStuckAfter is how long a post's write may wait on the terminal
// before the queue says its program is not reading its input.
const DefaultStuckAfter = 2 * time.Second

// HoldNotReading is why a terminal holds posts while a write into it waits
// (the program does not read its input; the PTY's buffer is full).
const HoldNotReading = "its program is not reading its input"

// Gap is a run of posts a terminal's queue did not take while it was full:
// how many, and the first's and last's message ids.
type Gap struct {
	Skipped     int
	First, Last string
}

// TerminalWriter is a terminal the typist types into. *Pane is one.
type TerminalWriter interface {
	// TypeRoom writes b as one write and returns once it is written.
	TypeRoom(ctx context.Context, b []byte) error
	// SubmitRoom writes \r as its own write and returns once it is
	// written; the person's unsent input reads empty afterwards.
	SubmitRoom(ctx context.Context) error
	// Pending reports whether the person has typed input not yet sent.
	Pending() bool
	// InputReleased is signalled (buffered, coalesced) when the person's
	// input goes empty.
	InputReleased() <-chan struct{}
	// LastInput is when keys (the person's or the typist's) were last
	// written to the terminal's input; zero if never.
	LastInput() time.Time
}

// TypistOptions configure a Typist. The zero value is the real thing.
type TypistOptions struct {
	// Pause is the pause before \r; zero means DefaultTypingPause.
	Pause time.Duration
	// Sleep waits d or until ctx ends; nil means a real timer. Tests inject
	// a fake clock here.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Location is where the tag's "at" is written; nil means time.Local.
	Location *time.Location
	// Log receives typing failures; nil means slog.Default().
	Log *slog.Logger
	// OnHold, if set, is told when the number of posts a terminal holds, or
	// why it holds them, changes (held 0 and why "" when it types again).
	// It must not block.
	OnHold func(topic, account string, held int, why string)
	// OnTyped, if set, is told after each post's \r was written. It must
	// not block.
	OnTyped func(topic, account string, post wire.Post)
	// OnMark, if set, is told each post's delivery mark in a terminal as
	// the typist knows it: held (why), typing, typed (marks.go). It must not
	// block.
	OnMark func(topic, account string, post wire.Post, mark Mark, why string)
	// Names answers an account's calling name and name as saved now, for
	// the receiver fields of an addressed post's tag (you, your_full_name),
	// read when the post is typed; nil or !ok: the tag has neither.
	Names func(account string) (name, fullName string, ok bool)
	// MaxPosts and MaxBytes bound each queue; zero means MaxQueuedPosts,
	// MaxQueuedBytes.
	MaxPosts, MaxBytes int
	// StuckAfter is how long a write may wait before the queue says its
	// program is not reading; zero means DefaultStuckAfter.
	StuckAfter time.Duration
	// OnGap, if set, is told when a queue that stopped taking posts (it
	// was full) has drained empty and takes them again: the run it did not
	// take. It is called from the typing goroutine with no lock held,
	// before the next post is typed: a post delivered first from it
	// (DeliverFirst) is typed next.
	OnGap func(topic, account string, g Gap)
}

// Gate says whether a terminal may be typed into now: a seat's Activity.
// Begin is asked before each post; End follows its \r. Hold is its reason
// now, without beginning.
type Gate interface {
	Begin() (ok bool, why HoldReason)
	End()
	Hold() HoldReason
	Changed() <-chan struct{}
}

// submitWaiter is a gate that keeps a post's \r off a moment (Activity:
// just after the CLI's turn ended).
type submitWaiter interface{ SubmitWait() time.Duration }

// HoldUnsent is why a terminal holds posts while the person has unsent keys
// in it.
const HoldUnsent = "unsent keys in this pane (Enter or Ctrl-U releases)"

// Typist types room posts into the attached terminals. Its methods are safe
// for concurrent use.
type Typist struct {
	opts TypistOptions

	mu     sync.Mutex
	terms  map[termKey]*termQueue
	closed bool
	wg     sync.WaitGroup
}

type termKey struct{ topic, account string }

// termQueue is one terminal's queue and the goroutine that types it.
type termQueue struct {
	topic, account string
	w              TerminalWriter
	gate           Gate // nil: always open
	ctx            context.Context
	cancel         context.CancelFunc
	done           chan struct{}

	mu           sync.Mutex
	posts        []queued // oldest first
	ready        chan struct{}
	why          HoldReason // why the head is held, zero when not
	report       [2]any     // the last (held, why) told to OnHold
	onHoldReport func(held int, why string)
	onMark       func(p wire.Post, mark Mark, why string)

	// onHold, for tests, is called each time the head post is held.
	onHold func()

	// The bound (under mu): bytes are the typed bytes of posts. full: the
	// queue reached its bound and takes no post until it has drained
	// empty; gap is the run it did not take meanwhile.
	bytes              int
	maxPosts, maxBytes int
	full               bool
	gap                Gap
	onGap              func(Gap)
}

// NewTypist makes a Typist with no terminals.
func NewTypist(opts TypistOptions) *Typist {
	if opts.Pause <= 0 {
		opts.Pause = DefaultTypingPause
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepCtx
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.MaxPosts <= 0 {
		opts.MaxPosts = MaxQueuedPosts
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = MaxQueuedBytes
	}
	if opts.StuckAfter <= 0 {
		opts.StuckAfter = DefaultStuckAfter
	}
	return &Typist{opts: opts, terms: map[termKey]*termQueue{}}
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Attach registers w as account's terminal in topic, replacing (and
// detaching) any earlier one. Posts delivered from now on are typed into it.
func (t *Typist) Attach(topic, account string, w TerminalWriter) {
	t.attach(topic, account, w, nil, nil)
}

// AttachGated is Attach with a gate: nothing is typed while the gate holds.
func (t *Typist) AttachGated(topic, account string, w TerminalWriter, g Gate) {
	t.attach(topic, account, w, g, nil)
}

func (t *Typist) attach(topic, account string, w TerminalWriter, g Gate, onHold func()) {
	k := termKey{topic, account}
	ctx, cancel := context.WithCancel(context.Background())
	q := &termQueue{topic: topic, account: account, w: w, gate: g, ctx: ctx, cancel: cancel, done: make(chan struct{}), ready: make(chan struct{}, 1), onHold: onHold}
	t.mu.Lock()
	q.maxPosts, q.maxBytes = t.opts.MaxPosts, t.opts.MaxBytes
	if f := t.opts.OnGap; f != nil {
		q.onGap = func(g Gap) { f(topic, account, g) }
	}
	if f := t.opts.OnHold; f != nil {
		q.onHoldReport = func(held int, why string) { f(topic, account, held, why) }
	}
	if f := t.opts.OnMark; f != nil {
		q.onMark = func(p wire.Post, mark Mark, why string) { f(topic, account, p, mark, why) }
	}
	if t.closed {
		t.mu.Unlock()
		cancel()
		return
	}
	old := t.terms[k]
	t.terms[k] = q
	t.wg.Add(1)
	t.mu.Unlock()
	if old != nil {
		old.stop()
	}
	go func() {
		defer t.wg.Done()
		defer close(q.done)
		t.typeLoop(q)
	}()
}

// Detach forgets account's terminal in topic and drops the posts not yet
// typed into it. It waits until its goroutine has ended (a write in
// progress ends when the terminal closes).
func (t *Typist) Detach(topic, account string) {
	k := termKey{topic, account}
	t.mu.Lock()
	q := t.terms[k]
	delete(t.terms, k)
	t.mu.Unlock()
	if q != nil {
		q.stop()
	}
}

func (q *termQueue) stop() {
	q.cancel()
	<-q.done
}

// Deliver queues post for every terminal attached in topic whose account is
// in accounts (the room has already left out the speaker's own), each
// account once. It never waits.
func (t *Typist) Deliver(topic string, post wire.Post, role string, accounts []string) {
	t.deliver(topic, post, role, accounts, false)
}

// DeliverFirst queues a post before what already waits in each terminal,
// past the queue's bound: the app's own instruction to one seat.
func (t *Typist) DeliverFirst(topic string, post wire.Post, role string, accounts []string) {
	t.deliver(topic, post, role, accounts, true)
}

// DeliverLoopHeld is Deliver for a post past the loop budget: queued in
// order, held (HoldByLoop) as ordinal seq until ReleaseLoop reaches it.
func (t *Typist) DeliverLoopHeld(topic string, post wire.Post, role string, accounts []string, seq int) {
	t.deliverSeq(topic, post, role, accounts, false, seq)
}

// ReleaseLoop lets every terminal of topic type the posts held by the loop
// budget whose ordinal is at most upTo, in their order (room.LoopReleaser).
func (t *Typist) ReleaseLoop(topic string, upTo int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for k, q := range t.terms {
		if k.topic != topic {
			continue
		}
		q.mu.Lock()
		for i := range q.posts {
			if q.posts[i].loop > 0 && q.posts[i].loop <= upTo {
				q.posts[i].loop = 0
			}
		}
		q.mu.Unlock()
		notifyChan(q.ready)
	}
}

func (t *Typist) deliver(topic string, post wire.Post, role string, accounts []string, first bool) {
	t.deliverSeq(topic, post, role, accounts, first, 0)
}

func (t *Typist) deliverSeq(topic string, post wire.Post, role string, accounts []string, first bool, seq int) {
	if len(accounts) == 0 {
		return
	}
	p := queued{role: role, body: wire.TypedBody(post.Content), post: post, loop: seq}
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := make(map[string]bool, len(accounts))
	for _, a := range accounts {
		if seen[a] {
			continue
		}
		seen[a] = true
		if q := t.terms[termKey{topic, a}]; q != nil {
			q.push(p, first)
		}
	}
}

// Close detaches every terminal and waits for their goroutines. Deliver
// and Attach afterwards do nothing.
func (t *Typist) Close() {
	t.mu.Lock()
	t.closed = true
	qs := make([]*termQueue, 0, len(t.terms))
	for _, q := range t.terms {
		qs = append(qs, q)
	}
	t.terms = map[termKey]*termQueue{}
	t.mu.Unlock()
	for _, q := range qs {
		q.cancel()
	}
	t.wg.Wait()
}

// queued is one post waiting in a terminal's queue: its tag line and its
// sanitised body.
type queued struct {
	role, body string
	post       wire.Post
	loop       int // > 0: held by the loop budget as this ordinal
}

func (q *termQueue) push(p queued, first bool) {
	q.mu.Lock()
	if !first && (q.full || len(q.posts) >= q.maxPosts || q.bytes+len(p.body) > q.maxBytes) {
		// Past the bound: not taken. The post stays in the room and its
		// log; the seat reads it there.
		if !q.full {
			q.full, q.gap = true, Gap{First: p.post.MessageID}
		}
		q.gap.Skipped++
		q.gap.Last = p.post.MessageID
		q.reportLocked()
		q.mark(p, MarkNotReceived, WhyQueueFull)
		q.mu.Unlock()
		return
	}
	q.bytes += len(p.body)
	if first {
		// Before the head: a head being typed now is popped by its id.
		q.posts = append([]queued{p}, q.posts...)
	} else {
		q.posts = append(q.posts, p)
	}
	q.reportLocked()
	q.markHeldLocked()
	q.mu.Unlock()
	notifyChan(q.ready)
}

// loopHeld reports whether the queue's first post is held by the loop
// budget.
func (q *termQueue) loopHeld() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.posts) > 0 && q.posts[0].loop > 0
}

// head waits for the queue's first post.
func (q *termQueue) head() (queued, bool) {
	for {
		q.mu.Lock()
		if len(q.posts) > 0 {
			h := q.posts[0]
			q.mu.Unlock()
			return h, true
		}
		q.mu.Unlock()
		select {
		case <-q.ready:
		case <-q.ctx.Done():
			return queued{}, false
		}
	}
}

// pop removes p, the post just typed (the first of its id: a post queued
// first meanwhile may stand before it).
func (q *termQueue) pop(p queued) {
	q.mu.Lock()
	i := 0
	for j, x := range q.posts {
		if x.post.MessageID == p.post.MessageID {
			i = j
			break
		}
	}
	if i < len(q.posts) {
		q.bytes -= len(q.posts[i].body)
		q.posts = slices.Delete(q.posts, i, i+1) // zeroes the tail: the body goes
	}
	var gap Gap
	if q.full && len(q.posts) == 0 {
		// Drained: it takes posts again, and the seat is told of the run
		// it did not take before any later post is typed.
		gap, q.full, q.gap = q.gap, false, Gap{}
	}
	q.reportLocked()
	q.mu.Unlock()
	if gap.Skipped > 0 && q.onGap != nil {
		q.onGap(gap)
	}
}

// hold records why the head is held (zero = it is being typed).
func (q *termQueue) hold(why HoldReason) {
	q.mu.Lock()
	q.why = why
	q.reportLocked()
	q.markHeldLocked()
	q.mu.Unlock()
}

// held is how many posts the queue holds and why (0 and the zero reason
// when it types).
func (q *termQueue) held() (int, HoldReason) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.heldLocked()
}

// heldLocked is held with q.mu held. A full queue says so after the head's
// reason, or is the reason itself when nothing else holds (hold.go).
func (q *termQueue) heldLocked() (int, HoldReason) {
	why := q.why
	if q.full {
		full := fmt.Sprintf("queue full: %s not typed (they stay in the room)", plural(q.gap.Skipped, "1 post", strconv.Itoa(q.gap.Skipped)+" posts"))
		if why.Held() {
			why.Text += "; " + full
		} else {
			why = HoldReason{HoldByBacklog, full}
		}
	}
	if !why.Held() {
		return 0, HoldReason{}
	}
	return len(q.posts), why
}

func (q *termQueue) reportLocked() {
	if q.onHoldReport == nil {
		return
	}
	n, reason := q.heldLocked()
	why := reason.Text
	r := [2]any{n, why}
	if r != q.report {
		q.report = r
		q.onHoldReport(n, why)
	}
}

// setHoldReporter sets OnHold (the seat manager's, made after the typist).
// Terminals attached later report to it.
func (t *Typist) setHoldReporter(f func(topic, account string, held int, why string)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts.OnHold = f
}

// Held reports how many posts account's terminal in topic holds, and why.
func (t *Typist) Held(topic, account string) (int, string) {
	n, why := t.HeldReason(topic, account)
	return n, why.Text
}

// HeldReason is Held with the reason's kind.
func (t *Typist) HeldReason(topic, account string) (int, HoldReason) {
	t.mu.Lock()
	q := t.terms[termKey{topic, account}]
	t.mu.Unlock()
	if q == nil {
		return 0, HoldReason{}
	}
	return q.held()
}

func (t *Typist) typeLoop(q *termQueue) {
	var gateChanged <-chan struct{}
	if q.gate != nil {
		gateChanged = q.gate.Changed()
	}
	for {
		p, ok := q.head()
		if !ok {
			return
		}
		if q.loopHeld() {
			// Held by the loop budget, and so is all behind it: the
			// reason shown is still the first that applies (hold.go).
			why := HoldReason{HoldByLoop, HoldLoop}
			if q.w.Pending() {
				why = firstHold(why, unsentHold)
			}
			if q.gate != nil {
				why = firstHold(why, q.gate.Hold())
			}
			t.held(q, why)
			select {
			case <-q.ready: // released (ReleaseLoop) or a post queued first
				continue
			case <-q.w.InputReleased():
				continue
			case <-gateChanged:
				continue
			case <-q.ctx.Done():
				return
			}
		}
		if q.w.Pending() {
			// The reason shown is the first that applies (hold.go): an
			// open prompt or a limit before the person's own keys.
			why := unsentHold
			if q.gate != nil {
				why = firstHold(q.gate.Hold(), why)
			}
			t.held(q, why)
			select {
			case <-q.w.InputReleased():
				continue // look again: the person may have typed anew
			case <-gateChanged:
				continue
			case <-q.ctx.Done():
				return
			}
		}
		if last := q.w.LastInput(); !last.IsZero() {
			if gap := t.opts.Pause - t.opts.Now().Sub(last); gap > 0 {
				if t.opts.Sleep(q.ctx, gap) != nil {
					return
				}
				continue // look again: the person may have typed meanwhile
			}
		}
		if q.gate != nil {
			if ok, why := q.gate.Begin(); !ok {
				t.held(q, why)
				select {
				case <-gateChanged:
					continue
				case <-q.ctx.Done():
					return
				}
			}
		}
		q.hold(HoldReason{})
		q.mark(p, markTyping, "")
		err := t.typePost(q, p)
		if q.gate != nil {
			q.gate.End()
		}
		if err != nil {
			if q.ctx.Err() != nil {
				return
			}
			t.opts.Log.Warn("typing a room post into a terminal failed; post dropped", "err", err)
			q.mark(p, MarkNotReceived, WhyTypingFailed)
		} else {
			q.mark(p, MarkTyped, "")
			if t.opts.OnTyped != nil {
				t.opts.OnTyped(q.topic, q.account, p.post)
			}
		}
		q.pop(p)
	}
}

func (t *Typist) held(q *termQueue, why HoldReason) {
	q.hold(why)
	if q.onHold != nil {
		q.onHold()
	}
}

// canonical is a terminal that says whether its application reads it line
// by line (the terminal's canonical mode, ICANON).
type canonical interface{ CanonicalInput() bool }

// postText is what is typed for p: the tag line (for receiver you), "\n"
// and the body. Into a terminal in canonical mode every body line arrives
// as an input of its own, so a body line shaped like the tag would read as
// a tag line: such lines are neutralised there (wire.NeutraliseTagLines;
// docs/decisions.md).
func postText(w TerminalWriter, p queued, loc *time.Location, you *wire.Receiver) []byte {
	body := p.body
	if c, ok := w.(canonical); ok && c.CanonicalInput() {
		body = wire.NeutraliseTagLines(body)
	}
	return []byte(wire.TagLineFor(p.role, p.post, loc, you) + "\n" + body)
}

// receiver is account's current names for an addressed post's tag (nil
// when the post is room-wide or the names are unknown).
func (t *Typist) receiver(account string, p wire.Post) *wire.Receiver {
	if len(p.To) == 0 || t.opts.Names == nil {
		return nil
	}
	name, full, ok := t.opts.Names(account)
	if !ok || name == "" {
		return nil
	}
	return &wire.Receiver{Name: name, FullName: full}
}

// outputter is a terminal that says when its application last drew.
type outputter interface{ LastOutput() time.Time }

// screener is a terminal whose screen can be read (a Pane).
type screener interface{ Render() string }

// bodyTail is the last few visible characters of a typed body, without
// spaces (a CLI wraps and indents its input box), to find on the screen.
func bodyTail(body string) string {
	r := []rune(squeeze(body))
	return string(r[max(len(r)-8, 0):])
}

// squeeze drops every space and control character (line ends included).
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// echoWait bounds how long the typist waits for the application to draw
// the typed text before the pause.
const echoWait = 2 * time.Second

func (t *Typist) typePost(q *termQueue, p queued) error {
	typed := time.Now()
	text := postText(q.w, p, t.opts.Location, t.receiver(q.account, p.post))
	if err := t.write(q, func(ctx context.Context) error { return q.w.TypeRoom(ctx, text) }); err != nil {
		return err
	}
	// A busy CLI that reads the text and the \r in one read takes the \r
	// for part of the paste and never submits. Wait until it has drawn
	// something since the text was written (it read the text) and, where
	// the screen can be read, until the body's end shows on it: a CLI
	// still starting (Codex's MCP start-up) draws a spinner before it has
	// read anything. A CLI that shows a long paste folded ("[Pasted text
	// …]") never shows the end: echoWait bounds that. Then pause.
	o, _ := q.w.(outputter)
	sc, _ := q.w.(screener)
	tail := bodyTail(p.body)
	for i := 0; i < int(echoWait/(10*time.Millisecond)); i++ {
		drawn := o == nil || o.LastOutput().After(typed)
		if drawn && (sc == nil || tail == "" || strings.Contains(squeeze(ansi.Strip(sc.Render())), tail)) {
			break
		}
		if o == nil && sc == nil {
			break
		}
		if err := t.opts.Sleep(q.ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	if err := t.opts.Sleep(q.ctx, t.opts.Pause); err != nil {
		return err
	}
	if w, ok := q.gate.(submitWaiter); ok {
		if d := w.SubmitWait(); d > 0 {
			if err := t.opts.Sleep(q.ctx, d); err != nil {
				return err
			}
		}
	}
	return t.write(q, q.w.SubmitRoom)
}

// write runs one write of a post into q's terminal. A write that has not
// returned after StuckAfter waits on a program that does not read its
// input (the PTY's buffer is full): the queue holds for that reason,
// visibly, until it returns. No lock is held while it waits.
func (t *Typist) write(q *termQueue, f func(ctx context.Context) error) error {
	done := make(chan error, 1)
	go func() { done <- f(q.ctx) }()
	timer := time.NewTimer(t.opts.StuckAfter)
	defer timer.Stop()
	select {
	case err := <-done:
		return err
	case <-timer.C:
	}
	q.hold(HoldReason{HoldByBacklog, HoldNotReading})
	err := <-done
	q.hold(HoldReason{})
	return err
}

// Skipped is how many posts account's full queue in topic has not taken
// (0 when it takes posts).
func (t *Typist) Skipped(topic, account string) int {
	t.mu.Lock()
	q := t.terms[termKey{topic, account}]
	t.mu.Unlock()
	if q == nil {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.gap.Skipped
}
