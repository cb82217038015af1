package seat

// Delivery marks (issue 31, "One model of held posts, and delivery
// marks"): what became of each room post typed into each seat, per seat.
//
//	held (why)    the seat's terminal holds it (the typist's reason)
//	typed         its text and \r were written; the CLI has not yet said
//	              it took it as a prompt
//	received      the CLI's UserPromptSubmit hook carried its tag line, or
//	              (Claude) its transcript shows the text given to the
//	              model as input queued during a turn
//	unknown       typed into a CLI that sends no such signal
//	not received  typed and not seen as a prompt within ReceiveBound of
//	              the CLI being ready: the person is told; nothing is
//	              retyped by itself. Also a post never typed: its
//	              seat's queue was full (WhyQueueFull), the seat ended,
//	              or the write failed
//
// The bound runs only while the seat is ready: a CLI in a turn (or at a
// prompt, or starting) keeps typed input queued and submits it when the
// turn ends, so the bound starts again, whole, each time it is ready. A
// post typed while the CLI was busy is therefore judged ReceiveBound after
// the turn it waited behind (docs/decisions.md "Delivery marks").
//
// Claude fires no UserPromptSubmit for input typed while a turn runs: it
// queues the text and hands it to the model inside the same turn, after
// the next tool result, recording a "queued_command" attachment in its
// transcript (measured with 2.1.197: docs/decisions.md "Delivery marks").
// So for a kind with receipts, the transcript its hooks name
// (transcript_path) is read from where it was last read, at each hook
// while typed posts wait, and once more before a post is marked not
// received.
//
// Marks live in memory only: the topic log keeps its seven fields, and a
// reopened topic shows none.

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"pullcept/room/wire"
)

// Mark is a post's delivery mark in one seat.
type Mark string

// The marks.
const (
	MarkHeld        Mark = "held"
	MarkTyped       Mark = "typed"
	MarkReceived    Mark = "received"
	MarkUnknown     Mark = "unknown"
	MarkNotReceived Mark = "not_received"
	// markTyping is the typist's word that a post's text is being written
	// (no event: a prompt may report it before its \r is counted).
	markTyping Mark = "typing"
)

// ReceiveBound is how long a typed post may go unseen as a prompt while
// its CLI is ready before it is marked not received.
var ReceiveBound = 30 * time.Second

// Why a post was not received.
const (
	WhyUnseen       = "not seen as a prompt in time after its CLI was ready; not retyped"
	WhyEndedTyped   = "the seat ended before its CLI took it"
	WhyEndedHeld    = "the seat ended before it was typed"
	WhyTypingFailed = "typing it into the terminal failed"
	// WhyQueueFull: the seat's queue was at its bound and did not take it
	// (typist.go); it stays in the room for the seat to read.
	WhyQueueFull = "not typed: the seat's queue was full (it stays in the room: read_room_history)"
)

// MarkEvent is one post's mark in one seat, as it changed.
type MarkEvent struct {
	Topic     string `json:"topic"`
	Account   string `json:"account"`
	MessageID string `json:"message_id"`
	Mark      Mark   `json:"mark"`
	// Why is a held post's hold reason, or why a post was not received.
	Why string `json:"why,omitempty"`
	// Preview is the post's first words (for the person's notice).
	Preview string `json:"-"`
	// Bound is the not-received bound that ran out (not received only).
	Bound time.Duration `json:"-"`
}

// DeliveriesOptions wire Deliveries.
type DeliveriesOptions struct {
	// Bound is the not-received bound; zero means ReceiveBound.
	Bound time.Duration
	// AfterFunc runs f after d unless stopped; nil means time.AfterFunc.
	// Tests inject a fake clock here.
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// OnMark is told every change, in order, under the marks' lock: it must
	// not block nor call Deliveries.
	OnMark func(MarkEvent)
}

// Deliveries keeps the delivery marks of every seat. Its methods are safe for
// concurrent use.
type Deliveries struct {
	o     DeliveriesOptions
	mu    sync.Mutex
	seats map[termKey]*seatMarks
}

// seatMarks are one seat's posts and what its CLI is doing.
type seatMarks struct {
	// signals: the CLI reports prompts with their text (its kind does, or
	// it has sent one: a cli account with hooks).
	signals bool
	// busy: not ready (starting, in a turn, at a prompt): the bound waits.
	busy  bool
	posts map[string]*postMark
	// receipts reads the ids given to the model in the CLI's transcript
	// from offset on (nil: the kind has none); transcript is its path as
	// the hooks say, offset how far it was read. scan is held while it is
	// read (outside the marks' lock).
	receipts   func(path string, offset int64) (ids []string, next int64)
	transcript string
	offset     int64
	scan       sync.Mutex
}

