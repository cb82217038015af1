package app

// The needs-you list (issue 37, points 1 and 2): every open item across all
// topics that waits for the person, and answering it from any screen. This
// file is the one API every screen uses — the TUI (prefix !), serve (the
// "needs" command and event) and the browser page:
//
//	NeedsList() []NeedItem                  the open items, newest first
//	Subscribe() → Event{Kind: EventNeedsList, List: NeedsChange}
//	                                        an item opened, changed or left
//	AnswerNeed(id, answer, screen)          one of the item's Answers
//	SeenPosts(screen, topic, upTo)          a screen shows topic's posts up to upTo
//	NeedAnswers(topic)                      the topic's answered items, oldest first
//
// The items: a permission prompt (its tool and input from the hook's
// payload, never from the pane's screen: spec 003 「アプリは端末へ書くが、
// 端末の出力は読まない」), a question, an elicitation, a seat stopped at its
// usage limit or on an error (a process's, or an API error that ended a
// turn), an unanswered turn, a post addressed to the person no screen has
// shown yet, a topic whose agents reached the loop budget (loop.go's
// NeedLoop signal). Every needs-you signal (needs.go, loop.go) reaches the
// list through needChanged.
//
// "Seen": a post addressed to the person is seen once any one of the
// person's screens (a terminal's TUI, a browser page) has shown it — its
// topic on screen with the newest posts in view — and said so with
// SeenPosts. Every screen is the same person, so one screen's seeing counts
// for all.
//
// Answering: a prompt's answers are one key each (yes / always / no, or a
// question's numbered choices). A Claude permission prompt is answered
// through its PermissionRequest hook, which the app holds open while the
// prompt waits (seat.ClaudePermissionHookTimeout); anything else is typed
// into the pane as the person's keys, only after checking at that moment
// that the same wait is still open (seat.Activity.OpenWait) — answered in
// the pane or replaced by another prompt, nothing is typed and the result
// says so. Every answer is recorded in the topic's record of answers
// (topicstore.Store.AnswersFile), deleted with the topic.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"pullcept/room/wire"
	"pullcept/seat"
)

// More reasons an item needs the person (besides NeedPermission,
// NeedQuestion, NeedElicitation, NeedDialog, NeedUnanswered and NeedLoop).
const (
	NeedLimited = "limited" // the seat stopped at its usage limit
	NeedError   = "error"   // the seat could not start, ended, or its turn ended, on an error
	NeedMention = "mention" // a post to the person no screen has shown
)

// EventNeedsList: an item of the needs-you list opened, changed or left
// (Event.List).
const EventNeedsList EventKind = "needs"

// NeedItem is one open item of the needs-you list.
type NeedItem struct {
	ID    string `json:"id"`
	Kind  string `json:"kind"` // Need*
	Topic string `json:"topic"`
	// Account is the seat's (none for a topic's NeedLoop), or the post's
	// speaker's.
	Account string    `json:"account,omitempty"`
	Name    string    `json:"name,omitempty"` // the seat's call name, or the post's speaker
	Since   time.Time `json:"since"`
	// Tool and Input are a prompt's tool and its input (a command: the
	// command; else the input's JSON), from the hook's payload.
	Tool  string `json:"tool,omitempty"`
	Input string `json:"input,omitempty"`
	// Text says more: a question, an error, a post's first line.
	Text string `json:"text,omitempty"`
	// Post is the post's message id (mention, unanswered).
	Post string `json:"post,omitempty"`
	// Answers are the answers a screen offers, one key each; none: Enter
	// jumps to the seat or the post, and the item leaves when its cause
	// ends.
	Answers []NeedAnswer `json:"answers,omitempty"`
	// Via is how an answer is given now: "hook" or "keys".
	Via string `json:"via,omitempty"`
}

// NeedAnswer is one answer to an item.
type NeedAnswer struct {
	ID    string `json:"id"`    // "yes", "always", "no", or a choice's number "1"…
	Key   string `json:"key"`   // the one key a screen binds it to
	Label string `json:"label"` // what it says
}

// NeedsChange is one change of the list: Item opened or changed, or (Gone)
// left it, Why saying how (answered from a screen, in the pane, seen, …).
type NeedsChange struct {
	Item NeedItem `json:"item"`
	Gone bool     `json:"gone,omitempty"`
	Why  string   `json:"why,omitempty"`
}

