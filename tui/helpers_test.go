package tui

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

var update = flag.Bool("update", false, "rewrite golden files and README.md's generated parts")

// fakePane records what is typed and resized, and shows fixed lines.
type fakePane struct {
	mu      sync.Mutex
	written []byte
	cols    int
	rows    int
	lines   []string
	sb      int
	// hideCursor: the application hid its cursor (Claude draws its own).
	hideCursor bool
}

func (p *fakePane) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.written = append(p.written, b...)
	return len(b), nil
}

func (p *fakePane) Resize(c, r int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cols, p.rows = c, r
	return nil
}

func (p *fakePane) Render() string { return p.RenderScrolled(0) }

func (p *fakePane) RenderScrolled(off int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, p.rows)
	for i := range out {
		if j := i - off; j >= 0 && j < len(p.lines) {
			out[i] = p.lines[j]
		}
		out[i] = fit(out[i], p.cols)
	}
	return strings.Join(out, "\n")
}

func (p *fakePane) Cursor() (int, int, bool) { return 3, 1, !p.hideCursor }
func (p *fakePane) ScrollbackLen() int       { return p.sb }

func (p *fakePane) typed() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.written)
}

// fakeSeats is a seat manager with accounts, seats per topic, and a record
// of calls.
type fakeSeats struct {
	mu       sync.Mutex
	accounts []Account
	seats    map[string][]SeatInfo
	calls    []string
	changed  chan struct{}
	// release and releaseErr are what Release answers.
	release    ReleaseResult
	releaseErr error
}

func newFakeSeats(accts ...Account) *fakeSeats {
	return &fakeSeats{accounts: accts, seats: map[string][]SeatInfo{}, changed: make(chan struct{}, 1)}
}

func (f *fakeSeats) Accounts() []Account {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Account(nil), f.accounts...)
}

func (f *fakeSeats) Seats(topic string) []SeatInfo {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]SeatInfo(nil), f.seats[topic]...)
}

func (f *fakeSeats) call(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeSeats) Start(topic, account string) error {
	f.call("start " + account)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.accounts {
		if a.ID == account {
			f.seats[topic] = append(f.seats[topic], SeatInfo{Account: a.ID, Name: a.Name, Kind: a.Kind, State: StateRunning, Pane: &fakePane{}})
		}
	}
	return nil
}
func (f *fakeSeats) Stop(topic, account string) error    { f.call("stop " + account); return nil }
func (f *fakeSeats) Restart(topic, account string) error { f.call("restart " + account); return nil }
func (f *fakeSeats) Release(topic, account string) (ReleaseResult, error) {
	f.call("release " + account)
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.release, f.releaseErr
}
func (f *fakeSeats) ClearUnsent(topic, account, unsent string) (ReleaseResult, error) {
	f.call("clear " + account + " " + unsent)
	return ReleaseResult{Note: "cleared " + unsent}, nil
}
func (f *fakeSeats) StopTopic(topic string) error {
	f.call("stoptopic " + topic)
	f.mu.Lock()
	delete(f.seats, topic)
	f.mu.Unlock()
	return nil
}
func (f *fakeSeats) Changed() <-chan struct{} { return f.changed }

// harness is a model over a real engine and store in a temp dir.
type harness struct {
	t     *testing.T
	m     *model
	eng   *room.Engine
	store *topicstore.Store
	seats *fakeSeats
	sub   *room.Subscription
	// clips are the texts the commands run put on the clipboard.
	clips []string
}

func newHarness(t *testing.T, seats *fakeSeats, w, h int, opts ...func(*Options)) *harness {
	t.Helper()
	st, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	if seats != nil {
		for _, a := range seats.accounts {
			kinds[a.ID] = a.Kind
		}
	}
	eng := room.New(room.Config{Log: st, PersonName: "you", AccountKind: func(a string) (string, bool) { k, ok := kinds[a]; return k, ok },
		Now: func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }})
	o := Options{App: &testBackend{eng: eng, store: st, seats: seats}, Location: time.UTC}
	if seats != nil {
		o.Seats = seats
	}
	for _, f := range opts {
		f(&o)
	}
	hs := &harness{t: t, eng: eng, store: st, seats: seats}
	hs.sub = eng.Subscribe()
	t.Cleanup(hs.sub.Close)
	m, err := newModel(o, func(f func()) { f() })
	if err != nil {
		t.Fatal(err)
	}
	m.now = func() time.Time { return time.Date(2026, 5, 1, 12, 30, 0, 0, time.UTC) }
	m.expireAfter = func(time.Duration, tea.Msg) tea.Cmd { return nil } // the harness runs commands at once
	hs.m = m
	hs.run(m.Init())
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	return hs
}

// send feeds a message and runs the commands it returns, synchronously.
func (hs *harness) send(msg tea.Msg) {
	hs.t.Helper()
	_, cmd := hs.m.Update(msg)
	hs.run(cmd)
}

func (hs *harness) run(cmd tea.Cmd) {
	hs.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			hs.run(c)
		}
	case tea.QuitMsg:
		hs.m.status = "quit"
	default:
		if fmt.Sprintf("%T", msg) == "tea.setClipboardMsg" { // tea.SetClipboard's
			hs.clips = append(hs.clips, fmt.Sprint(msg))
		}
		hs.send(msg)
	}
}

// pump delivers the room events published so far.
func (hs *harness) pump() {
	hs.t.Helper()
	for {
		select {
		case ev := <-hs.sub.C:
			hs.send(roomEventMsg{*ev})
		default:
			return
		}
	}
}