type postMark struct {
	mark    Mark
	why     string
	preview string
	gen     int         // bumped each time the bound is armed or disarmed
	stop    func() bool // the bound running, nil when not
	bound   time.Duration
}

// NewDeliveries makes an empty Deliveries.
func NewDeliveries(o DeliveriesOptions) *Deliveries {
	if o.AfterFunc == nil {
		o.AfterFunc = func(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }
	}
	return &Deliveries{o: o, seats: map[termKey]*seatMarks{}}
}

func (m *Deliveries) bound() time.Duration {
	if m.o.Bound > 0 {
		return m.o.Bound
	}
	return ReceiveBound
}

// Seat starts (or restarts) account's seat in topic: busy until Busy says
// it is ready; signals says its kind reports prompts, receipts how its
// transcript shows input given to the model (nil: not read).
func (m *Deliveries) Seat(topic, account string, signals bool, receipts func(path string, offset int64) ([]string, int64)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.seats[termKey{topic, account}] = &seatMarks{signals: signals, busy: true, posts: map[string]*postMark{}, receipts: receipts}
}

func (m *Deliveries) seatLocked(topic, account string) *seatMarks {
	s := m.seats[termKey{topic, account}]
	if s == nil { // a terminal attached without a seat (tests): never ready
		s = &seatMarks{busy: true, posts: map[string]*postMark{}}
		m.seats[termKey{topic, account}] = s
	}
	return s
}

// typist takes the typist's word about a post (TypistOptions.OnMark).
func (m *Deliveries) typist(topic, account string, p wire.Post, mark Mark, why string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.seatLocked(topic, account)
	if mark == MarkNotReceived && why == WhyQueueFull && s.posts[p.MessageID] == nil {
		// Never typed, so nothing can change it: told, not kept (a seat
		// that does not read must not grow the marks either).
		m.setLocked(topic, account, p.MessageID, &postMark{preview: preview(p.Content)}, mark, why)
		return
	}
	pm := s.posts[p.MessageID]
	if pm == nil {
		pm = &postMark{preview: preview(p.Content)}
		s.posts[p.MessageID] = pm
	}
	switch mark {
	case MarkHeld:
		if pm.mark == "" || pm.mark == MarkHeld {
			m.setLocked(topic, account, p.MessageID, pm, MarkHeld, why)
		}
	case markTyping:
		if pm.mark == "" || pm.mark == MarkHeld {
			pm.mark, pm.why = markTyping, "" // no event: typed follows
		}
	case MarkNotReceived: // the typist could not type it
		if pm.mark != MarkReceived {
			m.setLocked(topic, account, p.MessageID, pm, MarkNotReceived, why)
		}
	case MarkTyped:
		if pm.mark == MarkReceived {
			return // the prompt was reported before the \r was counted
		}
		if !s.signals {
			m.setLocked(topic, account, p.MessageID, pm, MarkUnknown, "")
			return
		}
		m.setLocked(topic, account, p.MessageID, pm, MarkTyped, "")
		if !s.busy {
			m.armLocked(topic, account, p.MessageID, pm)
		}
	}
}

// Hook takes one hook call of the seat's CLI: a UserPromptSubmit's prompt
// marks the posts whose tag lines it carries received (a prompt can hold
// several posts the CLI queued together); any hook names the transcript,
// which is read for receipts while typed posts wait.
func (m *Deliveries) Hook(topic, account, event string, body []byte) {
	var v struct {
		Prompt     string `json:"prompt"`
		Transcript string `json:"transcript_path"`
	}
	_ = json.Unmarshal(body, &v) // the body was checked to be an object
	if event == "UserPromptSubmit" {
		m.Prompt(topic, account, v.Prompt)
	}
	m.mu.Lock()
	s := m.seats[termKey{topic, account}]
	if s == nil || s.receipts == nil || v.Transcript == "" {
		m.mu.Unlock()
		return
	}
	if s.transcript != v.Transcript { // new: only what is written from now on
		s.transcript, s.offset = v.Transcript, transcriptSize(v.Transcript)
	}
	m.mu.Unlock()
	m.readReceipts(topic, account, s)
}

