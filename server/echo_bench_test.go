package server

import (
	"bytes"
	"context"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"pullcept/seat"
)

// BenchmarkEcho is a key's round trip through the server, in process: a
// 1-byte Input frame from a client over the real Unix socket → the screen's
// program → the seat's PTY (cat) → the line discipline's echo → the pane's
// emulator → a frame → the Output frame that carries the key back. Each key
// waits for the screen to go quiet and a random pause, as bench/run.sh echo
// does, so keys do not fall into step with a frame clock. "input" is the
// same keys into the screen's own input line (no pane); "terminal" runs
// both on a client that passed its terminal (a PTY: keys typed on it, the
// frames read from it).
//
//	go test -run x -bench Echo -benchtime 300x ./server/
func BenchmarkEcho(b *testing.B) {
	for _, target := range []string{"pane", "input", "terminal/pane", "terminal/input"} {
		b.Run(target, func(b *testing.B) {
			f := startServer(b, setup{accounts: []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, argv: []string{"cat"}})
			var s *screen
			into, terminal := strings.CutPrefix(target, "terminal/")
			if terminal {
				s, _ = f.attachTerminal(160, 40, 7001)
			} else {
				into, s = target, f.attachScreen(160, 40, 7001)
			}
			s.ready()
			var topic string
			eventually(b, "the screen names its topic", func() bool {
				f.srv.mu.Lock()
				defer f.srv.mu.Unlock()
				topic = f.srv.lastTopic
				return topic != ""
			})
			if _, err := f.a.StartSeat(context.Background(), topic, "bot"); err != nil {
				b.Fatal(err)
			}
			s.waitFor("the pane", has("Bot · cli · running"))
			if into == "pane" {
				s.keys("\x02i\x02o\x02o")
				s.waitFor("the cursor in the pane", func([]string) bool {
					s.mu.Lock()
					defer s.mu.Unlock()
					return s.emu.CursorPosition().Y < 38
				})
			}
			frames := make(chan []byte, 1024)
			tap := func(p []byte) { frames <- bytes.Clone(p) }
			s.tap.Store(&tap)
			quiet := func(d time.Duration) {
				t := time.NewTimer(d)
				defer t.Stop()
				for {
					select {
					case <-frames:
						t.Reset(d)
					case <-t.C:
						return
					}
				}
			}
			quiet(300 * time.Millisecond)
			jitter := rand.New(rand.NewPCG(6, 6))
			const keys = "QXZJVKWY"
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := range b.N {
				if i%40 == 39 {
					s.keys("\x15") // ^U: kill the line
					quiet(100 * time.Millisecond)
				}
				k := keys[i%len(keys)]
				t0 := time.Now()
				s.keys(string(k))
				deadline := time.NewTimer(5 * time.Second)
			wait:
				for {
					select {
					case p := <-frames:
						if bytes.IndexByte(p, k) >= 0 {
							lat = append(lat, time.Since(t0))
							break wait
						}
					case <-deadline.C:
						b.Fatalf("key %d (%q) never drawn; screen:\n%s", i, k, s.text())
					}
				}
				deadline.Stop()
				b.StopTimer()
				quiet(40 * time.Millisecond)
				time.Sleep(time.Duration(jitter.IntN(50_000)) * time.Microsecond)
				b.StartTimer()
			}
			b.StopTimer()
			s.tap.Store(nil)
			slices.Sort(lat)
			pct := func(p int) float64 { return float64(lat[min(len(lat)-1, len(lat)*p/100)].Microseconds()) }
			b.ReportMetric(pct(50), "p50-µs")
			b.ReportMetric(pct(90), "p90-µs")
			b.ReportMetric(pct(99), "p99-µs")
		})
	}
}
