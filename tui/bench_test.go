package tui

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"pullcept/room"
	"pullcept/topicstore"
)

// countWriter counts what the program writes to the terminal.
type countWriter struct {
	mu  sync.Mutex
	n   int
	buf bytes.Buffer
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n += len(p)
	w.buf.Write(p)
	return len(p), nil
}

func (w *countWriter) take() (int, string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, s := w.n, w.buf.String()
	w.n = 0
	w.buf.Reset()
	return n, s
}

// BenchmarkWideRepaint measures the bytes written to the terminal per frame
// when one line of a terminal pane changes and the rest of the screen holds
// English or Japanese text (three panes of 80x24-ish, 60 frames a second).
func BenchmarkWideRepaint(b *testing.B) {
	for _, tc := range []struct{ name, text string }{
		{"english", "the quick brown fox jumps over the lazy dog again and again"},
		{"japanese", "日本語のテキストが画面にある場合の再描画を測る行です。"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			st, err := topicstore.Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			eng := room.New(room.Config{Log: st})
			seats := newFakeSeats()
			m, err := newModel(Options{App: &testBackend{eng: eng, store: st}, Seats: seats}, func(f func()) { f() })
			if err != nil {
				b.Fatal(err)
			}
			m.showTopics, m.showParts = false, false
			var panes []*fakePane
			for i := range 3 {
				p := &fakePane{}
				for j := range 24 {
					p.lines = append(p.lines, fmt.Sprintf("%02d %s", j, tc.text))
				}
				panes = append(panes, p)
				seats.seats[m.topic] = append(seats.seats[m.topic], SeatInfo{Account: fmt.Sprint(i), Name: fmt.Sprint("seat", i), State: StateRunning, Pane: p})
			}
			m.refreshSeats()
			out := &countWriter{}
			p := tea.NewProgram(m, tea.WithInput(nil), tea.WithOutput(out), tea.WithWindowSize(250, 30),
				tea.WithColorProfile(colorprofile.TrueColor), tea.WithFPS(60), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
			done := make(chan struct{})
			go func() { _, _ = p.Run(); close(done) }()
			defer func() { p.Quit(); <-done }()

			frame := func(i int) int {
				marker := strings.Repeat(string(rune('A'+(i+26)%26)), 12) // every cell changes, so the run is written whole
				p.Send(editMsg{func() {
					pn := panes[0]
					pn.mu.Lock()
					pn.lines[0] = marker
					pn.mu.Unlock()
				}})
				deadline := time.Now().Add(5 * time.Second)
				total := 0
				var seen strings.Builder
				for {
					n, s := out.take()
					total += n
					seen.WriteString(s)
					if strings.Contains(seen.String(), marker) {
						return total
					}
					if time.Now().After(deadline) {
						b.Fatalf("frame %d never written", i)
					}
					time.Sleep(time.Millisecond)
				}
			}
			frame(-1) // the first full paint
			b.ResetTimer()
			total := 0
			for i := 0; i < b.N; i++ {
				total += frame(i)
			}
			perFrame := float64(total) / float64(b.N)
			b.ReportMetric(perFrame, "bytes/frame")
			b.ReportMetric(perFrame*60/1024, "KiB/s@60fps")
		})
	}
}

// editMsg runs a change on the model's goroutine and marks panes dirty.
type editMsg struct{ f func() }

func init() {
	testHooks = func(m *model, msg tea.Msg) bool {
		if e, ok := msg.(editMsg); ok {
			e.f()
			m.panesDirty = true
			return true
		}
		return false
	}
}