// Prompt takes a prompt the seat's CLI reported: every post of this seat
// whose tag line it carries is received.
func (m *Deliveries) Prompt(topic, account, prompt string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.seats[termKey{topic, account}]
	if s == nil {
		return
	}
	s.signals = true
	m.receivedLocked(topic, account, s, tagIDs(prompt))
}

func (m *Deliveries) receivedLocked(topic, account string, s *seatMarks, ids []string) {
	for _, id := range ids {
		if pm := s.posts[id]; pm != nil && pm.mark != MarkReceived {
			m.disarmLocked(pm)
			m.setLocked(topic, account, id, pm, MarkReceived, "")
		}
	}
}

// readReceipts reads the seat's transcript on from where it was last read,
// if a typed post waits, and marks the posts it shows given to the model.
func (m *Deliveries) readReceipts(topic, account string, s *seatMarks) {
	s.scan.Lock()
	defer s.scan.Unlock()
	m.mu.Lock()
	path, from, waiting := s.transcript, s.offset, false
	for _, pm := range s.posts {
		if pm.mark == MarkTyped || pm.mark == markTyping || pm.mark == MarkNotReceived {
			waiting = true
			break
		}
	}
	m.mu.Unlock()
	if !waiting || path == "" || s.receipts == nil {
		return
	}
	ids, next := s.receipts(path, from)
	m.mu.Lock()
	defer m.mu.Unlock()
	s.offset = next
	m.receivedLocked(topic, account, s, ids)
}

// Busy says whether account's CLI in topic is busy (not ready): the bound
// of its typed posts stops while it is and starts again, whole, when it is
// ready.
func (m *Deliveries) Busy(topic, account string, busy bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.seats[termKey{topic, account}]
	if s == nil || s.busy == busy {
		return
	}
	s.busy = busy
	for id, pm := range s.posts {
		switch {
		case !busy && (pm.mark == MarkReceived || pm.mark == MarkUnknown):
			// Settled (the typist told its \r long before the CLI is
			// ready again): forgotten, so a seat that runs for days
			// keeps only what may still change.
			delete(s.posts, id)
		case pm.mark != MarkTyped:
		case busy:
			m.disarmLocked(pm)
		default:
			m.armLocked(topic, account, id, pm)
		}
	}
}

// Ended says the seat's process ended: what it had not received it never
// will (posts it held are dropped from its queue by the typist).
func (m *Deliveries) Ended(topic, account string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := termKey{topic, account}
	s := m.seats[k]
	if s == nil {
		return
	}
	delete(m.seats, k)
	for id, pm := range s.posts {
		switch pm.mark {
		case MarkTyped, markTyping:
			m.disarmLocked(pm)
			m.setLocked(topic, account, id, pm, MarkNotReceived, WhyEndedTyped)
		case MarkHeld:
			m.setLocked(topic, account, id, pm, MarkNotReceived, WhyEndedHeld)
		}
	}
}

// Forget drops a topic's marks (the topic was deleted).
func (m *Deliveries) Forget(topic string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, s := range m.seats {
		if k.topic == topic {
			for _, pm := range s.posts {
				m.disarmLocked(pm)
			}
			delete(m.seats, k)
		}
	}
}

func (m *Deliveries) setLocked(topic, account, id string, pm *postMark, mark Mark, why string) {
	if pm.mark == mark && pm.why == why {
		return
	}
	pm.mark, pm.why = mark, why
	if m.o.OnMark != nil {
		m.o.OnMark(MarkEvent{Topic: topic, Account: account, MessageID: id, Mark: mark, Why: why, Preview: pm.preview, Bound: pm.bound})
	}
}

// armLocked starts the bound of a typed post.
func (m *Deliveries) armLocked(topic, account, id string, pm *postMark) {
	m.disarmLocked(pm)
	gen := pm.gen
	pm.stop = m.o.AfterFunc(m.bound(), func() { m.expire(topic, account, id, pm, gen) })
}

func (m *Deliveries) disarmLocked(pm *postMark) {
	pm.gen++
	if pm.stop != nil {
		pm.stop()
		pm.stop = nil
	}
}

