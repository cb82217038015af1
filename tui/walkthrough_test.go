package tui

import (
	"regexp"
	"strings"
	"testing"
)

// Every key of the table has a walkthrough entry, every entry names a key
// of the table, and every entry's check can fail (issue 31 point 10).
func TestWalkthroughCoversTheTable(t *testing.T) {
	inTable := map[walkKey]bool{}
	for _, b := range bindings {
		for _, key := range b.keys {
			inTable[walkKey{b.ctx, key}] = true
			if _, ok := walkthrough().expect[walkKey{b.ctx, key}]; !ok {
				t.Errorf("%s: key %q has no walkthrough entry (tui/walkthrough.go)", ctxTitles[b.ctx], key)
			}
		}
	}
	for wk := range walkthrough().expect {
		if !inTable[wk] {
			t.Errorf("walkthrough entry %s %q names no key of the table", ctxTitles[wk.ctx], wk.key)
		}
	}
	for _, s := range Walkthrough() {
		name := s.Context + " " + s.Key
		for _, re := range []string{s.Want, s.Gone} {
			if _, err := regexp.Compile(re); err != nil {
				t.Errorf("%s: %v", name, err)
			}
		}
		for _, key := range append(append(append(append([]string{}, s.Reach...), s.Pre...), s.Post...), s.Restore...) {
			if re, ok := strings.CutPrefix(key, "wait:"); ok {
				if _, err := regexp.Compile(re); err != nil {
					t.Errorf("%s: %v", name, err)
				}
			}
		}
		switch s.Kind {
		case WalkLives:
			if s.Want == "" && s.Gone == "" && s.Clip == "" {
				t.Errorf("%s: lives, but nothing on the screen or the clipboard is checked", name)
			}
		case WalkRuns:
			if s.Marker == "" {
				t.Errorf("%s: runs a program, but names no marker", name)
			}
		case WalkEndsSeat, WalkRestartsSeat:
			if s.Seat == "" {
				t.Errorf("%s: names no seat", name)
			}
		case WalkEndsClient, WalkEndsServer:
		case WalkMissing:
			t.Errorf("%s: %s", name, s.Why)
		case WalkUnchecked:
			if s.Why == "" {
				t.Errorf("%s: unchecked without a reason", name)
			}
		default:
			t.Errorf("%s: unknown kind %q", name, s.Kind)
		}
	}
}

func TestTmuxKey(t *testing.T) {
	for in, want := range map[string]string{"ctrl+b": "C-b", "alt+enter": "M-Enter", "shift+tab": "BTab", "alt+backspace": "M-BSpace",
		"pgdown": "NPage", "x": "x", "shift+enter": "S-Enter", "ctrl+h": "C-h"} {
		if got := tmuxKey(in); got != want {
			t.Errorf("tmuxKey(%q) = %q, want %q", in, got, want)
		}
	}
}
