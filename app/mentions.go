package app

import "pullcept/room"

// Mentions are the names of names that text @-mentions, matched as the
// room matches them when it addresses a post (room.TakeMentions: the
// longest name, case-insensitive, @ or ＠), in order, without repeats. A
// screen uses it only to decide whether a post waits (docs/decisions.md
// "A post to a seat that is still starting"); addressing stays the room's.
func Mentions(text string, names []string) []string {
	_, found := room.TakeMentions(text, names)
	return found
}
