package tui

// The screen's colour profile is the person's terminal's (issue 31,
// "Colours from the person's terminal"), read from the facts the client
// passes (Options.Env), not from the writer the program draws on: in the
// server that is a socket or a passed file, never asked.

import (
	"strings"

	"github.com/charmbracelet/colorprofile"
)

// termProfile is the colour profile of a terminal described by env (TERM,
// COLORTERM, NO_COLOR, CLICOLOR_FORCE, ...), the terminal's terminfo
// entry raising it as colorprofile.Detect does. NO_COLOR gives ASCII:
// attributes (bold, reverse) and no colour.
func termProfile(env []string) colorprofile.Profile {
	p := colorprofile.Env(env)
	if p == colorprofile.TrueColor || p <= colorprofile.ASCII {
		return p
	}
	for _, kv := range env {
		if t, ok := strings.CutPrefix(kv, "TERM="); ok && t != "" && t != "dumb" {
			p = max(p, colorprofile.Terminfo(t))
		}
	}
	return p
}