// expire marks a post not received when its bound ran out unchanged (and
// the transcript, read once more, does not show it given to the model).
func (m *Deliveries) expire(topic, account, id string, pm *postMark, gen int) {
	m.mu.Lock()
	s := m.seats[termKey{topic, account}]
	m.mu.Unlock()
	if s != nil {
		m.readReceipts(topic, account, s)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if pm.gen != gen || pm.mark != MarkTyped {
		return
	}
	pm.stop = nil
	pm.bound = m.bound()
	m.setLocked(topic, account, id, pm, MarkNotReceived, WhyUnseen)
}

// tagIDs are the message ids of the tag lines in a prompt: lines that
// start with the tag prefix and hold a tag's JSON.
func tagIDs(prompt string) []string {
	var ids []string
	for l := range strings.SplitSeq(prompt, "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(l), wire.TagPrefix)
		if !ok {
			continue
		}
		var t wire.Tag
		if json.Unmarshal([]byte(rest), &t) == nil && t.MessageID != "" {
			ids = append(ids, t.MessageID)
		}
	}
	return ids
}

// transcriptSize is the size of the file at path (0 when unreadable).
func transcriptSize(path string) int64 {
	if fi, err := os.Stat(path); err == nil {
		return fi.Size()
	}
	return 0
}

// maxReceiptRead bounds one read of a transcript for receipts.
const maxReceiptRead = 16 << 20

// claudeReceipts reads Claude's transcript from offset: the tag ids of the
// input given to the model, as a user message or as input queued during a
// turn (a "queued_command" attachment). Only whole lines are read; next is
// where the next read starts.
func claudeReceipts(path string, offset int64) (ids []string, next int64) {
	f, err := os.Open(path)
	if err != nil {
		return nil, offset
	}
	defer f.Close()
	b, err := io.ReadAll(io.NewSectionReader(f, offset, maxReceiptRead))
	if err != nil {
		return nil, offset
	}
	end := bytes.LastIndexByte(b, '\n') + 1
	tag := []byte(strings.TrimSpace(wire.TagPrefix))
	for line := range bytes.SplitSeq(b[:end], []byte("\n")) {
		if !bytes.Contains(line, tag) {
			continue
		}
		var rec struct {
			Type       string `json:"type"`
			Attachment struct {
				Type   string `json:"type"`
				Prompt string `json:"prompt"`
			} `json:"attachment"`
			Message struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		switch {
		case rec.Type == "attachment" && rec.Attachment.Type == "queued_command":
			ids = append(ids, tagIDs(rec.Attachment.Prompt)...)
		case rec.Type == "user" && rec.Message.Role == "user":
			var text string
			var blocks []struct {
				Type, Text string
			}
			if json.Unmarshal(rec.Message.Content, &text) == nil {
				ids = append(ids, tagIDs(text)...)
			} else if json.Unmarshal(rec.Message.Content, &blocks) == nil {
				for _, bl := range blocks {
					if bl.Type == "text" {
						ids = append(ids, tagIDs(bl.Text)...)
					}
				}
			}
		}
	}
	return ids, offset + int64(end)
}

// preview is a post's first words on one line, for the person's notice.
func preview(content string) string {
	s := wire.OneLine(content)
	if r := []rune(s); len(r) > 40 {
		s = string(r[:39]) + "…"
	}
	return s
}

// setMarkReporter sets OnMark (the seat manager's marks, made after the
// typist). Terminals attached later report to it.
func (t *Typist) setMarkReporter(f func(topic, account string, post wire.Post, mark Mark, why string)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.opts.OnMark = f
}

// markHeldLocked tells every post the queue holds, and why (q.mu held).
func (q *termQueue) markHeldLocked() {
	if q.onMark == nil || !q.why.Held() {
		return
	}
	for _, p := range q.posts {
		q.onMark(p.post, MarkHeld, q.why.Text)
	}
}

// mark tells one post's mark.
func (q *termQueue) mark(p queued, mark Mark, why string) {
	if q.onMark != nil {
		q.onMark(p.post, mark, why)
	}
}

// busyState: a seat in this activity state keeps typed input queued (or
// has no CLI reading it yet): the bound does not run.
func busyState(state string) bool { return state != ActReady && state != ActEnded }

// Awaiting counts account's posts in topic typed (or being typed) whose
// receipt its CLI has not reported yet: a seat with one does not sleep
// (sleep.go), since the text may still wait in its input box.
func (m *Deliveries) Awaiting(topic, account string) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.seats[termKey{topic, account}]
	if s == nil || !s.signals {
		return 0
	}
	n := 0
	for _, pm := range s.posts {
		if pm.mark == MarkTyped || pm.mark == markTyping {
			n++
		}
	}
	return n
}