// AnswerResult is what an answer did.
type AnswerResult struct {
	Done bool   `json:"done"`          // the answer was given
	Via  string `json:"via,omitempty"` // "hook", "keys", or "" (nothing given)
	Note string `json:"note"`          // one sentence for the person
}

// AnswerRecord is one line of a topic's record of answers.
type AnswerRecord struct {
	At      time.Time `json:"at"`
	Who     string    `json:"who"`    // the person's name
	Screen  string    `json:"screen"` // the screen answered from
	Topic   string    `json:"topic"`
	Account string    `json:"account"`
	Name    string    `json:"name,omitempty"`
	Kind    string    `json:"kind"`
	Tool    string    `json:"tool,omitempty"`
	Input   string    `json:"input,omitempty"`
	Text    string    `json:"text,omitempty"`
	Answer  string    `json:"answer"`
	Label   string    `json:"label,omitempty"`
	Via     string    `json:"via,omitempty"`
	Done    bool      `json:"done"`
	Note    string    `json:"note,omitempty"`
}

// Errors of AnswerNeed.
var (
	ErrNoNeed      = errors.New("no such item in the needs-you list")
	ErrNoSuchReply = errors.New("not an answer of this item")
)

// promptOpening: a wait younger than this is not typed into — Codex shows
// its prompt about 1 s after its PermissionRequest hook returned (measured,
// ../shared/notes/cli-hooks.md §8), so a key sooner would go to its input.
var promptOpening = 2 * time.Second

// hookHoldMargin: the app answers a held PermissionRequest this long
// before Claude's timeout ends the call, so Claude gets {} and not a
// failed hook.
const hookHoldMargin = 10 * time.Second

// listItem is an item with what answering it needs.
type listItem struct {
	NeedItem
	waitSeq uint64          // the activity's wait this prompt is
	kind    seat.Kind       // the seat's CLI
	suggest json.RawMessage // Claude's permission_suggestions (always)
	reply   chan []byte     // a held hook's answer (nil: not held)
	ordinal int             // mention: the topic's post count at arrival
	n       int             // the item's number in the run (its id's)
	// turnFailure: the error item is a turn's API error (not the process's).
	turnFailure bool
	opened      time.Time
}

// needList is the list's state.
type needList struct {
	mu sync.Mutex
	// run and next make the items' ids: unique across runs, so a screen
	// that kept an id over a restart of the server answers nothing else.
	run   string
	next  int
	items map[string]*listItem // by ID
	// last is each topic's newest post and count (for SeenPosts).
	lastID map[string]string
	count  map[string]int
	// gone are the items that left the list lately and why, oldest first
	// (goneKeep at most): an answer from a screen that still showed one
	// is told what happened instead of "no such item".
	gone  []goneItem
	recMu sync.Mutex // one write to a record at a time
}

type goneItem struct {
	item NeedItem
	why  string
}

// goneKeep bounds the items remembered after they left the list.
const goneKeep = 256

func newNeedList() *needList {
	return &needList{run: strconv.FormatInt(time.Now().UnixNano(), 36), items: map[string]*listItem{}, lastID: map[string]string{}, count: map[string]int{}}
}

// NeedsList is the open items across all topics, newest first.
func (a *App) NeedsList() []NeedItem {
	l := a.list
	l.mu.Lock()
	defer l.mu.Unlock()
	all := make([]*listItem, 0, len(l.items))
	for _, it := range l.items {
		all = append(all, it)
	}
	slices.SortFunc(all, func(x, y *listItem) int {
		if c := y.Since.Compare(x.Since); c != 0 {
			return c
		}
		return y.n - x.n // the same moment: the later made first
	})
	out := make([]NeedItem, len(all))
	for i, it := range all {
		out[i] = it.copy()
	}
	return out
}

func (it *listItem) copy() NeedItem {
	n := it.NeedItem
	n.Answers = slices.Clone(n.Answers)
	return n
}

// seatItem finds the open item of kind for a seat (nil: none). Locked.
func (l *needList) seatItem(topic, account, kind string) *listItem {
	for _, it := range l.items {
		if it.Topic == topic && it.Account == account && it.Kind == kind {
			return it
		}
	}
	return nil
}

