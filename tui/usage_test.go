package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
	"pullcept/room/wire"
)

// usageAt is the time the figures of these tests are received at (the
// harness's engine clock).
var usageAt = time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

func pctp(v float64) *float64 { return &v }

// usageHarness is a 100x30 screen with two accounts, the model's clock at
// usageAt plus since.
func usageHarness(t *testing.T, since time.Duration) *harness {
	t.Helper()
	hs := newHarness(t, newFakeSeats(
		Account{ID: "acc-claude", Name: "Claude", Kind: "claude_code"},
		Account{ID: "acc-codex", Name: "Codex", Kind: "codex"},
	), 100, 30)
	hs.clock(since)
	return hs
}

// clock sets the model's clock to usageAt plus since.
func (hs *harness) clock(since time.Duration) {
	hs.m.now = func() time.Time { return usageAt.Add(since) }
}

// record stores figures for account in the topic on screen, received at
// usageAt plus after, and lets the model read them (as a seat change does).
func (hs *harness) record(account string, r wire.UsageReport, after time.Duration) {
	hs.t.Helper()
	hs.eng.Usage().Record(hs.m.topic, account, r, usageAt.Add(after))
	hs.send(seatsChangedMsg{})
}

// parts is the participants panel as drawn, line by line; raw keeps the
// attributes.
func (hs *harness) parts(raw bool) []string {
	hs.t.Helper()
	r := hs.m.lay.Parts
	if r.Empty() {
		hs.t.Fatal("no participants panel")
	}
	rows := strings.Split(hs.m.View().Content, "\n")
	var out []string
	for _, row := range rows[r.Y : r.Y+r.H] {
		cell := ansi.Cut(row, r.X, r.X+r.W)
		if w := ansi.StringWidth(cell); w != r.W {
			hs.t.Errorf("participants line %q is %d cells wide, want %d", ansi.Strip(cell), w, r.W)
		}
		if !raw {
			cell = strings.TrimRight(ansi.Strip(cell), " ")
		}
		out = append(out, cell)
	}
	return out
}

// block is the lines of the participant whose row starts with "● name",
// up to the next row.
func (hs *harness) block(name string) []string {
	hs.t.Helper()
	lines := hs.parts(false)
	for i, l := range lines {
		if !strings.HasPrefix(l, "● "+name+" ") {
			continue
		}
		j := i + 1
		for j < len(lines) && strings.HasPrefix(lines[j], "  ") {
			j++
		}
		return lines[i:j]
	}
	hs.t.Fatalf("no row for %s in the participants panel:\n%s", name, strings.Join(lines, "\n"))
	return nil
}

