package e2e

// The panes of the terminal UI as a person meets them (issue "Topics bring
// their sessions back, and every pane stays within reach"): the real
// pullcept binary in tmux, driven with send-keys and read with
// capture-pane, the raw bytes it writes to its terminal (pipe-pane) and
// tmux's own view of the cursor. Layouts cycled with prefix space, panes
// that do not fit named on the strip and reached with prefix o and prefix
// #, the input history, copying to the clipboard by OSC 52, and the
// cursor of a focused pane whose program hides it.

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// seatsConfig writes a config whose accounts are cli seats named names,
// each running command (a shell line).
func seatsConfig(t *testing.T, phome, command string, names ...string) {
	t.Helper()
	var accounts []map[string]any
	for _, n := range names {
		accounts = append(accounts, map[string]any{"id": strings.ToLower(n), "name": n, "kind": "cli", "command": command})
	}
	data, err := json.Marshal(map[string]any{"accounts": accounts})
	if err != nil {
		t.Fatal(err)
	}
	writeConfig(t, phome, string(data))
}

// startSeats starts every listed account's seat from the participants
// panel (prefix a, then j and s for each, in the order of the config),
// one at a time: each waits for the panel to say it runs and for its
// notice on the status line ("Ann started (new session)"), which arrives
// on its own and would otherwise replace what a later key puts there. The
// participants keep the focus.
func startSeats(r *tuiRun, names ...string) {
	r.t.Helper()
	r.prefix("a")
	for _, n := range names {
		r.keys("j")
		r.keys("s")
		running := regexp.MustCompile(`● ` + regexp.QuoteMeta(n) + ` +running`)
		r.waitFor(n+" running and its start noticed", func(scr string) bool {
			return running.MatchString(scr) && strings.Contains(statusLine(scr), n+" started (new session)")
		})
	}
}

// paneBox is where a terminal pane sits on the screen, in cells: x its
// first column, y its title row, w its width, h its rows with the title.
type paneBox struct{ x, y, w, h int }

// paneHeaderRe is a pane's title row as drawn: "▶ 3 Cid · …" focused,
// " 3 Cid · …" not.
var paneHeaderRe = regexp.MustCompile(`^(▶ | )\d+ \S+ · `)

// stripRe is the strip naming the hidden panes, in the row that holds it.
var stripRe = regexp.MustCompile(`(?:^|│)(\+\d+: [^│]*)`)

// screenRows is a capture's rows (one per terminal row).
func screenRows(scr string) []string { return strings.Split(strings.TrimSuffix(scr, "\n"), "\n") }

// findPane finds the pane whose title row holds title (anywhere on the
// screen, not only its first row): its columns are those between the
// separators around the title, its rows go down to the next pane's title,
// the strip or the status line (the body is the screen less the status
// line and a one-row input). A pane at the screen's right edge ends where
// the status line does (capture-pane trims the rows' trailing blanks).
func findPane(scr, title string) (paneBox, bool) {
	rows := screenRows(scr)
	body := len(rows) - 2
	for y := 0; y < body; y++ {
		row := rows[y]
		i := strings.Index(row, title)
		if i < 0 {
			continue
		}
		x0 := 0
		if j := strings.LastIndex(row[:i], "│"); j >= 0 {
			x0 = ansi.StringWidth(row[:j]) + 1
		}
		x1 := ansi.StringWidth(rows[body]) // no separator on the right: the screen's edge, where the status line's help ends
		if j := strings.Index(row[i:], "│"); j >= 0 {
			x1 = ansi.StringWidth(row[:i+j])
		}
		if !paneHeaderRe.MatchString(ansi.Cut(row, x0, x1)) {
			continue
		}
		b := paneBox{x: x0, y: y, w: x1 - x0, h: 1}
		for yy := y + 1; yy < body; yy++ {
			if paneHeaderRe.MatchString(ansi.Cut(rows[yy], x0, x1)) || stripRe.MatchString(rows[yy]) {
				break
			}
			b.h++
		}
		return b, true
	}
	return paneBox{}, false
}