func (hs *harness) typeText(s string) {
	for _, r := range s {
		hs.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (hs *harness) key(code rune, mod tea.KeyMod) {
	hs.send(tea.KeyPressMsg{Code: code, Mod: mod})
}

func (hs *harness) prefix(code rune, text string) {
	hs.key('b', tea.ModCtrl)
	hs.send(tea.KeyPressMsg{Code: code, Text: text})
}

// screen is the frame without attributes.
func (hs *harness) screen() string {
	v := hs.m.View()
	lines := strings.Split(v.Content, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.Strip(l), " ")
	}
	return strings.Join(lines, "\n")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// testBackend is the run for the model tests: a real engine and store,
// and the fake seats for the delete order (the app's rule: seats, files,
// room). Events reach the model through the harness's pump.
type testBackend struct {
	eng    *room.Engine
	store  *topicstore.Store
	seats  *fakeSeats
	reopen string // "" = auto
	// nicknames are the SetNickname calls, "account=nickname".
	nicknames []string

	// The calls that write the store's files, counted so that a test ends
	// them before its folder is removed: Bubble Tea does not wait for the
	// commands still running when its program ends (a topic list loaded
	// after a post rewrites index.json).
	mu     sync.Mutex
	closed bool
	busy   sync.WaitGroup
}

var errBackendClosed = errors.New("test backend closed")

// enter starts a call that may write the store; false once closed.
func (b *testBackend) enter() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.busy.Add(1)
	return true
}

// close refuses further writing calls and waits for those under way.
func (b *testBackend) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.busy.Wait()
}

func (b *testBackend) PersonName() string { return b.eng.PersonName() }
func (b *testBackend) Notify() app.Notify {
	return app.Notify{Permission: "bell", Mention: "bell", Unanswered: "mark"}
}
func (b *testBackend) NewTopic() (string, error) {
	if !b.enter() {
		return "", errBackendClosed
	}
	defer b.busy.Done()
	id := topicstore.NewID()
	_, err := b.eng.Open(id)
	return id, err
}
func (b *testBackend) EnsureOpen(topic string) error {
	_, err := b.eng.Open(topic)
	return err
}
func (b *testBackend) Roster(topic string) []app.Participant { return b.eng.Roster(topic) }
func (b *testBackend) Page(topic string, limit int, before string) (app.Page, error) {
	p, err := b.store.Page(topic, limit, before)
	if errors.Is(err, topicstore.ErrUnknownTopic) {
		return app.Page{}, nil
	}
	if err != nil {
		return app.Page{}, err
	}
	posts := make([]wire.Post, len(p.Posts))
	for i, lp := range p.Posts {
		posts[i] = room.FromLogPost(lp)
	}
	return app.Page{Posts: posts, HasMore: p.HasMore, Skipped: p.Skipped}, nil
}
func (b *testBackend) Topics() ([]app.Topic, error) {
	if !b.enter() {
		return nil, errBackendClosed
	}
	defer b.busy.Done()
	return b.store.List()
}

// SetNickname renames the fake account as the app renames a saved one.
func (b *testBackend) SetNickname(account, nick string) (string, error) {
	if nick == b.eng.PersonName() {
		return "", errors.New("the person's name")
	}
	b.seats.mu.Lock()
	defer b.seats.mu.Unlock()
	for i, a := range b.seats.accounts {
		if a.ID == account {
			a.Nickname, a.Name = nick, nick
			if nick == "" {
				a.Name = a.FullName
			}
			b.seats.accounts[i] = a
			b.nicknames = append(b.nicknames, account+"="+nick)
			return a.Name, nil
		}
	}
	return "", errors.New("no such account")
}
func (b *testBackend) Rename(topic, name string) error {
	if !b.enter() {
		return errBackendClosed
	}
	defer b.busy.Done()
	return b.store.Rename(topic, name)
}
func (b *testBackend) Delete(_ context.Context, topic string) error {
	if !b.enter() {
		return errBackendClosed
	}
	defer b.busy.Done()
	if b.seats != nil {
		b.seats.StopTopic(topic)
	}
	if err := b.store.Delete(topic); err != nil {
		return err
	}
	b.eng.Drop(topic)
	return nil
}
func (b *testBackend) Post(topic, content, lastSeen string) (app.Outcome, error) {
	if !b.enter() {
		return app.Outcome{}, errBackendClosed
	}
	defer b.busy.Done()
	return b.eng.PostAsPerson(topic, content, lastSeen)
}
func (b *testBackend) Events() (<-chan app.Event, func()) {
	sub := b.eng.Subscribe()
	c := make(chan app.Event)
	go func() {
		defer close(c)
		for ev := range sub.C {
			c <- app.Event{Kind: app.EventRoom, Room: *ev}
		}
	}()
	return c, sub.Close
}

func (b *testBackend) IsOpen(topic string) bool { _, ok := b.eng.Room(topic); return ok }
func (b *testBackend) Recorded(topic string) []string {
	t, err := b.store.Get(topic)
	if err != nil || b.seats == nil {
		return nil
	}
	var out []string
	for _, a := range b.seats.accounts {
		if _, ok := t.Sessions[a.ID]; ok {
			out = append(out, a.ID)
		}
	}
	return out
}
func (b *testBackend) Reopen(_ context.Context, topic string) ([]app.SeatEvent, []error) {
	for _, a := range b.Recorded(topic) {
		b.seats.Start(topic, a)
	}
	return nil, nil
}
func (b *testBackend) Usage(topic, account string) (app.Usage, bool) {
	return b.eng.Usage().Get(topic, account)
}
func (b *testBackend) ReopenSeats() string {
	if b.reopen == "" {
		return "auto"
	}
	return b.reopen
}