// A seat's figures are drawn under its row: model · effort, the 5h and 7d
// windows, the context; "—" for what was never reported (never 0 %), whole
// percentages; a seat that reported nothing gets no line.
func TestUsageFiguresUnderTheSeat(t *testing.T) {
	hs := usageHarness(t, time.Minute)
	hs.record("acc-claude", wire.UsageReport{Model: "Opus 4.8", Effort: "high", FiveHour: &wire.Window{UsedPercentage: 85}, Context: pctp(42.5)}, 0)
	want := []string{
		"● Claude           —",
		"  Opus 4.8 · high",
		"  5h 85% 7d —",
		"  ctx 42%",
	}
	if got := hs.block("Claude"); !slices.Equal(got, want) {
		t.Errorf("Claude's block:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := hs.block("Codex"); len(got) != 1 {
		t.Errorf("Codex reported nothing, yet its block is %q", got)
	}

	// Only the 7d window: every other figure is "—", never 0 %.
	hs.record("acc-codex", wire.UsageReport{SevenDay: &wire.Window{UsedPercentage: 40}}, 0)
	want = []string{
		"● Codex            —",
		"  — · —",
		"  5h — 7d 40%",
		"  ctx —",
	}
	if got := hs.block("Codex"); !slices.Equal(got, want) {
		t.Errorf("Codex's block:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if scr := strings.Join(hs.parts(false), "\n"); strings.Contains(scr, " 0%") {
		t.Errorf("an unreported figure is drawn as 0 %%:\n%s", scr)
	}

	// The model's name is cut to keep the effort; names are made visible.
	hs.record("acc-claude", wire.UsageReport{Model: "claude-opus-4-8\x1b[31m-preview", Effort: "xhigh"}, 0)
	if got := hs.block("Claude")[1]; got != "  claude-op… · xhigh" {
		t.Errorf("a long model: %q, want %q", got, "  claude-op… · xhigh")
	}
	for _, l := range hs.parts(true) {
		if strings.Contains(l, "\x1b[31m-preview") {
			t.Errorf("the model's escape reached the terminal: %q", l)
		}
	}
}

// A percentage received more than 15 minutes ago (by the screen's clock)
// is drawn old: "~" before it, dim. Model and effort hold for the launch
// and are not marked.
func TestUsageOldFiguresMarked(t *testing.T) {
	hs := usageHarness(t, 0)
	hs.record("acc-claude", wire.UsageReport{Model: "Opus 4.8", Effort: "high", FiveHour: &wire.Window{UsedPercentage: 85}, SevenDay: &wire.Window{UsedPercentage: 12}, Context: pctp(42)}, 0)
	hs.record("acc-claude", wire.UsageReport{Context: pctp(50)}, 10*time.Minute)

	hs.clock(15 * time.Minute)
	want := []string{"● Claude           —", "  Opus 4.8 · high", "  5h 85% 7d 12%", "  ctx 50%"}
	if got := hs.block("Claude"); !slices.Equal(got, want) {
		t.Errorf("15 minutes on (not old yet):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	hs.clock(15*time.Minute + time.Second)
	want = []string{"● Claude           —", "  Opus 4.8 · high", "  5h ~85% 7d ~12%", "  ctx 50%"}
	if got := hs.block("Claude"); !slices.Equal(got, want) {
		t.Errorf("15 minutes and a second on:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if raw := strings.Join(hs.parts(true), "\n"); !strings.Contains(raw, style("~85%", "2")) {
		t.Errorf("the old figure is not dim: %q", raw)
	}

	hs.clock(26 * time.Minute)
	if got := hs.block("Claude")[3]; got != "  ctx ~50%" {
		t.Errorf("the context 16 minutes after it arrived: %q, want %q", got, "  ctx ~50%")
	}
}

// A window at 90 % or more is drawn bold in colour with "!", and the seat's
// row gets a "!" before its state; at 89.9 % nothing is marked (and 89 % is
// drawn). A window whose reset time has passed is old and not near.
func TestUsageNearLimitMarked(t *testing.T) {
	hs := usageHarness(t, time.Minute)
	cases := []struct {
		five, seven  float64
		reset        string
		line, colour string // colour: the SGR of the warning, "" for none
	}{
		{89.9, 0, "", "  5h 89% 7d 0%", ""},
		{90, 0, "", "  5h 90%! 7d 0%", "33"},
		{12, 95.5, "", "  5h 12% 7d 95%!", "33"},
		{100, 93, "", "  5h 100%! 7d 93%!", "31"},
		{95, 10, usageAt.Add(30 * time.Second).Format(time.RFC3339), "  5h ~95% 7d 10%", ""},
	}
	for _, c := range cases {
		hs.record("acc-codex", wire.UsageReport{
			FiveHour: &wire.Window{UsedPercentage: c.five, ResetsAt: c.reset},
			SevenDay: &wire.Window{UsedPercentage: c.seven, ResetsAt: usageAt.Add(7 * 24 * time.Hour).Format(time.RFC3339)},
		}, 0)
		b := hs.block("Codex")
		if len(b) != 4 || b[2] != c.line {
			t.Errorf("%v/%v: block %q, want the windows %q", c.five, c.seven, b, c.line)
			continue
		}
		marked := strings.HasSuffix(b[0], " ! —")
		if marked != (c.colour != "") {
			t.Errorf("%v/%v: row %q, marked %v, want %v", c.five, c.seven, b[0], marked, c.colour != "")
		}
		raw := strings.Join(hs.parts(true), "\n")
		if c.colour != "" && !strings.Contains(raw, style("!", "1", c.colour)) {
			t.Errorf("%v/%v: the row's mark is not bold %s: %q", c.five, c.seven, c.colour, raw)
		}
		if c.colour == "" && (strings.Contains(raw, "\x1b[1;33m") || strings.Contains(raw, "\x1b[1;31m")) {
			t.Errorf("%v/%v: a warning style with no window near its limit: %q", c.five, c.seven, raw)
		}
	}
	hs.record("acc-codex", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 90}}, 0)
	if raw := strings.Join(hs.parts(true), "\n"); !strings.Contains(raw, style("90%!", "1", "33")) {
		t.Errorf("the window at 90 %% is not bold yellow: %q", raw)
	}
	// The context is no window: 97 % of it marks nothing.
	hs.record("acc-claude", wire.UsageReport{Context: pctp(97)}, 0)
	if b := hs.block("Claude"); strings.Contains(strings.Join(b, "\n"), "!") {
		t.Errorf("a full context marked the seat: %q", b)
	}
}

// lineOf is the screen row of the participants panel's line i (0 is the
// header).
func (hs *harness) lineOf(i int) int { return hs.m.lay.Parts.Y + i }

// Clicking any line of a participant's block selects that participant; j
// and k move by participant, not by line.
func TestUsageClickSelectsTheBlock(t *testing.T) {
	hs := usageHarness(t, time.Minute)
	hs.record("acc-claude", wire.UsageReport{Model: "Opus 4.8", FiveHour: &wire.Window{UsedPercentage: 85}}, 0)
	hs.record("acc-codex", wire.UsageReport{Context: pctp(10)}, 0)
	lines := hs.parts(false)
	codex := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "● Codex ") })
	claude := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "● Claude ") })
	if codex < 0 || claude < 0 || codex-claude != 4 {
		t.Fatalf("rows at %d and %d:\n%s", claude, codex, strings.Join(lines, "\n"))
	}
	click := func(line int) {
		hs.send(tea.MouseClickMsg{X: hs.m.lay.Parts.X + 4, Y: hs.lineOf(line), Button: tea.MouseLeft})
	}
	rows := hs.m.partRows()
	name := func() string { return rows[hs.m.psel].name }
	for off := range 4 {
		click(codex + off)
		if name() != "Codex" {
			t.Errorf("a click on line %d of Codex's block selected %s", off+1, name())
		}
		click(claude + off)
		if name() != "Claude" {
			t.Errorf("a click on line %d of Claude's block selected %s", off+1, name())
		}
	}
	click(codex + 1) // the second line of Codex's block
	if name() != "Codex" || hs.m.focus != focusParts {
		t.Fatalf("after a click on Codex's figures: %s selected, focus %v", name(), hs.m.focus)
	}
	if got := hs.parts(false)[codex]; got != "● Codex            —" {
		t.Errorf("the selected row: %q", got)
	}
	if raw := hs.parts(true)[codex]; !strings.Contains(raw, "\x1b[7m● Codex") {
		t.Errorf("the selected row is not drawn in reverse: %q", raw)
	}
	hs.send(tea.KeyPressMsg{Code: 's', Text: "s"})
	if got := hs.seats.calls; !slices.Equal(got, []string{"start acc-codex"}) {
		t.Errorf("s after the click: calls %q", got)
	}
	hs.send(tea.KeyPressMsg{Code: 'k', Text: "k"})
	if name() != "Claude" {
		t.Errorf("k from Codex selected %s, want Claude", name())
	}
	hs.send(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if name() != "Codex" {
		t.Errorf("j from Claude selected %s, want Codex", name())
	}
	click(codex + 8) // below the last block
	if name() != "Codex" {
		t.Errorf("a click below the blocks selected %s", name())
	}
}

