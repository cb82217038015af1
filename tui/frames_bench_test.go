package tui

import (
	"fmt"
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
// that changed nothing on screen. The renderer's work (the cursed
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
}
