package tui

// Status-line notices expire (NoticeTTL after they were shown) and are kept
// whole, with their time, in a log the person can read (prefix ~, as tmux's
// show-messages): a long notice cut by the status line is never lost.

import (
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
		text := n.at.In(m.loc).Format("15:04:05") + "  " + wire.OneLine(n.text)
		for i, row := range strings.Split(ansi.Wrap(text, max(w, 20), ""), "\n") {
			if i > 0 {
				row = "          " + row
			}
			out = append(out, row)
		}
	}
	return out
}