// With more blocks than rows the panel scrolls to keep the selected one in
// view, and clicks still select what is drawn where they land.
func TestUsagePanelScrollsToSelection(t *testing.T) {
	var accts []Account
	for i := range 6 {
		accts = append(accts, Account{ID: fmt.Sprint("acc-", i), Name: fmt.Sprint("Seat", i), Kind: "claude_code"})
	}
	hs := newHarness(t, newFakeSeats(accts...), 80, 24)
	hs.clock(time.Minute)
	for _, a := range accts {
		hs.record(a.ID, wire.UsageReport{Model: "Opus 4.8", FiveHour: &wire.Window{UsedPercentage: 50}}, 0)
	}
	if lines := hs.parts(false); slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, "● Seat5 ") }) {
		t.Fatalf("the test needs a panel too short for every block:\n%s", strings.Join(lines, "\n"))
	}
	hs.prefix('a', "a")
	for range 6 {
		hs.send(tea.KeyPressMsg{Code: 'j', Text: "j"})
	}
	lines := hs.parts(false)
	last := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "● Seat5 ") })
	if last < 0 || hs.m.partRows()[hs.m.psel].name != "Seat5" {
		t.Fatalf("the selected Seat5 is not in view:\n%s", strings.Join(lines, "\n"))
	}
	if lines[len(lines)-1] != "  ctx —" {
		t.Errorf("the selected block is cut: the panel ends %q", lines[len(lines)-1])
	}
	if lines[1] == "● you          admin" {
		t.Errorf("the panel did not scroll:\n%s", strings.Join(lines, "\n"))
	}
	// A click on the line above Seat5's row lands on Seat4's block.
	hs.send(tea.MouseClickMsg{X: hs.m.lay.Parts.X + 4, Y: hs.lineOf(last - 1), Button: tea.MouseLeft})
	if got := hs.m.partRows()[hs.m.psel].name; got != "Seat4" {
		t.Errorf("a click on %q selected %s, want Seat4", lines[last-1], got)
	}
}