// put adds or replaces an item and tells every screen. Locked by the caller
// (the publish does not block).
func (a *App) putLocked(it *listItem) {
	if it.ID == "" {
		a.list.next++
		it.n, it.ID = a.list.next, a.list.run+"-"+strconv.Itoa(a.list.next)
	}
	a.list.items[it.ID] = it
	a.bus.publish(Event{Kind: EventNeedsList, List: NeedsChange{Item: it.copy()}})
}

// dropLocked removes an item and tells every screen why.
func (a *App) dropLocked(it *listItem, why string) {
	if _, ok := a.list.items[it.ID]; !ok {
		return
	}
	delete(a.list.items, it.ID)
	a.list.gone = append(a.list.gone, goneItem{it.copy(), why})
	if len(a.list.gone) > goneKeep {
		a.list.gone = slices.Delete(a.list.gone, 0, len(a.list.gone)-goneKeep)
	}
	if it.reply != nil {
		close(it.reply) // a held hook returns {}
		it.reply = nil
	}
	a.bus.publish(Event{Kind: EventNeedsList, List: NeedsChange{Item: it.copy(), Gone: true, Why: why}})
}

// noteNeedList mirrors a seat's needs-you signal (needs.go) into the list.
func (a *App) noteNeedList(n Need) {
	a.list.mu.Lock()
	defer a.list.mu.Unlock()
	prompt := slices.Contains(promptKinds, n.Why)
	if !n.On {
		why := "answered"
		if prompt {
			why = "the prompt ended (answered in the pane, or the seat went on)"
		}
		for _, it := range a.list.items {
			if it.Topic == n.Topic && it.Account == n.Account && (it.Kind == n.Why || (n.Why == "" && it.Kind != NeedError && it.Kind != NeedMention)) && !a.stillOpenLocked(it) {
				a.dropLocked(it, why)
			}
		}
		return
	}
	if !prompt {
		if a.list.seatItem(n.Topic, n.Account, n.Why) == nil {
			it := NeedItem{Kind: n.Why, Topic: n.Topic, Account: n.Account, Name: n.Name, Since: time.Now(), Post: n.Post}
			if n.Why == NeedLoop { // the topic's agents: Name is the count's text
				it.Name, it.Text = "", n.Name
			}
			a.putLocked(&listItem{NeedItem: it})
		}
		return
	}
	a.openPromptLocked(n.Topic, n.Account, n.Name, n.Why)
}

// stillOpenLocked: it is a prompt whose wait is still open — the end
// being told is an older wait's, told late (the signals come through the
// event stream, the hook's payload straight from the hook call).
func (a *App) stillOpenLocked(it *listItem) bool {
	if it.waitSeq == 0 {
		return false
	}
	s, ok := a.seats.Seat(it.Topic, it.Account)
	if !ok {
		return false
	}
	seq, wait := s.Activity.OpenWait()
	return wait != "" && seq == it.waitSeq
}

// promptKinds are the needs of a wait the seat's CLI shows in its pane.
var promptKinds = []string{NeedPermission, NeedQuestion, NeedElicitation, NeedDialog}

// openPromptLocked makes (or finds) the item of the wait open now in a
// seat. Another wait open in the seat replaces its item.
func (a *App) openPromptLocked(topic, account, name, why string) *listItem {
	s, ok := a.seats.Seat(topic, account)
	if !ok {
		return nil
	}
	seq, wait := s.Activity.OpenWait()
	if wait == "" {
		return nil
	}
	for _, k := range promptKinds {
		if it := a.list.seatItem(topic, account, k); it != nil {
			if it.waitSeq == seq {
				return it
			}
			a.dropLocked(it, "another prompt replaced it")
		}
	}
	if name == "" {
		name = a.seats.CallName(s)
	}
	now := time.Now()
	it := &listItem{NeedItem: NeedItem{Kind: wait, Topic: topic, Account: account, Name: name, Since: now, Via: "keys"},
		waitSeq: seq, kind: s.Account.Kind, opened: now}
	it.Answers = promptAnswers(it)
	a.putLocked(it)
	return it
}

// permissionPayload is what the list reads of a PermissionRequest's body.
type permissionPayload struct {
	ToolName    string          `json:"tool_name"`
	ToolInput   json.RawMessage `json:"tool_input"`
	Suggestions json.RawMessage `json:"permission_suggestions"`
}

// maxInput bounds a prompt's input kept in the list and the record.
const maxInput = 4000

