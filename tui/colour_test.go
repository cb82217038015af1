package tui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
)

// The colour profile comes from the terminal's facts, as the client
// passes them: a 256-colour TERM has colour, NO_COLOR keeps attributes
// only, no TERM means no terminal.
func TestTermProfile(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want colorprofile.Profile
	}{
		{[]string{"TERM=xterm-256color"}, colorprofile.ANSI256},
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor"}, colorprofile.TrueColor},
		{[]string{"TERM=tmux-256color"}, colorprofile.ANSI256},
		{[]string{"TERM=screen"}, colorprofile.ANSI256},
		{[]string{"TERM=xterm-256color", "COLORTERM=truecolor", "NO_COLOR=1"}, colorprofile.ASCII},
		{[]string{"TERM=dumb"}, colorprofile.NoTTY},
		{[]string{"TERM=dumb", "CLICOLOR_FORCE=1"}, colorprofile.ANSI},
		{nil, colorprofile.NoTTY},
	} {
		if got := termProfile(c.env); got != c.want {
			t.Errorf("termProfile(%q) = %v, want %v", c.env, got, c.want)
		}
	}
}

// Without colour (NO_COLOR: the ASCII profile keeps attributes only) the
// focused header is a bold reversed bar and the others dim: focus never
// rests on colour alone. With colour it is white on blue.
func TestFocusMarkedWithoutColour(t *testing.T) {
	draw := func(p colorprofile.Profile, s string) string {
		var b strings.Builder
		w := &colorprofile.Writer{Forward: &b, Profile: p}
		if _, err := w.WriteString(s); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	focused, other := header("Room", 20, true), header("Topics", 20, false)
	if got := draw(colorprofile.ASCII, focused); !strings.HasPrefix(got, "\x1b[1;7m▶ Room") {
		t.Errorf("focused header without colour %q, want bold reverse", got)
	}
	if got := draw(colorprofile.ASCII, other); !strings.HasPrefix(got, "\x1b[1;2;7m Topics") {
		t.Errorf("other header without colour %q, want dim", got)
	}
	if got := draw(colorprofile.ANSI256, focused); !strings.Contains(got, "34") || !strings.Contains(got, "107") || !strings.Contains(got, "7") {
		t.Errorf("focused header in colour %q, want reversed blue on white (white on blue)", got)
	}
}
