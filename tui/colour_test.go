package tui

import (
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
