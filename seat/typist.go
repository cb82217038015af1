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

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"pullcept/room/wire"
)

// DefaultTypingPause is the pause between a post's text and its \r.
const DefaultTypingPause = 200 * time.Millisecond

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
}

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
	w      TerminalWriter
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}

	mu    sync.Mutex
	posts [][]byte // the texts to type, oldest first
	ready chan struct{}

	// onHold, for tests, is called each time the head post is held.
	onHold func()
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
	t.attach(topic, account, w, nil)
}

func (t *Typist) attach(topic, account string, w TerminalWriter, onHold func()) {
	k := termKey{topic, account}
	ctx, cancel := context.WithCancel(context.Background())
	q := &termQueue{w: w, ctx: ctx, cancel: cancel, done: make(chan struct{}), ready: make(chan struct{}, 1), onHold: onHold}
	t.mu.Lock()
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
	if len(accounts) == 0 {
		return
	}
	text := []byte(wire.TagLine(role, post, t.opts.Location) + "\n" + wire.TypedBody(post.Content))
	t.mu.Lock()
	defer t.mu.Unlock()
	seen := make(map[string]bool, len(accounts))
	for _, a := range accounts {
		if seen[a] {
			continue
		}
		seen[a] = true
		if q := t.terms[termKey{topic, a}]; q != nil {
			q.push(text)
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

func (q *termQueue) push(text []byte) {
	q.mu.Lock()
	q.posts = append(q.posts, text)
	q.mu.Unlock()
	notifyChan(q.ready)
}

// head waits for the queue's first post.
func (q *termQueue) head() ([]byte, bool) {
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
			return nil, false
		}
	}
}

func (q *termQueue) pop() {
	q.mu.Lock()
	q.posts[0] = nil
	q.posts = q.posts[1:]
	q.mu.Unlock()
}

func (t *Typist) typeLoop(q *termQueue) {
	for {
		text, ok := q.head()
		if !ok {
			return
		}
		if q.w.Pending() {
			if q.onHold != nil {
				q.onHold()
			}
			select {
			case <-q.w.InputReleased():
				continue // look again: the person may have typed anew
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
		if err := t.typePost(q, text); err != nil {
			if q.ctx.Err() != nil {
				return
			}
			t.opts.Log.Warn("typing a room post into a terminal failed; post dropped", "err", err)
		}
		q.pop()
	}
}

// outputter is a terminal that says when its application last drew.
type outputter interface{ LastOutput() time.Time }

// echoWait bounds how long the typist waits for the application to draw
// the typed text before the pause.
const echoWait = 2 * time.Second

func (t *Typist) typePost(q *termQueue, text []byte) error {
	typed := time.Now()
	if err := q.w.TypeRoom(q.ctx, text); err != nil {
		return err
	}
	// A busy CLI that reads the text and the \r in one read takes the \r
	// for part of the paste and never submits. Wait until it has drawn
	// something since the text was written (it read the text), then pause.
	if o, ok := q.w.(outputter); ok {
		for i := 0; i < int(echoWait/(10*time.Millisecond)) && !o.LastOutput().After(typed); i++ {
			if err := t.opts.Sleep(q.ctx, 10*time.Millisecond); err != nil {
				return err
			}
		}
	}
	if err := t.opts.Sleep(q.ctx, t.opts.Pause); err != nil {
		return err
	}
	return q.w.SubmitRoom(q.ctx)
}