// A usage event of the topic on screen redraws its seat's figures; one of
// another topic changes nothing here.
func TestUsageEventRedraws(t *testing.T) {
	hs := usageHarness(t, time.Minute)
	hs.eng.RecordUsage(hs.m.topic, "acc-codex", wire.UsageReport{Model: "gpt-5.3-codex", Effort: "medium", FiveHour: &wire.Window{UsedPercentage: 50}, Context: pctp(30)})
	if got := hs.block("Codex"); len(got) != 1 {
		t.Fatalf("drawn before the event arrived (the test needs the figures read on their event): %q", got)
	}
	hs.pump()
	want := []string{"● Codex            —", "  gpt-5.3-… · medium", "  5h 50% 7d —", "  ctx 30%"}
	if got := hs.block("Codex"); !slices.Equal(got, want) {
		t.Errorf("after the event:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A new launch drops the last one's model, effort and context.
	hs.eng.NewLaunch(hs.m.topic, "acc-codex")
	hs.pump()
	want = []string{"● Codex            —", "  — · —", "  5h 50% 7d —", "  ctx —"}
	if got := hs.block("Codex"); !slices.Equal(got, want) {
		t.Errorf("after a new launch:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The run's event stream carries them as room events.
	hs.eng.Usage().Record(hs.m.topic, "acc-claude", wire.UsageReport{SevenDay: &wire.Window{UsedPercentage: 7}}, usageAt)
	hs.send(appEventMsg{app.Event{Kind: app.EventRoom, Room: app.RoomEvent{Kind: app.RoomUsage, Topic: hs.m.topic, Account: "acc-claude"}}})
	if got := hs.block("Claude"); len(got) != 4 || got[2] != "  5h — 7d 7%" {
		t.Errorf("after the app's usage event: %q", got)
	}

	other, err := (&testBackend{eng: hs.eng}).NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	hs.eng.RecordUsage(other, "acc-claude", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 99}})
	hs.pump()
	if got := hs.block("Claude"); len(got) != 4 || got[2] != "  5h — 7d 7%" {
		t.Errorf("another topic's figures drawn here: %q", got)
	}
}
