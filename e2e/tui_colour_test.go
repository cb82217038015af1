package e2e

// Colours from the person's terminal (issue 31, "Colours from the person's
// terminal"): the server draws each screen with the colour profile of the
// client's terminal facts (TERM, COLORTERM, NO_COLOR, CLICOLOR_FORCE), not
// of its own writer, which is no tty. Nothing here forces a profile: TERM
// is what tmux gives its panes (default-terminal), as a person's tmux does.

import (
	"regexp"
	"slices"
	"strings"
	"testing"
)

// attrsAt is the SGR parameters of the run of sequences right before the
// first match of the regular expression at on scr (capture-pane -e); nil
// when there is no run there.
func attrsAt(t *testing.T, scr, at string) []string {
	t.Helper()
	m := regexp.MustCompile(`((?:\x1b\[[0-9;:]*m)*)` + at).FindStringSubmatch(scr)
	if m == nil {
		t.Fatalf("no %q on the screen:\n%q", at, scr)
	}
	var params []string
	for _, seq := range regexp.MustCompile(`\x1b\[([0-9;:]*)m`).FindAllStringSubmatch(m[1], -1) {
		params = append(params, strings.Split(seq[1], ";")...)
	}
	return params
}

// colourParams are the SGR parameters that set a colour (39 and 49, the
// defaults, set none).
func colourParams(params []string) []string {
	var out []string
	for i := 0; i < len(params); i++ {
		switch p := params[i]; {
		case p == "38" || p == "48":
			out = append(out, strings.Join(params[i:], ";"))
			i = len(params)
		case len(p) == 2 && (p[0] == '3' || p[0] == '4' || p[0] == '9') && p[1] <= '7':
			out = append(out, p)
		case len(p) == 3 && p[:2] == "10" && p[2] <= '7':
			out = append(out, p)
		}
	}
	return out
}

// allColour is every colour SGR parameter on the screen.
func allColour(scr string) []string {
	var out []string
	for _, seq := range regexp.MustCompile(`\x1b\[([0-9;:]*)m`).FindAllStringSubmatch(scr, -1) {
		out = append(out, colourParams(strings.Split(seq[1], ";"))...)
	}
	return out
}

// colourScreen runs pullcept with env, says something, and focuses the
// participants (their header focused, the person's row selected); it
// returns the screen with its attributes (capture-pane -e).
func colourScreen(t *testing.T, env []string) (*tuiRun, string) {
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[]}`)
	r := startTUI(t, phome, env, 120, 30, nil)
	r.waitFor("the empty input line focused", func(scr string) bool { return inputLine(scr) == "› say something to the room…" })
	r.text("hello there")
	r.keys("Enter")
	r.waitText("hello there")
	r.prefix("a")
	r.waitText("▶ Participants")
	return r, r.tmux("capture-pane", "-e", "-p")
}

// With TERM as tmux gives it, the focused header is bold white on blue and
// the selected participant and the post under the cursor reversed: colour and attributes reach the
// terminal. Before, the screen had no SGR at all.
func TestTUIColourFromTheTerminal(t *testing.T) {
	t.Parallel()
	r, scr := colourScreen(t, serverEnv(t))
	head := attrsAt(t, scr, "▶ Participants")
	if !slices.Contains(head, "1") || !slices.Contains(head, "7") || !slices.Contains(head, "34") {
		t.Errorf("the focused header's attributes %q, want bold, white on blue (reversed):\n%q", head, scr)
	}
	if row := attrsAt(t, scr, "● Master"); !slices.Contains(row, "7") {
		t.Errorf("the selected participant's attributes %q, want reverse", row)
	}
	if len(allColour(scr)) == 0 {
		t.Errorf("no colour on the screen:\n%q", scr)
	}
	// The room's post cursor (on the post's first line), the room focused.
	r.prefix("r")
	r.waitText("▶ Room")
	scr = r.tmux("capture-pane", "-e", "-p")
	if row := attrsAt(t, scr, `\d\d:\d\d ▶ Master`); !slices.Contains(row, "7") {
		t.Errorf("the post under the cursor: attributes %q, want reverse:\n%q", row, scr)
	}
}

// NO_COLOR: no colour at all, and focus and selection still marked by
// attributes (focus never depends on colour alone).
func TestTUINoColourKeepsAttributes(t *testing.T) {
	t.Parallel()
	r, scr := colourScreen(t, serverEnv(t, "NO_COLOR=1"))
	if c := allColour(scr); len(c) > 0 {
		t.Errorf("colour SGR under NO_COLOR: %q\n%q", c, scr)
	}
	if head := attrsAt(t, scr, "▶ Participants"); !slices.Contains(head, "1") || !slices.Contains(head, "7") || slices.Contains(head, "2") {
		t.Errorf("the focused header's attributes %q, want bold reverse, not dim", head)
	}
	if row := attrsAt(t, scr, "● Master"); !slices.Contains(row, "7") {
		t.Errorf("the selected participant's attributes %q, want reverse", row)
	}
	r.prefix("r")
	r.waitText("▶ Room")
	scr = r.tmux("capture-pane", "-e", "-p")
	if row := attrsAt(t, scr, `\d\d:\d\d ▶ Master`); !slices.Contains(row, "7") {
		t.Errorf("the post under the cursor: attributes %q, want reverse:\n%q", row, scr)
	}
	// A dialog box (prefix &: delete the topic) has its reversed title.
	r.prefix("&")
	r.waitText("Delete topic")
	scr = r.tmux("capture-pane", "-e", "-p")
	if row := attrsAt(t, scr, " Delete topic"); !slices.Contains(row, "7") {
		t.Errorf("the dialog's title: attributes %q, want reverse:\n%q", row, scr)
	}
	if c := allColour(scr); len(c) > 0 {
		t.Errorf("colour SGR under NO_COLOR in the dialog: %q", c)
	}
	r.keys("Escape")
}