// paneRows is the text of the pane titled title, a row per screen row
// under its title, trimmed on the right (nil when it is not on screen).
func paneRows(scr, title string) []string {
	b, ok := findPane(scr, title)
	if !ok {
		return nil
	}
	rows := screenRows(scr)
	var out []string
	for y := b.y + 1; y < b.y+b.h; y++ {
		out = append(out, strings.TrimRight(ansi.Cut(rows[y], b.x, b.x+b.w), " "))
	}
	return out
}

// hiddenStrip is the text of the strip naming the hidden panes ("" without one).
func hiddenStrip(scr string) string {
	for _, row := range screenRows(scr) {
		if m := stripRe.FindStringSubmatch(row); m != nil {
			return strings.TrimRight(m[1], " ")
		}
	}
	return ""
}

// statusLine is the screen's status line (above a one-row input line).
func statusLine(scr string) string {
	rows := screenRows(scr)
	return strings.TrimSpace(rows[len(rows)-2])
}

// inputLine is the screen's last row: the one-row input line.
func inputLine(scr string) string {
	rows := screenRows(scr)
	return strings.TrimRight(rows[len(rows)-1], " ")
}

// focusedHeaderRe is the focused panel's header: "▶ " where a panel
// starts (a post's "▶" in the room follows its time, not a separator).
var focusedHeaderRe = regexp.MustCompile(`(?m)(?:^|│)▶ ([^│\n]*)`)

// focusedTitle is the focused panel's title ("" when none is: the input line).
func focusedTitle(scr string) string {
	if m := focusedHeaderRe.FindStringSubmatch(scr); m != nil {
		return strings.TrimRight(m[1], " ")
	}
	return ""
}

// focusWithO presses prefix o, one at a time, each time waiting for the
// focus to move, until the focused panel's title starts with title; it
// returns the screen then and how many presses it took.
func focusWithO(r *tuiRun, title string) (string, int) {
	r.t.Helper()
	prev := focusedTitle(r.screen())
	var walked []string
	for n := 1; n <= 20; n++ {
		r.prefix("o")
		scr := r.waitFor(fmt.Sprintf("prefix o to move the focus from %q", prev), func(scr string) bool {
			return focusedTitle(scr) != prev
		})
		prev = focusedTitle(scr)
		walked = append(walked, prev)
		if strings.HasPrefix(prev, title) {
			return scr, n
		}
	}
	r.t.Fatalf("prefix o never focused %q; it walked %q", title, walked)
	return "", 0
}

// waitStatus waits until the status line says text.
func waitStatus(r *tuiRun, text string) string {
	r.t.Helper()
	return r.waitFor(fmt.Sprintf("the status line to say %q", text), func(scr string) bool {
		return strings.Contains(statusLine(scr), text)
	})
}