// toolInput is a tool's input for the person: a command's command, else
// its JSON, cut short.
func toolInput(raw json.RawMessage) string {
	var v struct {
		Command json.RawMessage `json:"command"`
	}
	_ = json.Unmarshal(raw, &v)
	var cmd string
	if json.Unmarshal(v.Command, &cmd) == nil && cmd != "" {
		return wire.Cut(cmd, maxInput)
	}
	var parts []string
	if json.Unmarshal(v.Command, &parts) == nil && len(parts) > 0 {
		return wire.Cut(strings.Join(parts, " "), maxInput)
	}
	return wire.Cut(strings.TrimSpace(string(raw)), maxInput)
}

// question is the first question of an AskUserQuestion input and its
// options' labels.
func question(raw json.RawMessage) (string, []string) {
	var v struct {
		Questions []struct {
			Question string `json:"question"`
			Options  []struct {
				Label string `json:"label"`
			} `json:"options"`
		} `json:"questions"`
	}
	if json.Unmarshal(raw, &v) != nil || len(v.Questions) == 0 {
		return "", nil
	}
	var labels []string
	for _, o := range v.Questions[0].Options {
		labels = append(labels, o.Label)
	}
	return v.Questions[0].Question, labels
}

// promptAnswers are the one-key answers of a prompt item, as its CLI and
// the way it is answered allow.
func promptAnswers(it *listItem) []NeedAnswer {
	yes, always, no := NeedAnswer{"yes", "y", "yes"}, NeedAnswer{"always", "a", "always"}, NeedAnswer{"no", "n", "no"}
	switch {
	case it.Kind == NeedPermission && it.kind == seat.KindClaudeCode:
		if len(it.suggest) > 0 && string(it.suggest) != "null" && string(it.suggest) != "[]" {
			return []NeedAnswer{yes, always, no}
		}
		return []NeedAnswer{yes, no}
	case it.Kind == NeedPermission && it.kind == seat.KindCodex:
		return []NeedAnswer{yes, always, no}
	case it.Kind == NeedQuestion && it.kind == seat.KindClaudeCode:
		_, labels := question(json.RawMessage(it.Input))
		var out []NeedAnswer
		for i, l := range labels {
			if i == 9 {
				break
			}
			n := strconv.Itoa(i + 1)
			out = append(out, NeedAnswer{n, n, wire.OneLine(l)})
		}
		return out
	}
	return nil
}

// answerKeys are the keys typed into the pane for an answer.
func answerKeys(it *listItem, answer string) []byte {
	switch it.kind {
	case seat.KindClaudeCode:
		switch answer {
		case "yes":
			return []byte("1")
		case "always":
			return []byte("2")
		case "no":
			return []byte{0x1b}
		}
		return []byte(answer) // a question's choice number
	case seat.KindCodex:
		switch answer {
		case "yes":
			return []byte("y")
		case "always":
			return []byte("p")
		case "no":
			return []byte{0x1b}
		}
	}
	return nil
}

