package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// rectText is the plain text of r's rows on the screen, each trimmed.
func rectText(hs *harness, r Rect) []string {
	rows := strings.Split(hs.m.View().Content, "\n")
	var out []string
	for y := r.Y; y < r.Y+r.H && y < len(rows); y++ {
		out = append(out, strings.TrimSpace(ansi.Strip(ansi.Cut(rows[y], r.X, r.X+r.W))))
	}
	return out
}

// A first-run hint at 80x24 wraps at word boundaries: its rows, joined
// with spaces, give the hint back whole (issue 31 point 6).
func TestHintsWrapAtWordsAt80x24(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seats *fakeSeats
		hints []string
	}{
		{"no accounts", nil, []string{
			"Nothing said yet. Type below and press Enter; @ addresses someone.",
		}},
		{"no seat yet", newFakeSeats(Account{ID: "cl", Name: "Claude", Kind: "claude_code"}), []string{
			"Nothing said yet. Type below and press Enter; @ addresses someone.",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hs := newHarness(t, tc.seats, 80, 24)
			room := strings.Join(rectText(hs, hs.m.lay.Room.Inner()), " ")
			for _, h := range append(tc.hints, hs.m.seatHint()) {
				if !strings.Contains(room, h) {
					t.Errorf("the room does not show %q whole, at word boundaries:\n%s", h, hs.screen())
				}
			}
			parts := strings.Join(rectText(hs, hs.m.lay.Parts), " ")
			want := "ctrl+b a, then j/k and s seats a CLI here"
			if tc.seats == nil {
				want = "no accounts: add one to config.json"
			}
			if !strings.Contains(parts, want) {
				t.Errorf("the participants do not show %q whole:\n%s", want, hs.screen())
			}
		})
	}
}

// hintLines wraps wide characters by their cells and breaks at spaces.
func TestHintLinesWideCharacters(t *testing.T) {
	text := "設定ファイルに アカウントを 追加してください then start again"
	rows := hintLines(text, 18)
	var words []string
	for _, r := range rows {
		p := ansi.Strip(r)
		if w := ansi.StringWidth(p); w > 18 {
			t.Errorf("row %q is %d cells, over 18", p, w)
		}
		words = append(words, strings.TrimSpace(p))
	}
	if got := strings.Join(words, " "); got != text {
		t.Errorf("rows %q give %q, want %q", rows, got, text)
	}
}

// Every line the screen cuts ends with …: the status line, the topic
// list's rows, the room's title, a participant's row and a pane's title.
func TestCutLinesEndWithEllipsis(t *testing.T) {
	long := "a very long name that cannot possibly fit in any of these narrow columns"
	seats := newFakeSeats(Account{ID: "cl", Name: "Claudius " + long, Kind: "claude_code"})
	hs := newHarness(t, seats, 80, 24)
	hs.sendText("hello") // the topic is listed
	if err := hs.m.app.Rename(hs.m.topic, "Topic "+long); err != nil {
		t.Fatal(err)
	}
	hs.run(hs.m.loadTopics())
	seats.seats[hs.m.topic] = []SeatInfo{{Account: "cl", Name: "Claudius " + long, Kind: "claude_code", State: StateRunning, Pane: &fakePane{}}}
	hs.send(seatsChangedMsg{})
	hs.m.status = "Status " + long + " and then some more words to be sure"
	hs.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	l := hs.m.lay
	// A row whose name is cut goes on after it (the topic's age, the
	// seat's state): the name ends with …, not the row.
	cut := func(what string, r Rect, prefix string, end bool) {
		t.Helper()
		for _, row := range rectText(hs, r) {
			if strings.Contains(row, prefix) {
				if end && !strings.HasSuffix(row, "…") || !strings.Contains(row, "…") {
					t.Errorf("%s cut without …: %q\n%s", what, row, hs.screen())
				}
				return
			}
		}
		t.Errorf("%s: no row with %q\n%s", what, prefix, hs.screen())
	}
	cut("topic row", Rect{X: l.Topics.X, Y: l.Topics.Y + 1, W: l.Topics.W, H: l.Topics.H - 1}, "Topic a very", false)
	cut("room title", Rect{X: l.Room.X, Y: l.Room.Y, W: l.Room.W, H: 1}, "Room ·", true)
	cut("participant row", l.Parts, "Claudius", false)
	if len(l.Panes) == 0 {
		t.Fatalf("no pane:\n%s", hs.screen())
	}
	cut("pane title", Rect{X: l.Panes[0].X, Y: l.Panes[0].Y, W: l.Panes[0].W, H: 1}, "1 Claudius", true)
	status := rectText(hs, l.Status)[0]
	if !strings.Contains(status, "Status a very") || !strings.Contains(status, "… ctrl+b ? help") {
		t.Errorf("status line cut without …: %q", status)
	}
}

// Every config error is reachable: the status line counts them, the
// notices (prefix ~) list each whole, at 80x24.
func TestConfigErrorsAllInNotices(t *testing.T) {
	errs := []string{
		`/home/p/.config/pullcept/config.json: accounts[0]: field "kind": unknown kind "claud" (the entry is skipped)`,
		`/home/p/.config/pullcept/config.json: accounts[1] (id "cx"): field "hue": not a number (the entry is skipped)`,
		`/home/p/.config/pullcept/mcp-servers.json: servers[0] "files": field "command": missing`,
	}
	hs := newHarness(t, nil, 80, 24, func(o *Options) {
		o.ConfigErrors = errs
		o.Status = "topic index recovered"
	})
	status := rectText(hs, hs.m.lay.Status)[0]
	if !strings.HasPrefix(status, "3 config errors — ctrl+b ~") {
		t.Errorf("status line = %q, want it to count the 3 config errors", status)
	}
	hs.prefix('~', "~")
	got := strings.Join(strings.Fields(hs.screen()), " ")
	for _, e := range append(errs, "topic index recovered") {
		if !strings.Contains(got, strings.Join(strings.Fields(e), " ")) {
			t.Errorf("the notices lack %q:\n%s", e, hs.screen())
		}
	}
}
