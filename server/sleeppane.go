package server

// A sleeping seat's pane on a screen (issue 35; docs/decisions.md
// "Sleeping seats"): its last screen dimmed, and on its last row since
// when it sleeps and how it wakes. A key typed into it wakes the seat (the
// key itself is not typed: the CLI is not there to read it).

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"
	"pullcept/app"
)

// sleepPanes keeps one placeholder per sleeping seat of a client's screen,
// so the screen's pane caches keep their key while it sleeps.
type sleepPanes struct {
	mu    sync.Mutex
	panes map[[2]string]*sleepPane
}

func (sp *sleepPanes) get(a *app.App, ctx func() context.Context, topic string, s app.SeatInfo) *sleepPane {
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.panes == nil {
		sp.panes = map[[2]string]*sleepPane{}
	}
	k := [2]string{topic, s.Account}
	if p := sp.panes[k]; p != nil && p.since.Equal(s.AsleepSince) {
		return p
	}
	p := &sleepPane{a: a, ctx: ctx, topic: topic, account: s.Account, name: s.Name, since: s.AsleepSince, screen: ansi.Strip(s.Screen), cols: 80, rows: 24}
	sp.panes[k] = p
	return p
}

// sleepPane is a tui.Pane that draws a sleeping seat and wakes it on a key.
type sleepPane struct {
	a                    *app.App
	ctx                  func() context.Context
	topic, account, name string
	since                time.Time
	screen               string // the last screen, plain
	mu                   sync.Mutex
	cols, rows           int
	waking               bool
}

// Write wakes the seat; the keys are not typed.
func (p *sleepPane) Write(b []byte) (int, error) {
	p.mu.Lock()
	start := !p.waking
	p.waking = true
	p.mu.Unlock()
	if start {
		go func() { _, _ = p.a.StartSeat(p.ctx(), p.topic, p.account) }()
	}
	return len(b), nil
}

func (p *sleepPane) Resize(cols, rows int) error {
	p.mu.Lock()
	p.cols, p.rows = max(cols, 1), max(rows, 1)
	p.mu.Unlock()
	return nil
}

// Render is the last screen dimmed, the last row saying how it wakes.
func (p *sleepPane) Render() string {
	p.mu.Lock()
	cols, rows, waking := p.cols, p.rows, p.waking
	p.mu.Unlock()
	lines := strings.Split(p.screen, "\n")
	out := make([]string, rows)
	for i := range out {
		l := ""
		if i < len(lines) {
			l = ansi.Truncate(lines[i], cols, "")
		}
		out[i] = "\x1b[2m" + l + strings.Repeat(" ", max(cols-ansi.StringWidth(l), 0)) + "\x1b[0m"
	}
	note := "asleep since " + p.since.Local().Format("15:04") + " · a key here, s or @" + p.name + " wakes it"
	if waking {
		note = "waking…"
	}
	note = ansi.Truncate(note, cols, "…")
	out[rows-1] = "\x1b[7m" + note + strings.Repeat(" ", max(cols-ansi.StringWidth(note), 0)) + "\x1b[0m"
	return strings.Join(out, "\n")
}

func (p *sleepPane) Cursor() (x, y int, visible bool) { return 0, 0, false }
func (p *sleepPane) ScrollbackLen() int               { return 0 }
func (p *sleepPane) RenderScrolled(offset int) string { return p.Render() }
