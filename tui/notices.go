package tui

// Status-line notices expire (NoticeTTL after they were shown) and are kept
// whole, with their time, in a log the person can read (prefix ~, as tmux's
// show-messages): a long notice cut by the status line is never lost.

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"pullcept/room/wire"
)

// NoticeTTL is how long a notice stays on the status line.
const NoticeTTL = 15 * time.Second

// noticeLogSize bounds the notice log.
const noticeLogSize = 500

type notice struct {
	at   time.Time
	text string
}

// expireMsg clears the status line if it still shows text.
type expireMsg struct{ text string }

// noticed logs a notice just shown and schedules its expiry.
func (m *model) noticed(text string) tea.Cmd {
	m.notices = append(m.notices, notice{at: m.now(), text: text})
	if len(m.notices) > noticeLogSize {
		m.notices = append([]notice(nil), m.notices[len(m.notices)-noticeLogSize:]...)
	}
	if m.expireAfter == nil {
		return tea.Tick(NoticeTTL, func(time.Time) tea.Msg { return expireMsg{text: text} })
	}
	return m.expireAfter(NoticeTTL, expireMsg{text: text})
}

// noticeLines is the notice log as the overlay shows it, each notice
// whole: wrapped at width w, continuation rows indented.
func (m *model) noticeLines(w int) []string {
	if len(m.notices) == 0 {
		return []string{"(no notices yet)"}
	}
	var out []string
	for _, n := range m.notices {
		// Wrapped beside the time, so no row outgrows w (a cut row would
		// lose what the notice is kept whole for).
		lead := n.at.In(m.loc).Format("15:04:05") + "  "
		for _, row := range strings.Split(ansi.Wrap(wire.OneLine(n.text), max(w-len(lead), 20), ""), "\n") {
			out = append(out, lead+row)
			lead = "          "
		}
	}
	return out
}

// startNotices puts the first status line and every config error in the
// notice log, whole (the status line cuts them), and makes the status
// line count the errors: "3 config errors — ctrl+b ~ lists them".
func (m *model) startNotices(configErrors []string) {
	if m.status != "" {
		m.notices = append(m.notices, notice{at: m.now(), text: m.status})
	}
	for _, e := range configErrors {
		m.notices = append(m.notices, notice{at: m.now(), text: "config error: " + e})
	}
	switch n := len(configErrors); {
	case n == 1:
		m.status = strings.TrimSuffix("1 config error — "+m.prefix+" ~ shows it; "+m.status, "; ")
	case n > 1:
		m.status = strings.TrimSuffix(fmt.Sprintf("%d config errors — %s ~ lists them; %s", n, m.prefix, m.status), "; ")
	}
}
