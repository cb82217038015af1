package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"pullcept/room"
	"pullcept/topicstore"
)

// BenchmarkEchoFrame is the screen's own work for a key's echo in a
// focused pane of a 160x40 screen (topic list, room, participants, one pane
// of shell-like text): the seats' change message (the panes read again)
// and the frame drawn from it (View). "view" is View alone, as after a key
// that changed nothing on screen; "key" a key typed into the pane (no
// frame); "pane-output" the echo's own message and frame, and
// "pane-output-cold-*" the same after 16 MiB of other data ("data"), other
// code that allocates ("code") or both were touched, as in the server,
// where each key's frame comes after milliseconds of other processes:
// 1.7×, 3.9× and 6.4× the warm figure on a 2-core VM (issue 13, in
// `git log -p -- docs/performance.md`). The renderer's work (the cursed
// renderer's flush) is BenchmarkFlushOneRow in third_party/bubbletea.
//
//	go test -run x -bench EchoFrame -benchmem ./tui/
func BenchmarkEchoFrame(b *testing.B) {
	st, err := topicstore.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	eng := room.New(room.Config{Log: st, PersonName: "you"})
	seats := newFakeSeats(Account{ID: "cat", Name: "cat", Kind: "cli"})
	m, err := newModel(Options{App: &testBackend{eng: eng, store: st}, Seats: anySeats{seats}}, func(f func()) { f() })
	if err != nil {
		b.Fatal(err)
	}
	pane := &fakePane{}
	for i := range 30 {
		pane.lines = append(pane.lines, fmt.Sprintf("\x1b[32m$\x1b[m cat notes-%02d.txt", i), strings.Repeat("the quick brown fox ", 3))
	}
	seats.seats[""] = []SeatInfo{{Account: "cat", Name: "cat", Kind: "cli", State: StateRunning, Pane: pane}}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	m.Update(seatsChangedMsg{})
	m.Update(tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl})
	m.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
	m.Update(tea.KeyPressMsg{Code: 'b', Mod: tea.ModCtrl})
	m.Update(tea.KeyPressMsg{Code: 'o', Text: "o"})
	if m.focus != focusPane {
		b.Fatal("the pane is not focused")
	}
	b.Run("seats-changed", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			pane.mu.Lock()
			pane.lines[len(pane.lines)-1] = strings.Repeat("x", i%100)
			pane.mu.Unlock()
			m.Update(seatsChangedMsg{})
			_ = m.View()
		}
	})
	b.Run("view", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_ = m.View()
		}
	})
	// What the server's screen does for a key typed into the pane: the
	// key's Update (the pane gets it; no frame), then the echo's output
	// message and its frame. The pane's screen text is made outside the
	// timer: the real pane's Render is BenchmarkPaneRender in seat.
	fixed := &fixedPane{fakePane: pane}
	seats.seats[""] = []SeatInfo{{Account: "cat", Name: "cat", Kind: "cli", State: StateRunning, Pane: fixed}}
	m.Update(seatsChangedMsg{})
	_ = m.View()
	b.Run("key", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			m.Update(tea.KeyPressMsg{Code: 'q', Text: "q"})
			_ = m.View()
		}
	})
	texts := make([]string, 100)
	for i := range texts {
		pane.mu.Lock()
		pane.lines[len(pane.lines)-1] = strings.Repeat("q", i)
		pane.mu.Unlock()
		texts[i] = pane.Render()
	}
	for _, c := range []struct {
		name       string
		data, code bool
	}{{"data", true, false}, {"code", false, true}, {"both", true, true}} {
		b.Run("pane-output-cold-"+c.name, func(b *testing.B) {
			for i := range b.N {
				b.StopTimer()
				evict(c.data, c.code)
				b.StartTimer()
				fixed.text = texts[i%len(texts)]
				m.Update(paneOutputMsg{})
				_ = m.View()
			}
		})
	}
	b.Run("pane-output", func(b *testing.B) {
		b.ReportAllocs()
		for i := range b.N {
			fixed.text = texts[i%len(texts)]
			m.Update(paneOutputMsg{})
			_ = m.View()
		}
	})
}

var evictBuf = make([]byte, 16<<20)

func evict(data, code bool) {
	// Other code and data between frames, as a server that waits for the
	// next key while other processes run: caches, TLBs and predictors cold.
	buf := evictBuf
	for i := 0; data && i < len(buf); i += 64 {
		buf[i] = byte(i)
	}
	if !code {
		return
	}
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "%d %x %q %v\n", i, i*7, "evict", []int{i, i + 1})
	}
	_ = regexp.MustCompile(`[a-z]+\d*(x|y)?`).FindAllString(sb.String(), -1)
	js, _ := json.Marshal(map[string]any{"a": sb.String()[:1000], "b": []int{1, 2, 3}})
	_ = js
}

// fixedPane is a fakePane whose screen text is set, not made.
type fixedPane struct {
	*fakePane
	text string
}

func (p *fixedPane) Render() string { return p.text }