// TestTUIPanesLayouts: four cli seats at 120x40; prefix space cycles
// tmux's layouts, the status line names each, and the panes move: side by
// side in one row (the two that fit; the others named on the strip),
// stacked in one column, the first on the left at full height with the
// others stacked on its right, then tiled again with every pane shown
// (four stacked in the 45 columns left by the side panels; a 2x2 grid once
// prefix t and prefix P hide them). Sizes are shared evenly and the panes
// fill their area.
func TestTUIPanesLayouts(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	names := []string{"Ann", "Bob", "Cid", "Dan"}
	seatsConfig(t, phome, "cat", names...)
	r := startTUI(t, phome, serverEnv(t), 120, 40, nil)
	r.waitText("say something to the room", "Participants", "Dan")
	startSeats(r, names...)
	titles := make([]string, len(names))
	for i, n := range names {
		titles[i] = fmt.Sprintf("%d %s · cli", i+1, n)
	}
	// boxes waits until the panes in shown are on screen (and the others
	// not) and returns where they are.
	boxes := func(what string, shown ...int) (string, []paneBox) {
		t.Helper()
		var out []paneBox
		scr := r.waitFor(what, func(scr string) bool {
			out = out[:0]
			for i, title := range titles {
				b, ok := findPane(scr, title)
				if ok != slices.Contains(shown, i) {
					return false
				}
				if ok {
					out = append(out, b)
				}
			}
			return true
		})
		return scr, out
	}
	body := 40 - 2 // the status line and the input under the body
	_, tiled := boxes("the four panes, tiled (the default)", 0, 1, 2, 3)
	for _, b := range tiled {
		if b.w < 20 || b.h < 6 {
			t.Errorf("tiled: a pane smaller than 20x5 inside: %+v", tiled)
		}
	}

	r.prefix("Space")
	waitStatus(r, "layout: even-horizontal")
	scr, bs := boxes("two panes side by side, the others hidden", 0, 1)
	if a, b := bs[0], bs[1]; a.y != b.y || b.x != a.x+a.w+1 || a.h != b.h || absInt(a.w-b.w) > 1 || a.h != body-1 {
		t.Errorf("even-horizontal: panes 1 and 2 at %+v %+v, want one row, side by side, widths within one, full height but the strip", a, b)
	}
	if got := hiddenStrip(scr); !strings.HasPrefix(got, "+2: 3 Cid · 4 Dan") {
		t.Errorf("even-horizontal: the strip says %q, want +2: 3 Cid · 4 Dan", got)
	}

	r.prefix("Space")
	waitStatus(r, "layout: even-vertical")
	scr, bs = boxes("four panes stacked", 0, 1, 2, 3)
	total := 0
	for i, b := range bs {
		total += b.h
		if b.x != bs[0].x || b.w != bs[0].w || absInt(b.h-bs[0].h) > 1 || (i > 0 && b.y != bs[i-1].y+bs[i-1].h) {
			t.Errorf("even-vertical: panes at %+v, want one column, stacked, heights within one", bs)
			break
		}
	}
	if total != body || hiddenStrip(scr) != "" {
		t.Errorf("even-vertical: panes %+v fill %d of %d rows; strip %q", bs, total, body, hiddenStrip(scr))
	}

	r.prefix("Space")
	waitStatus(r, "layout: main-vertical")
	_, bs = boxes("pane 1 on the left, the others stacked on its right", 0, 1, 2, 3)
	main, right := bs[0], bs[1:]
	if main.y != 0 || main.h != body || right[0].y != 0 || right[0].x != main.x+main.w+1 || absInt(main.w-right[0].w) > 1 {
		t.Errorf("main-vertical: pane 1 at %+v, the others at %+v, want pane 1 full height on the left half", main, right)
	}
	total = 0
	for i, b := range right {
		total += b.h
		if b.x != right[0].x || b.w != right[0].w || (i > 0 && b.y != right[i-1].y+right[i-1].h) {
			t.Errorf("main-vertical: panes 2-4 at %+v, want them stacked in one column", right)
			break
		}
	}
	if total != body {
		t.Errorf("main-vertical: panes 2-4 %+v fill %d of %d rows", right, total, body)
	}

	r.prefix("Space")
	waitStatus(r, "layout: tiled")
	scr, bs = boxes("the four panes, tiled again", 0, 1, 2, 3)
	if !slices.Equal(bs, tiled) || hiddenStrip(scr) != "" {
		t.Errorf("tiled again: panes at %+v (strip %q), first %+v", bs, hiddenStrip(scr), tiled)
	}
	// With both side panels hidden the panes get 71 columns: tiled is then
	// a 2x2 grid (each pane closer to 80x24 than four stacked).
	r.prefix("t")
	r.prefix("P")
	r.waitFor("the side panels hidden", func(scr string) bool {
		return !strings.Contains(scr, "Participants") && !strings.Contains(scr, "Topics")
	})
	_, bs = boxes("the four panes tiled in the wider area", 0, 1, 2, 3)
	if a, b, c, d := bs[0], bs[1], bs[2], bs[3]; a.y != b.y || c.y != d.y || c.y != a.y+a.h || a.x != c.x || b.x != d.x ||
		b.x != a.x+a.w+1 || absInt(a.w-b.w) > 1 || a.w != c.w || absInt(a.h-c.h) > 1 || a.h+c.h != body {
		t.Errorf("tiled without the side panels: panes at %+v, want a 2x2 grid filling the area", bs)
	}
}