// hookReply is a PermissionRequest decision for Claude.
func hookReply(answer string, suggest json.RawMessage) []byte {
	d := map[string]any{"behavior": "allow"}
	switch answer {
	case "always":
		d["updatedPermissions"] = suggest
	case "no":
		d = map[string]any{"behavior": "deny", "message": "The person declined this from the needs-you list."}
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PermissionRequest", "decision": d}})
	return b
}

// hookAdapter is the room socket's Hooks: the seat manager's, and the
// list's PermissionRequest replies.
type hookAdapter struct{ a *App }

func (h hookAdapter) CheckHook(topic, account, secret string) error {
	return h.a.seats.CheckHook(topic, account, secret)
}

func (h hookAdapter) Activity(ctx context.Context, topic, account, event string, body []byte) error {
	return h.a.seats.Activity(ctx, topic, account, event, body)
}

// HookReply fills a permission prompt's item from the hook's payload and,
// for Claude, holds the call until the person answers from a screen, the
// prompt is answered in the pane (Claude ends the call) or the hook's time
// is nearly out (then the answer is typed, as for any CLI).
func (h hookAdapter) HookReply(ctx context.Context, topic, account, event string, body []byte) []byte {
	if event != "PermissionRequest" {
		return nil
	}
	var p permissionPayload
	_ = json.Unmarshal(body, &p)
	a := h.a
	a.list.mu.Lock()
	it := a.openPromptLocked(topic, account, "", "")
	if it == nil {
		a.list.mu.Unlock()
		return nil
	}
	it.Tool, it.suggest = wire.OneLine(p.ToolName), p.Suggestions
	if it.Kind == NeedQuestion {
		q, _ := question(p.ToolInput)
		it.Text, it.Input = wire.Cut(q, maxInput), string(p.ToolInput)
	} else {
		it.Input = toolInput(p.ToolInput)
	}
	it.Answers = promptAnswers(it)
	if it.Kind == NeedQuestion {
		it.Input = "" // the question and its choices say it
	}
	hold := it.kind == seat.KindClaudeCode && it.Kind == NeedPermission
	var reply chan []byte
	if hold {
		reply = make(chan []byte, 1)
		it.reply, it.Via = reply, "hook"
	}
	a.putLocked(it)
	a.list.mu.Unlock()
	if !hold {
		return nil
	}
	t := time.NewTimer(seat.ClaudePermissionHookTimeout*time.Second - hookHoldMargin)
	defer t.Stop()
	select {
	case b, ok := <-reply:
		if ok {
			return b
		}
		return nil
	case <-ctx.Done():
		a.list.mu.Lock()
		if it.reply == reply {
			it.reply = nil
			a.dropLocked(it, "answered in the pane")
		}
		a.list.mu.Unlock()
		return nil
	case <-t.C:
		a.list.mu.Lock()
		if it.reply == reply {
			it.reply, it.Via = nil, "keys"
			if _, open := a.list.items[it.ID]; open {
				a.putLocked(it)
			}
		}
		a.list.mu.Unlock()
		return nil
	}
}

// AnswerNeed gives answer (one of the item's Answers' IDs) to the item id,
// from screen (who answered: a TUI, serve, a browser — a name the screen
// chooses). An answered item leaves the list; a prompt no longer open
// leaves it too, with nothing typed, and the result says so. Every answer
// that settled an item (given, or found too late) is recorded in the
// topic's record of answers.
func (a *App) AnswerNeed(id, answer, screen string) (AnswerResult, error) {
	a.list.mu.Lock()
	it, ok := a.list.items[id]
	if !ok {
		for _, g := range slices.Backward(a.list.gone) {
			if g.item.ID != id {
				continue
			}
			// Another screen answered it, the pane did, or its cause
			// ended: nothing is sent, and the attempt is recorded.
			it := g.item
			a.list.mu.Unlock()
			res := AnswerResult{Note: it.Name + "'s " + it.Kind + " is no longer waiting (" + g.why + "): nothing was sent"}
			if !slices.ContainsFunc(it.Answers, func(x NeedAnswer) bool { return x.ID == answer }) {
				return AnswerResult{}, fmt.Errorf("%w: %q (%s)", ErrNoSuchReply, answer, it.Kind)
			}
			return a.record(it, answer, screen, res), nil
		}
		a.list.mu.Unlock()
		return AnswerResult{}, fmt.Errorf("%w: %s", ErrNoNeed, id)
	}
	var label string
	for _, ans := range it.Answers {
		if ans.ID == answer {
			label = ans.Label
		}
	}
	if label == "" {
		a.list.mu.Unlock()
		return AnswerResult{}, fmt.Errorf("%w: %q (%s)", ErrNoSuchReply, answer, it.Kind)
	}
	res := a.answerLocked(it, answer)
	if _, open := a.list.items[id]; open && !res.Done {
		a.list.mu.Unlock() // nothing reached the prompt: not an answer to record
		return res, nil
	}
	item := it.copy()
	a.list.mu.Unlock()
	return a.record(item, answer, screen, res), nil
}

// record writes an answer to its topic's record; a failure is said in the
// result's note (and logged).
func (a *App) record(it NeedItem, answer, screen string, res AnswerResult) AnswerResult {
	var label string
	for _, ans := range it.Answers {
		if ans.ID == answer {
			label = ans.Label
		}
	}
	rec := AnswerRecord{At: time.Now().UTC(), Who: a.PersonName(), Screen: wire.OneLine(screen), Topic: it.Topic, Account: it.Account,
		Name: it.Name, Kind: it.Kind, Tool: it.Tool, Input: it.Input, Text: it.Text, Answer: answer, Label: label, Via: res.Via, Done: res.Done, Note: res.Note}
	if err := a.recordAnswer(rec); err != nil {
		a.log.Error("the answer could not be recorded", "topic", rec.Topic, "err", err)
		res.Note += " (not recorded: " + err.Error() + ")"
	}
	return res
}

// answerLocked gives the answer: through the held hook, else as keys after
// checking the same wait is still open.
func (a *App) answerLocked(it *listItem, answer string) AnswerResult {
	s, ok := a.seats.Seat(it.Topic, it.Account)
	if !ok || s.State() == seat.StateExited {
		a.dropLocked(it, "the seat is not running")
		return AnswerResult{Note: it.Name + " is not running: nothing was answered"}
	}
	if it.reply != nil {
		if !s.Activity.AnswerWait(it.waitSeq) {
			a.dropLocked(it, "answered in the pane")
			return AnswerResult{Note: it.Name + "'s prompt was already answered in the pane: nothing was sent"}
		}
		it.reply <- hookReply(answer, it.suggest)
		it.reply = nil
		a.dropLocked(it, "answered ("+answer+")")
		return AnswerResult{Done: true, Via: "hook", Note: it.Name + ": answered " + answer + " (through its hook)"}
	}
	keys := answerKeys(it, answer)
	if keys == nil {
		return AnswerResult{Note: it.Name + "'s " + it.Kind + " cannot be answered from here: answer in its pane"}
	}
	if time.Since(it.opened) < promptOpening {
		return AnswerResult{Note: it.Name + "'s prompt is still opening: answer again in a moment"}
	}
	seq, wait := s.Activity.OpenWait()
	p := s.Terminal()
	if wait == "" || seq != it.waitSeq || p == nil {
		a.dropLocked(it, "answered in the pane")
		return AnswerResult{Note: it.Name + "'s prompt was answered in the pane or replaced: nothing was typed"}
	}
	if _, err := p.Write(keys); err != nil {
		return AnswerResult{Note: it.Name + ": the answer could not be typed: " + err.Error()}
	}
	a.dropLocked(it, "answered ("+answer+")")
	return AnswerResult{Done: true, Via: "keys", Note: it.Name + ": answered " + answer + " (typed into its pane)"}
}

// recordAnswer appends one answer to its topic's record (0600, in a 0700
// folder).
func (a *App) recordAnswer(r AnswerRecord) error {
	path, err := a.store.AnswersFile(r.Topic)
	if err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	a.list.recMu.Lock()
	defer a.list.recMu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// NeedAnswers is topic's record of answers, oldest first (none: empty).
// A line that cannot be read is skipped.
func (a *App) NeedAnswers(topic string) ([]AnswerRecord, error) {
	path, err := a.store.AnswersFile(topic)
	if err != nil {
		return nil, err
	}
	a.list.recMu.Lock()
	data, err := os.ReadFile(path)
	a.list.recMu.Unlock()
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []AnswerRecord
	for _, ln := range strings.Split(string(data), "\n") {
		var r AnswerRecord
		if ln != "" && json.Unmarshal([]byte(ln), &r) == nil {
			out = append(out, r)
		}
	}
	return out, nil
}

// noteMention opens a mention item for a post addressed to the person, and
// counts the topic's posts (SeenPosts).
func (a *App) noteMention(ev RoomEvent) {
	if ev.Kind != RoomPost {
		return
	}
	a.list.mu.Lock()
	defer a.list.mu.Unlock()
	a.list.count[ev.Topic]++
	a.list.lastID[ev.Topic] = ev.Post.MessageID
	if ev.Own || !slices.Contains(ev.Post.To, a.PersonName()) {
		return
	}
	since := time.Now()
	if t, err := time.Parse(time.RFC3339Nano, ev.Post.TS); err == nil {
		since = t
	}
	a.putLocked(&listItem{NeedItem: NeedItem{Kind: NeedMention, Topic: ev.Topic, Account: ev.Post.Account, Name: wire.OneLine(ev.Post.Speaker),
		Since: since, Post: ev.Post.MessageID, Text: wire.Cut(wire.OneLine(ev.Post.Content), 200)}, ordinal: a.list.count[ev.Topic]})
	// Bounded while no screen looks: the oldest leave (the posts stay in
	// the room, where the topic's mark still points).
	var oldest *listItem
	n := 0
	for _, it := range a.list.items {
		if it.Kind == NeedMention && it.Topic == ev.Topic {
			n++
			if oldest == nil || it.ordinal < oldest.ordinal {
				oldest = it
			}
		}
	}
	if n > maxMentions {
		a.dropLocked(oldest, fmt.Sprintf("more than %d posts to you in this topic wait: the oldest leaves the list", maxMentions))
	}
}

// maxMentions bounds a topic's unseen posts to the person in the list.
const maxMentions = 50

// SeenPosts is a screen's word that it shows topic's posts up to the post
// upTo (its newest in view): the mentions up to it are seen and leave the
// list. An upTo the list does not know (an older post) changes nothing.
func (a *App) SeenPosts(screen, topic, upTo string) {
	a.list.mu.Lock()
	defer a.list.mu.Unlock()
	upto := -1
	if upTo != "" && upTo == a.list.lastID[topic] {
		upto = a.list.count[topic]
	}
	for _, it := range a.list.items {
		if it.Kind == NeedMention && it.Topic == topic && it.Post == upTo {
			upto = it.ordinal
		}
	}
	for _, it := range a.list.items {
		if it.Kind == NeedMention && it.Topic == topic && it.ordinal <= upto {
			a.dropLocked(it, "seen on "+wire.OneLine(screen))
		}
	}
}

// noteSeatList turns a seat's life and usage limit into items: an error
// (could not start, or ended by itself with a failure) until it runs
// again; a limit until it is over.
func (a *App) noteSeatList(ev seat.Event) {
	a.list.mu.Lock()
	defer a.list.mu.Unlock()
	if ev.Type == seat.EventActivity {
		if ev.Activity == nil {
			return
		}
		a.noteFailureLocked(ev)
		it := a.list.seatItem(ev.Topic, ev.Account, NeedLimited)
		switch {
		case ev.Activity.State == seat.ActLimited && it == nil:
			text := "stopped at its usage limit"
			if !ev.Activity.LimitedUntil.IsZero() {
				text += " until " + ev.Activity.LimitedUntil.Local().Format("15:04")
			}
			a.putLocked(&listItem{NeedItem: NeedItem{Kind: NeedLimited, Topic: ev.Topic, Account: ev.Account, Name: ev.Name, Since: time.Now(), Text: text}})
		case ev.Activity.State != seat.ActLimited && it != nil:
			a.dropLocked(it, "the limit is over")
		}
		return
	}
	it := a.list.seatItem(ev.Topic, ev.Account, NeedError)
	failed := ev.Error != "" || (ev.State == seat.StateExited && !ev.Requested && ev.Code != nil && *ev.Code != 0)
	switch {
	case failed:
		text := ev.Error
		if text == "" {
			text = "ended: " + ev.Exit
		}
		if it == nil {
			it = &listItem{NeedItem: NeedItem{Kind: NeedError, Topic: ev.Topic, Account: ev.Account, Name: ev.Name, Since: time.Now()}}
		}
		it.Text = wire.Cut(wire.OneLine(text), 300)
		a.putLocked(it)
	case ev.State == seat.StateRunning && it != nil:
		a.dropLocked(it, "it runs again")
	}
}

// noteFailureLocked lists a turn that ended on an API error (Claude's
// StopFailure) until the next turn; a rate_limit one is the limit's item.
func (a *App) noteFailureLocked(ev seat.Event) {
	f := ev.Activity.Failure
	it := a.list.seatItem(ev.Topic, ev.Account, NeedError)
	switch {
	case f != "" && f != seat.StopFailureRateLimit && it == nil:
		a.putLocked(&listItem{NeedItem: NeedItem{Kind: NeedError, Topic: ev.Topic, Account: ev.Account, Name: ev.Name, Since: time.Now(),
			Text: "its turn ended on an API error: " + f}, turnFailure: true})
	case f == "" && it != nil && it.turnFailure:
		a.dropLocked(it, "its next turn started")
	}
}

// forgetNeeds drops a deleted topic's items.
func (a *App) forgetNeeds(topic string) {
	a.list.mu.Lock()
	defer a.list.mu.Unlock()
	for _, it := range a.list.items {
		if it.Topic == topic {
			a.dropLocked(it, "the topic was deleted")
		}
	}
	delete(a.list.count, topic)
	delete(a.list.lastID, topic)
}