// absInt is |n|.
func absInt(n int) int { return max(n, -n) }

// TestTUIPanesHiddenReached: eight shell seats at 100x30, where six fit;
// the strip names the other two with their numbers. prefix o walks to
// the hidden pane 7, which comes on screen (in the last place, pane 6 goes
// to the strip) and gets the keys typed: its shell echoes them in pane 7
// only. prefix # then 8 focuses the other hidden pane; prefix # then 3 a
// shown one, and pane 8 keeps its place.
func TestTUIPanesHiddenReached(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	names := []string{"Ann", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal"}
	seatsConfig(t, phome, "sh", names...)
	r := startTUI(t, phome, serverEnv(t), 100, 30, nil)
	r.waitText("say something to the room", "Participants", "Hal")
	startSeats(r, names...)
	shown := func(scr string) []string {
		var out []string
		for i, n := range names {
			if _, ok := findPane(scr, fmt.Sprintf("%d %s · cli", i+1, n)); ok {
				out = append(out, n)
			}
		}
		return out
	}
	scr := r.waitFor("six panes and the strip naming 7 and 8", func(scr string) bool {
		return strings.HasPrefix(hiddenStrip(scr), "+2: 7 Gus · 8 Hal") && len(shown(scr)) == 6
	})
	if got := shown(scr); !slices.Equal(got, names[:6]) {
		t.Fatalf("panes shown %q, want the first six", got)
	}

	scr, presses := focusWithO(r, "7 Gus · cli")
	if got := shown(scr); !slices.Equal(got, []string{"Ann", "Bob", "Cid", "Dan", "Eve", "Gus"}) || !strings.HasPrefix(hiddenStrip(scr), "+2: 6 Fay · 8 Hal") {
		t.Errorf("pane 7 focused: panes shown %q, strip %q; want 7 in 6's place and 6 on the strip", got, hiddenStrip(scr))
	}
	t.Logf("prefix o reached pane 7 in %d presses (from the participants)", presses)

	r.text("echo hi-from-7")
	r.keys("Enter")
	scr = r.waitFor("the echo in pane 7", func(scr string) bool {
		return slices.Contains(paneRows(scr, "7 Gus · cli"), "hi-from-7")
	})
	for i, n := range names {
		if i != 6 && strings.Contains(strings.Join(paneRows(scr, fmt.Sprintf("%d %s · cli", i+1, n)), "\n"), "hi-from-7") {
			t.Errorf("pane %d got the keys typed into pane 7", i+1)
		}
	}

	r.prefix("#")
	r.keys("8")
	scr = r.waitFor("pane 8 focused on screen", func(scr string) bool { return strings.HasPrefix(focusedTitle(scr), "8 Hal · cli") })
	if got := shown(scr); !slices.Equal(got, []string{"Ann", "Bob", "Cid", "Dan", "Eve", "Hal"}) || !strings.HasPrefix(hiddenStrip(scr), "+2: 6 Fay · 7 Gus") {
		t.Errorf("prefix # 8: panes shown %q, strip %q; want 8 in the last place, 6 and 7 on the strip", got, hiddenStrip(scr))
	}
	r.prefix("#")
	r.keys("3")
	scr = r.waitFor("pane 3 focused", func(scr string) bool { return strings.HasPrefix(focusedTitle(scr), "3 Cid · cli") })
	if got := shown(scr); !slices.Equal(got, []string{"Ann", "Bob", "Cid", "Dan", "Eve", "Hal"}) {
		t.Errorf("prefix # 3: panes shown %q, want pane 8 to keep its place", got)
	}
}

// TestTUIPanesInputHistory: two posts sent; ↑ in the empty input line
// recalls the second, ↑ again the first (and again stays there), ↓ the
// second, ↓ past it an empty line.
func TestTUIPanesInputHistory(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[]}`)
	r := startTUI(t, phome, serverEnv(t), 100, 30, nil)
	const empty = "› say something to the room…"
	r.waitFor("the empty input line focused", func(scr string) bool { return inputLine(scr) == empty })
	sayInTUI(r, "first post")
	r.waitText("Room · first post")
	sayInTUI(r, "second post")
	r.waitFor("the second post in the room and the input empty", func(scr string) bool {
		return strings.HasSuffix(roomText(scr), "  second post") && inputLine(scr) == empty
	})
	for i, step := range []struct{ key, want string }{
		{"Up", "› second post"},
		{"Up", "› first post"},
		{"Up", "› first post"}, // the oldest stays
		{"Down", "› second post"},
		{"Down", empty},
	} {
		r.keys(step.key)
		if step.key == "Up" && i == 2 {
			continue // nothing changes to wait for: the next step shows it
		}
		r.waitFor(fmt.Sprintf("step %d (%s): the input line %q", i+1, step.key, step.want), func(scr string) bool {
			return inputLine(scr) == step.want
		})
	}
}

// osc52Re is OSC 52 setting the clipboard, as Bubble Tea writes it.
var osc52Re = regexp.MustCompile("\x1b\\]52;c;([A-Za-z0-9+/=]*)\x07")

// clipboardWrites decodes every OSC 52 in raw, in order.
func clipboardWrites(t *testing.T, raw []byte) []string {
	t.Helper()
	var out []string
	for _, m := range osc52Re.FindAllSubmatch(raw, -1) {
		b, err := base64.StdEncoding.DecodeString(string(m[1]))
		if err != nil {
			t.Fatalf("OSC 52 with bad base64 %q: %v", m[1], err)
		}
		out = append(out, string(b))
	}
	return out
}

// TestTUIPanesCopy: in a pane's scroll mode (prefix [, v, k, y) and in
// the room (prefix r, v, y; then v, k, y), the client writes OSC 52 to its
// terminal whose text is exactly the lines selected, and the status line
// says how many.
func TestTUIPanesCopy(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	seatsConfig(t, phome, `sh -c 'printf "copy-one\ncopy-two"; exec cat'`, "Cop")
	r := startTUI(t, phome, serverEnv(t), 120, 40, nil)
	raw := filepath.Join(t.TempDir(), "raw")
	r.tmux("pipe-pane", "-o", "cat >> "+shellQuote(raw))
	copied := func(n int) []string {
		t.Helper()
		var got []string
		r.until(fmt.Sprintf("%d OSC 52 written to the terminal", n), func() bool {
			data, _ := os.ReadFile(raw)
			got = clipboardWrites(t, data)
			return len(got) >= n
		})
		if len(got) != n {
			t.Fatalf("OSC 52 written: %q, want %d", got, n)
		}
		return got
	}
	r.waitText("say something to the room", "Participants", "Cop")
	startSeats(r, "Cop")
	const title = "1 Cop · cli"
	r.waitFor("the seat's two lines in its pane", func(scr string) bool {
		rows := paneRows(scr, title)
		return len(rows) > 1 && rows[0] == "copy-one" && rows[1] == "copy-two"
	})
	focusWithO(r, title)

	// Scroll mode: v at the application's cursor line (copy-two), k takes
	// the line above in, y copies both and scroll mode stays.
	r.prefix("[")
	r.waitFor("scroll mode", func(scr string) bool { return strings.Contains(focusedTitle(scr), " · scroll ") })
	r.keys("v")
	r.keys("k")
	r.keys("y")
	scr := waitStatus(r, "copied 2 lines")
	if got := copied(1)[0]; got != "copy-one\ncopy-two" {
		t.Errorf("scroll mode v k y copied %q, want %q", got, "copy-one\ncopy-two")
	}
	if !strings.Contains(focusedTitle(scr), " · scroll ") {
		t.Errorf("scroll mode ended with the copy: %q", focusedTitle(scr))
	}
	r.keys("q")
	r.waitFor("scroll mode left", func(scr string) bool {
		return strings.HasPrefix(focusedTitle(scr), title) && !strings.Contains(focusedTitle(scr), " · scroll ")
	})

	// The room: v at the bottom line shown (the post's body), y.
	sayInTUI(r, "hello room")
	scr = r.waitFor("the post in the room", func(scr string) bool { return strings.HasSuffix(roomText(scr), "\n  hello room") })
	room := strings.Split(roomText(scr), "\n")
	r.prefix("r")
	r.keys("v")
	r.keys("y")
	waitStatus(r, "copied 1 line")
	if got := copied(2)[1]; got != "  hello room" {
		t.Errorf("room v y copied %q, want %q", got, "  hello room")
	}
	// v, k, y: the post's two drawn lines, its time and name too.
	r.keys("v")
	r.keys("k")
	r.keys("y")
	waitStatus(r, "copied 2 lines")
	want := strings.Join(room[len(room)-2:], "\n")
	if got := copied(3)[2]; got != want || !regexp.MustCompile(`^\d\d:\d\d ▶ Master\n  hello room$`).MatchString(got) {
		t.Errorf("room v k y copied %q, want the room's lines %q", got, want)
	}
}

// TestTUIPanesHiddenCursor: a seat whose program hides its cursor after
// "> ". While the input line has focus the outer cursor is there and
// shown; focusing the pane puts the outer cursor where the program's is
// (right after "> " in the pane's first row), hidden, and it follows what
// the pane echoes.
func TestTUIPanesHiddenCursor(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	seatsConfig(t, phome, `sh -c 'printf "\033[?25l> "; exec cat'`, "Hid")
	const w, h = 120, 40
	r := startTUI(t, phome, serverEnv(t), w, h, nil)
	target := strings.TrimSpace(r.tmux("list-panes", "-F", "#{pane_id}"))
	type cursor struct {
		x, y    int
		visible bool
	}
	outer := func() cursor {
		f := strings.Fields(r.tmux("display-message", "-p", "-t", target, "#{cursor_x} #{cursor_y} #{cursor_flag}"))
		if len(f) != 3 {
			t.Fatalf("tmux display: %q", f)
		}
		x, _ := strconv.Atoi(f[0])
		y, _ := strconv.Atoi(f[1])
		return cursor{x, y, f[2] == "1"}
	}
	waitCursor := func(what string, want cursor) {
		t.Helper()
		var got cursor
		defer func() {
			if t.Failed() {
				t.Logf("the outer cursor was at %+v", got)
			}
		}()
		r.until(fmt.Sprintf("the outer cursor %s at %+v", what, want), func() bool {
			got = outer()
			return got == want
		})
	}
	r.waitText("say something to the room", "Participants", "Hid")
	startSeats(r, "Hid")
	const title = "1 Hid · cli"
	scr := r.waitFor("the prompt in the pane", func(scr string) bool {
		rows := paneRows(scr, title)
		return len(rows) > 0 && rows[0] == ">"
	})
	b, _ := findPane(scr, title)

	r.prefix("i")
	waitCursor("in the input line, shown", cursor{2, h - 1, true})

	focusWithO(r, title)
	waitCursor("at the pane's cursor, hidden", cursor{b.x + 2, b.y + 1, false})

	// Typed into the pane: cat's terminal echoes it, the cursor follows.
	r.text("abc")
	r.waitFor("the echo in the pane", func(scr string) bool {
		rows := paneRows(scr, title)
		return len(rows) > 0 && rows[0] == "> abc"
	})
	waitCursor("after the echo, hidden", cursor{b.x + 5, b.y + 1, false})
}
