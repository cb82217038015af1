package tui

// The walkthrough: the expected outcome of every key of the binding table
// (issue 31 point 10). e2e/walkthrough_test.go presses each key in tmux
// against the real binary (seats running, a notice up, two clients) and
// checks it; TestWalkthroughCoversTheTable fails when a key of the table
// has no entry here, or an entry names no key of the table.
//
// The scene every step starts from (the e2e test sets it up): the person
// is Master; the topic on screen is "walk", between "third" (newer) and
// "other" (older) in the list; cli seat Ann (pane 1) runs `cat`, Bob (pane 2)
// and Cid (pane 3) the test's scripted CLI, which joins the room (so the @
// candidates are Bob and Cid) and answers the person's posts; each printed
// line-1 … line-300 first; Dan (cat too) has no seat in walk; the MCP
// servers "hook" (cat: never ready) and "news" (a fake bridge, which posts
// one notice, folded at the room's end) are in mcp-servers.json; the room holds, oldest first, "walk
// topic", a post of 60 lines, "hello room" and a post with the attachment
// walk-a.txt (and later posts: the ones the steps send, the CLIs' answers); the picker opens in the folder of
// walk-a.txt and walk-b.txt; $VISUAL, $PAGER and $PULLCEPT_OPEN run a
// script that writes its first argument (the marker) to a file; a second
// client is attached. The input line is focused and empty.

import (
	"strings"
	"sync"
)

// WalkKind is the outcome a key is checked for.
type WalkKind string

const (
	// WalkLives: the server, both clients and every seat running before
	// the key live on (each seat's process the same), and the screen
	// changes as Want and Gone say.
	WalkLives WalkKind = "lives"
	// WalkRuns: a program runs on the pressing client's terminal (it
	// writes Marker), and everything lives on.
	WalkRuns WalkKind = "runs-program"
	// WalkEndsSeat: the seat Seat's process ends; everything else lives.
	WalkEndsSeat WalkKind = "ends-seat"
	// WalkRestartsSeat: the seat Seat's process ends and a new one runs.
	WalkRestartsSeat WalkKind = "restarts-seat"
	// WalkEndsClient: the pressing client ends; the server, the other
	// client and every seat live on.
	WalkEndsClient WalkKind = "ends-client"
	// WalkEndsServer: the server, both clients and every seat end.
	WalkEndsServer WalkKind = "ends-server"
	// WalkUnchecked: the key cannot be checked meaningfully; Why says why.
	WalkUnchecked WalkKind = "unchecked"
	// WalkMissing: the key has no entry in the walkthrough (a failure).
	WalkMissing WalkKind = "missing"
)

// WalkStep is one key of the walkthrough, as the e2e test drives it.
// Key lists hold tmux key names (send-keys), or "text:S" (S typed
// literally), "paste:S" (S pasted, bracketed), "wait:RE" (wait until
// the screen matches RE) and "settle" (wait until the screen stops
// changing: a pane's redraw after a resize).
type WalkStep struct {
	Context string // the table's context title
	Key     string // the table's key
	Help    string // what the table says it does
	Reach   []string
	Pre     []string // after Reach, before the key
	Press   []string
	Post    []string // after the key, to show its effect
	Kind    WalkKind
	// Want is a regexp the screen must match after the key and not before
	// it; Gone one it must match before and not after; Clip a text the
	// clipboard (OSC 52, tmux's buffer) must hold after.
	Want, Gone, Clip string
	Seat             string // WalkEndsSeat, WalkRestartsSeat
	Marker           string // WalkRuns
	Restore          []string
	Why              string // WalkUnchecked
}

type walkKey struct {
	ctx keyCtx
	key string
}

// walkExpect is one key's expected outcome (WalkStep without what the
// table gives). kind "" is WalkLives; press nil is the key itself.
type walkExpect struct {
	kind             WalkKind
	pre, press, post []string
	want, gone, clip string
	seat, marker     string
	restore          []string
	why              string
	reach            []string // nil: the context's
}

// k is a list of keys.
func k(keys ...string) []string { return keys }

// walkDropDir stands for the folder of walk-a.txt and walk-b.txt in
// "paste:" keys; the e2e test puts the real folder in its place.
const walkDropDir = "{drops}"

func walkDrop(name string) string { return "'" + walkDropDir + "/" + name + "'" }

// needsWalkEmpty: why the needs-you list's moves are not walked.
const needsWalkEmpty = "the walk's needs-you list is empty (its seats open no prompt and say nothing to the person): moving changes nothing; tui TestNeedsListKeys moves through items"

// Frequent checks.
const (
	wantInputFocused = `say something to the room…`
	selAnn           = "j" // from the participants' top (Master): Ann
)

// walkthrough is each key's expected outcome, and how each context is
// reached and left (walkReach, walkRestore). It is made on first use (a test's or the e2e's), not at the
// package's start: the screen never reads it (TestNoHeavyPackageInit).
var walkthrough = sync.OnceValue(func() walkTables {
	// Reaching each context from the focused, empty input line, and
	// leaving it again (then the test presses prefix i and clears the input).
	walkReach := map[keyCtx][]string{
		ctxPrefix:     nil,
		ctxInput:      nil,
		ctxCandidates: k("text:@", "wait:@Bob", "wait:@Cid"),
		ctxTopics:     k("C-b", "w", "wait:▶ Topics"),
		ctxRoom:       k("C-b", "r", "wait:▶ Room"),
		ctxParts:      k("C-b", "a", "wait:▶ Participants", "k", "k", "k", "k", "k", "k"),
		ctxPane:       k("C-b", "#", "1", "wait:▶ 1 Ann"),
		// Zoomed: at 80x24 a pane's title has no room for "scroll 0/300".
		ctxScroll:  k("C-b", "#", "1", "wait:▶ 1 Ann", "C-b", "z", "wait:zoomed", "settle", "C-b", "[", "wait:scroll 0/"),
		ctxDialog:  k("C-b", "q", "wait:Quit pullcept"),
		ctxRename:  k("C-b", ",", "wait:Room · walk"),
		ctxHelp:    k("C-b", "?", "wait:Keys — "),
		ctxNumbers: k("C-b", "#", "wait:(?m) {3,}1 {3,}"),
		ctxChips:   k("paste:"+walkDrop("walk-a.txt"), "wait:\\[walk-a\\.txt", "paste:"+walkDrop("walk-b.txt"), "wait:\\[walk-b\\.txt", "C-x"),
		ctxPicker:  k("C-o", "wait:Attach a file — "),
		ctxNeeds:   k("C-b", "!", "wait:Needs you — "),
	}
	walkRestore := map[keyCtx][]string{
		ctxCandidates: k("Escape"),
		ctxScroll:     k("q", "C-b", "z"),
		ctxDialog:     k("n"),
		ctxRename:     k("Escape"),
		ctxHelp:       k("q"),
		ctxNumbers:    k("Escape"),
		ctxChips:      k("x", "x", "x"),
		ctxPicker:     k("q"),
		ctxNeeds:      k("q"),
	}

	// walkHome ends every step's way back: the input line focused, emptied.
	walkHome := k("C-b", "i", "C-u", "C-k")
	// renameWalk gives the topic on screen its name back, whatever the
	// rename just done left in it (the list may still show the old name).
	renameWalk := k("C-b", ",", "C-u", "text:walk topic", "Enter", "wait:Room · walk topic\\s")
	// paneAnn focuses Ann's pane; stopAnn stops her seat from the
	// participants (x asks first).
	paneAnn := k("C-b", "#", "1", "wait:▶ 1 Ann")
	stopAnn := k(selAnn, "x", "wait:Stop Ann", "y", "wait:● Ann +(stopped|ended|not started|—)")

	return walkTables{reach: walkReach, restore: walkRestore, home: walkHome, expect: map[walkKey]walkExpect{
		// After the prefix key.
		{ctxPrefix, "c"}:         {want: `Room · new topic`, restore: k("C-b", "n", "wait:Room · third", "C-b", "n")},
		{ctxPrefix, "n"}:         {want: `Room · other`, restore: k("C-b", "p")},
		{ctxPrefix, "p"}:         {want: `Room · third`, restore: k("C-b", "n")},
		{ctxPrefix, "o"}:         {want: `▶ Room`},
		{ctxPrefix, "tab"}:       {want: `▶ Room`},
		{ctxPrefix, "O"}:         {want: `▶ Participants`},
		{ctxPrefix, "shift+tab"}: {want: `▶ Participants`},
		{ctxPrefix, "i"}:         {pre: k("C-b", "r", "wait:▶ Room"), want: wantInputFocused, gone: `▶ Room`},
		{ctxPrefix, "w"}:         {want: `▶ Topics`},
		{ctxPrefix, "r"}:         {want: `▶ Room`},
		{ctxPrefix, "a"}:         {want: `▶ Participants`},
		{ctxPrefix, "z"}:         {want: `zoomed \(ctrl\+b z\)`, restore: k("C-b", "z")},
		{ctxPrefix, "space"}:     {want: `layout: even-horizontal`, restore: k("C-b", "Space", "wait:layout: even-vertical", "C-b", "Space", "wait:layout: main-vertical", "C-b", "Space", "wait:layout: tiled")},
		{ctxPrefix, "#"}:         {pre: k("C-b", "#", "1", "wait:▶ 1 Ann", "C-b", "i", "wait:"+wantInputFocused), want: `▶ 2 Bob`, post: k("2")},
		// s, x and R act on the focused pane's seat, or on the participants'
		// selection when they have focus; x asks first (issue 31 point 3).

		{ctxPrefix, "s"}: {pre: append(k("C-b", "a", "wait:▶ Participants", "k", "k", "k", "k", "k"), stopAnn...), want: `● Ann +running`},
		{ctxPrefix, "x"}: {kind: WalkEndsSeat, seat: "Ann", pre: paneAnn, post: k("wait:Stop Ann \\(pane 1\\)\\?", "y")},
		{ctxPrefix, "R"}: {kind: WalkRestartsSeat, seat: "Ann", pre: paneAnn},
		{ctxPrefix, ","}: {post: k("text:2", "Enter"), want: `Room · walk topic2`, restore: renameWalk},
		{ctxPrefix, "&"}: {want: `Delete topic`, restore: k("n")},
		{ctxPrefix, "["}: {pre: k("C-b", "#", "1", "wait:▶ 1 Ann"), want: `scroll mode: Ann`, restore: k("q")},
		{ctxPrefix, "!"}: {want: `Needs you — `, restore: k("q")},
		{ctxPrefix, "t"}: {gone: `Topics ＋`, restore: k("C-b", "t")},
		{ctxPrefix, "P"}: {gone: `Participants`, restore: k("C-b", "P")},
		{ctxPrefix, "?"}: {want: `Keys — `, restore: k("q")},
		{ctxPrefix, "~"}: {want: `Notices, oldest first`, restore: k("q")},
		// The scene's agent_loop is tell: nothing is held; the key says the
		// count (e2e/loop_test.go lets held posts go on).
		{ctxPrefix, "g"}: {want: `nothing held past the loop`},
		{ctxPrefix, "d"}: {kind: WalkEndsClient},
		{ctxPrefix, "q"}: {want: `Quit pullcept`, restore: k("n")},
		// The prefix twice: the prefix's byte typed into the pane (cat's
		// terminal echoes it as ^B).
		{ctxPrefix, "prefix"}: {pre: k("C-b", "#", "1", "wait:▶ 1 Ann"), press: k("C-b", "C-b"), want: `\^B`},
		{ctxPrefix, "esc"}:    {pre: k("C-b", "wait:PREFIX"), press: k("Escape"), gone: `PREFIX`},

		// The input line. Text typed before and after the key shows where the
		// cursor went.
		{ctxInput, "enter"}:         {pre: k("text:walk-sent"), want: `│  walk-sent`},
		{ctxInput, "alt+enter"}:     {pre: k("text:a"), post: k("text:b"), want: `(?m)^› a\s*\n\s+b\s*$`, restore: k("C-u", "BSpace", "C-u")},
		{ctxInput, "shift+enter"}:   {kind: WalkUnchecked, why: "tmux sends shift+enter as a plain Enter (CR) unless extended keys are on, so the key cannot reach pullcept as shift+enter"},
		{ctxInput, "ctrl+j"}:        {pre: k("text:a"), post: k("text:b"), want: `(?m)^› a\s*\n\s+b\s*$`, restore: k("C-u", "BSpace", "C-u")},
		{ctxInput, "left"}:          {pre: k("text:ac"), post: k("text:b"), want: `(?m)^› abc\s*$`},
		{ctxInput, "right"}:         {pre: k("text:ac", "Left", "Left"), post: k("text:b"), want: `(?m)^› abc\s*$`},
		{ctxInput, "up"}:            {want: `(?m)^› walk-sent\s*$`},
		{ctxInput, "down"}:          {pre: k("Up", "wait:(?m)^› walk-sent"), want: wantInputFocused},
		{ctxInput, "home"}:          {pre: k("text:bc"), post: k("text:a"), want: `(?m)^› abc\s*$`},
		{ctxInput, "ctrl+a"}:        {pre: k("text:bc"), post: k("text:a"), want: `(?m)^› abc\s*$`},
		{ctxInput, "end"}:           {pre: k("text:ab", "Home"), post: k("text:c"), want: `(?m)^› abc\s*$`},
		{ctxInput, "ctrl+e"}:        {pre: k("text:ab", "Home"), post: k("text:c"), want: `(?m)^› abc\s*$`},
		{ctxInput, "backspace"}:     {pre: k("text:abx"), want: `(?m)^› ab\s*$`},
		{ctxInput, "ctrl+h"}:        {pre: k("text:abx"), want: `(?m)^› ab\s*$`},
		{ctxInput, "delete"}:        {pre: k("text:abx", "Left"), want: `(?m)^› ab\s*$`},
		{ctxInput, "ctrl+d"}:        {pre: k("text:abx", "Left"), want: `(?m)^› ab\s*$`},
		{ctxInput, "ctrl+u"}:        {pre: k("text:xxkeep", "Left", "Left", "Left", "Left"), want: `(?m)^› keep\s*$`},
		{ctxInput, "ctrl+k"}:        {pre: k("text:keepxx", "Left", "Left"), want: `(?m)^› keep\s*$`},
		{ctxInput, "ctrl+w"}:        {pre: k("text:keep word"), want: `(?m)^› keep\s*$`},
		{ctxInput, "alt+backspace"}: {pre: k("text:keep word"), want: `(?m)^› keep\s*$`},
		{ctxInput, "ctrl+c"}:        {pre: k("text:abc"), want: wantInputFocused},
		// Dan has no seat in walk: Enter keeps "@Dan hi" and offers ctrl+s,
		// which starts Dan's seat (cat never joins: the post waits, and ctrl+c
		// drops it).
		{ctxInput, "ctrl+s"}: {pre: k("text:@Dan hi", "Enter", "wait:Dan is not in the room"), want: `● Dan +running`,
			restore: k("C-c", "C-b", "a", "wait:▶ Participants", "k", "k", "k", "k", "k", "j", "j", "j", "j", "x", "wait:Stop Dan", "y", "wait:● Dan +(stopped|ended|not started|—)")},
		{ctxInput, "ctrl+g"}: {kind: WalkRuns, marker: "visual"},
		{ctxInput, "ctrl+o"}: {want: `Attach a file — `, restore: k("q")},
		{ctxInput, "ctrl+v"}: {want: `\[image\.png`, restore: k("C-x", "x")},
		{ctxInput, "ctrl+x"}: {pre: k("paste:"+walkDrop("walk-a.txt"), "wait:\\[walk-a\\.txt", "paste:"+walkDrop("walk-b.txt"), "wait:\\[walk-b\\.txt"), post: k("x"), gone: `\[walk-b\.txt`, restore: k("x")},
		{ctxInput, "ctrl+z"}: {pre: k("paste:"+walkDrop("walk-a.txt"), "wait:\\[walk-a\\.txt"), want: `(?m)^› .*walk-a\.txt`, gone: `\[walk-a\.txt`},
		{ctxInput, "pgup"}:   {want: `↑ scrolled \d+`, restore: k("NPage", "NPage", "NPage", "NPage", "NPage")},
		{ctxInput, "pgdown"}: {pre: k("PPage", "wait:↑ scrolled"), gone: `↑ scrolled`},
		{ctxInput, "tab"}:    {want: `▶ Room`},
		{ctxInput, "text"}:   {press: k("text:hi there"), want: `(?m)^› hi there\s*$`},

		// The @ candidates: Bob, then Cid; Enter puts the selected one in.
		{ctxCandidates, "up"}:     {pre: k("Down"), post: k("Enter"), want: `(?m)^› @Bob\s*$`},
		{ctxCandidates, "ctrl+p"}: {pre: k("Down"), post: k("Enter"), want: `(?m)^› @Bob\s*$`},
		{ctxCandidates, "down"}:   {post: k("Enter"), want: `(?m)^› @Cid\s*$`},
		{ctxCandidates, "ctrl+n"}: {post: k("Enter"), want: `(?m)^› @Cid\s*$`},
		{ctxCandidates, "enter"}:  {want: `(?m)^› @Bob\s*$`},
		{ctxCandidates, "tab"}:    {want: `(?m)^› @Bob\s*$`},
		{ctxCandidates, "esc"}:    {gone: `@Bob`},

		// The topic list: third, walk, other; Enter opens the selected one.
		{ctxTopics, "up"}:     {post: k("Enter"), want: `Room · third`, restore: k("C-b", "n")},
		{ctxTopics, "k"}:      {post: k("Enter"), want: `Room · third`, restore: k("C-b", "n")},
		{ctxTopics, "down"}:   {post: k("Enter"), want: `Room · other`, restore: k("C-b", "p")},
		{ctxTopics, "j"}:      {post: k("Enter"), want: `Room · other`, restore: k("C-b", "p")},
		{ctxTopics, "enter"}:  {pre: k("j"), want: `Room · other`, restore: k("C-b", "p")},
		{ctxTopics, "+"}:      {want: `Room · new topic`, restore: k("C-b", "n", "wait:Room · third", "C-b", "n")},
		{ctxTopics, "c"}:      {want: `Room · new topic`, restore: k("C-b", "n", "wait:Room · third", "C-b", "n")},
		{ctxTopics, "r"}:      {pre: k("j"), post: k("text:2", "Enter"), want: `other topic2`, restore: k("C-b", "w", "wait:▶ Topics", "j", "r", "C-u", "text:other topic", "Enter", "wait:other topic\\s")},
		{ctxTopics, "d"}:      {want: `Delete topic`, restore: k("n")},
		{ctxTopics, "delete"}: {want: `Delete topic`, restore: k("n")},
		{ctxTopics, "esc"}:    {gone: `▶ Topics`, want: wantInputFocused},
		{ctxTopics, "i"}:      {gone: `▶ Topics`, want: wantInputFocused},
		{ctxTopics, "tab"}:    {want: `▶ Participants`},

		// The room: the post cursor starts on the newest post; g goes to the
		// oldest, "walk topic"; y copies the post under the cursor (the
		// newest posts depend on what the CLIs answered: not checked).

		{ctxRoom, "up"}:     {pre: k("g", "j", "j"), post: k("y"), clip: "scroll-01"},
		{ctxRoom, "k"}:      {pre: k("g", "j", "j"), post: k("y"), clip: "scroll-01"},
		{ctxRoom, "down"}:   {pre: k("g"), post: k("y"), clip: "scroll-01"},
		{ctxRoom, "j"}:      {pre: k("g"), post: k("y"), clip: "scroll-01"},
		{ctxRoom, "pgup"}:   {want: `↑ scrolled \d+`},
		{ctxRoom, "pgdown"}: {pre: k("PPage", "wait:↑ scrolled"), gone: `↑ scrolled`},
		{ctxRoom, "space"}:  {pre: k("PPage", "wait:↑ scrolled"), gone: `↑ scrolled`},
		{ctxRoom, "home"}:   {post: k("y"), clip: "walk topic"},
		{ctxRoom, "g"}:      {post: k("y"), clip: "walk topic"},
		{ctxRoom, "end"}:    {pre: k("g", "wait:↑ scrolled"), gone: `↑ scrolled`},
		{ctxRoom, "G"}:      {pre: k("g", "wait:↑ scrolled"), gone: `↑ scrolled`},
		{ctxRoom, "v"}:      {want: `selecting: `},
		{ctxRoom, "y"}:      {pre: k("g"), clip: "walk topic"},
		{ctxRoom, "enter"}:  {pre: k("g", "v", "wait:selecting: "), clip: "walk topic"},
		{ctxRoom, "e"}:      {pre: k("G"), want: `MCP notices expanded`, restore: k("e", "wait:MCP notices folded")},
		{ctxRoom, "o"}:      {kind: WalkRuns, marker: "open", pre: k("g", "j", "j", "j")},
		{ctxRoom, "esc"}:    {gone: `▶ Room`, want: wantInputFocused},
		{ctxRoom, "i"}:      {gone: `▶ Room`, want: wantInputFocused},
		{ctxRoom, "tab"}:    {want: `▶ 1 Ann`},

		// The participants: Master, Ann, Bob, Cid, Dan, then the MCP section's
		// hook.
		// n opens the selected one's nickname on the status line, which shows
		// where the selection went.
		{ctxParts, "up"}:    {pre: k("j", "j"), post: k("n"), want: `(?i)nickname of ann`, restore: k("Escape")},
		{ctxParts, "k"}:     {pre: k("j", "j"), post: k("n"), want: `(?i)nickname of ann`, restore: k("Escape")},
		{ctxParts, "down"}:  {post: k("n"), want: `(?i)nickname of ann`, restore: k("Escape")},
		{ctxParts, "j"}:     {post: k("n"), want: `(?i)nickname of ann`, restore: k("Escape")},
		{ctxParts, "s"}:     {pre: stopAnn, want: `● Ann +running`},
		{ctxParts, "enter"}: {pre: stopAnn, want: `● Ann +running`},
		{ctxParts, "x"}:     {kind: WalkEndsSeat, seat: "Ann", pre: k(selAnn), post: k("wait:Stop Ann", "y")},
		{ctxParts, "R"}:     {kind: WalkRestartsSeat, seat: "Ann", pre: k(selAnn)},
		// u says what it releases, or why not: Ann (cat) holds none (point 4).
		{ctxParts, "u"}:   {pre: k(selAnn), want: `Ann holds no posts`},
		{ctxParts, "n"}:   {pre: k(selAnn), want: `(?i)nickname of ann`, restore: k("Escape")},
		{ctxParts, "L"}:   {kind: WalkRuns, marker: "pager", pre: k("j", "j", "j", "j", "j")},
		{ctxParts, "E"}:   {kind: WalkRuns, marker: "visual"},
		{ctxParts, "+"}:   {kind: WalkRuns, marker: "visual"},
		{ctxParts, "D"}:   {pre: k("j", "j", "j", "j", "j"), want: `\[y\] delete`, restore: k("n")},
		{ctxParts, "esc"}: {gone: `▶ Participants`, want: wantInputFocused},
		{ctxParts, "i"}:   {gone: `▶ Participants`, want: wantInputFocused},
		{ctxParts, "tab"}: {gone: `▶ Participants`, want: wantInputFocused},

		// A terminal pane: keys go to the program (cat echoes them).
		{ctxPane, "any"}: {press: k("text:typed-into-ann"), want: `typed-into-ann`},

		// Scroll mode in Ann's pane (300 lines of scrollback).
		{ctxScroll, "up"}:     {want: `scroll 1/\d+`},
		{ctxScroll, "k"}:      {want: `scroll 1/\d+`},
		{ctxScroll, "down"}:   {pre: k("k", "k", "wait:scroll 2/"), want: `scroll 1/\d+`},
		{ctxScroll, "j"}:      {pre: k("k", "k", "wait:scroll 2/"), want: `scroll 1/\d+`},
		{ctxScroll, "pgup"}:   {want: `scroll [1-9]\d*/\d+`},
		{ctxScroll, "pgdown"}: {pre: k("PPage", "wait:scroll [1-9]"), want: `scroll 0/\d+`},
		{ctxScroll, "home"}:   {want: `scroll (\d+)/\d+ .*\n(?s:.*)line-1\b`},
		{ctxScroll, "g"}:      {want: `scroll (\d+)/\d+ .*\n(?s:.*)line-1\b`},
		{ctxScroll, "end"}:    {pre: k("k", "wait:scroll 1/"), want: `scroll 0/\d+`},
		{ctxScroll, "G"}:      {pre: k("k", "wait:scroll 1/"), want: `scroll 0/\d+`},
		{ctxScroll, "v"}:      {want: `selecting: `},
		{ctxScroll, "space"}:  {want: `selecting: `},
		{ctxScroll, "y"}:      {pre: k("PPage", "wait:scroll [1-9]", "v", "wait:selecting: "), clip: "line-"},
		{ctxScroll, "enter"}:  {pre: k("PPage", "wait:scroll [1-9]", "v", "wait:selecting: "), clip: "line-"},
		{ctxScroll, "esc"}:    {gone: `scroll \d+/\d+`},
		{ctxScroll, "q"}:      {gone: `scroll \d+/\d+`},

		// The quit dialog (and, for Enter, the delete dialog of "other").
		{ctxDialog, "y"}:     {kind: WalkEndsServer},
		{ctxDialog, "enter"}: {reach: k("C-b", "w", "wait:▶ Topics", "j", "d", "wait:Delete topic"), gone: `other topic`},
		{ctxDialog, "n"}:     {gone: `Quit pullcept`},
		{ctxDialog, "esc"}:   {gone: `Quit pullcept`},
		{ctxDialog, "d"}:     {kind: WalkEndsClient},

		// Renaming the topic on screen.
		{ctxRename, "enter"}: {pre: k("text:3"), want: `Room · walk topic3`, restore: renameWalk},
		{ctxRename, "esc"}:   {pre: k("text:3", "wait:walk topic3"), gone: `walk topic3`},

		// The help.
		{ctxHelp, "up"}:     {pre: k("j", "j", "wait: · 3–"), want: ` · 2–`, restore: k("q")},
		{ctxHelp, "k"}:      {pre: k("j", "j", "wait: · 3–"), want: ` · 2–`, restore: k("q")},
		{ctxHelp, "down"}:   {want: ` · 2–`, restore: k("q")},
		{ctxHelp, "j"}:      {want: ` · 2–`, restore: k("q")},
		{ctxHelp, "pgup"}:   {pre: k("NPage", "wait: · [1-9]\\d+–"), want: ` · 1–`, restore: k("q")},
		{ctxHelp, "pgdown"}: {want: ` · [1-9]\d+–\d+ of`, restore: k("q")},
		{ctxHelp, "space"}:  {want: ` · [1-9]\d+–\d+ of`, restore: k("q")},
		{ctxHelp, "esc"}:    {gone: `Keys — `},
		{ctxHelp, "q"}:      {gone: `Keys — `},
		{ctxHelp, "?"}:      {gone: `Keys — `},
		{ctxHelp, "enter"}:  {gone: `Keys — `},

		// The pane numbers (prefix #): a digit focuses that pane; anything
		// else hides them and then does what it does (2 goes to the input).
		{ctxNumbers, "digit"}: {press: k("2"), want: `▶ 2 Bob`},
		{ctxNumbers, "esc"}:   {post: k("2"), want: `(?m)^› 2\s*$`},
		{ctxNumbers, "any"}:   {press: k("x"), want: `(?m)^› x\s*$`},

		// The attachments above the input line: walk-a.txt, walk-b.txt, the
		// last selected; x removes the selected one.
		{ctxChips, "left"}:      {post: k("x"), gone: `\[walk-a\.txt`},
		{ctxChips, "h"}:         {post: k("x"), gone: `\[walk-a\.txt`},
		{ctxChips, "right"}:     {pre: k("Left"), post: k("x"), gone: `\[walk-b\.txt`},
		{ctxChips, "l"}:         {pre: k("Left"), post: k("x"), gone: `\[walk-b\.txt`},
		{ctxChips, "x"}:         {gone: `\[walk-b\.txt`},
		{ctxChips, "delete"}:    {gone: `\[walk-b\.txt`},
		{ctxChips, "backspace"}: {gone: `\[walk-b\.txt`},
		{ctxChips, "esc"}:       {post: k("text:z"), want: `(?m)^› z\s*$`, restore: k("C-x", "x", "x")},
		{ctxChips, "enter"}:     {post: k("text:z"), want: `(?m)^› z\s*$`, restore: k("C-x", "x", "x")},
		{ctxChips, "i"}:         {post: k("text:z"), want: `(?m)^› z\s*$`, restore: k("C-x", "x", "x")},

		// The file picker, in the folder of walk-a.txt and walk-b.txt.
		// The walk's seats open no prompt and say nothing to the person, so
		// its needs-you list is empty; e2e TestTUINeedsListRealClaude lists
		// and answers a real Claude prompt, tui TestNeedsListKeys moves
		// through items.
		{ctxNeeds, "up"}:    {kind: WalkUnchecked, why: needsWalkEmpty},
		{ctxNeeds, "k"}:     {kind: WalkUnchecked, why: needsWalkEmpty},
		{ctxNeeds, "down"}:  {kind: WalkUnchecked, why: needsWalkEmpty},
		{ctxNeeds, "j"}:     {kind: WalkUnchecked, why: needsWalkEmpty},
		{ctxNeeds, "enter"}: {gone: `Needs you — `},
		{ctxNeeds, "y"}:     {want: `nothing selected to answer with y`},
		{ctxNeeds, "a"}:     {want: `nothing selected to answer with a`},
		{ctxNeeds, "n"}:     {want: `nothing selected to answer with n`},
		{ctxNeeds, "digit"}: {press: k("1"), want: `nothing selected to answer with 1`},
		{ctxNeeds, "h"}:     {want: `Answered in “walk topic”`},
		{ctxNeeds, "esc"}:   {gone: `Needs you — `},
		{ctxNeeds, "q"}:     {gone: `Needs you — `},

		{ctxPicker, "esc"}: {gone: `Attach a file — `},
		{ctxPicker, "q"}:   {gone: `Attach a file — `},
		{ctxPicker, "any"}: {press: k("j"), want: `▶\s+\S+\s+walk-b\.txt`},
	}}
})

// walkTables is the walkthrough's data: how to reach and leave each
// context, the way home, and each key's expected outcome.
type walkTables struct {
	reach, restore map[keyCtx][]string
	home           []string
	expect         map[walkKey]walkExpect
}

// Walkthrough is every key of the binding table with its expected outcome,
// in the table's order, with the prefix ctrl+b (tmux's C-b). A key with no
// entry comes as WalkMissing, which fails the walkthrough.
func Walkthrough() []WalkStep {
	w := walkthrough()
	var out []WalkStep
	for _, c := range ctxOrder {
		for _, b := range bindings {
			if b.ctx != c {
				continue
			}
			for _, key := range b.keys {
				e, ok := w.expect[walkKey{c, key}]
				if !ok {
					e = walkExpect{kind: WalkMissing, why: "no walkthrough entry (tui/walkthrough.go)"}
				}
				s := WalkStep{Context: ctxTitles[c], Key: key, Help: b.help, Reach: w.reach[c], Pre: e.pre, Press: e.press,
					Post: e.post, Kind: e.kind, Want: e.want, Gone: e.gone, Clip: e.clip, Seat: e.seat, Marker: e.marker,
					Restore: append(append(append([]string(nil), e.restore...), w.restore[c]...), w.home...), Why: e.why}
				if e.reach != nil {
					s.Reach = e.reach
				}
				if s.Kind == "" {
					s.Kind = WalkLives
				}
				if s.Press == nil {
					s.Press = []string{tmuxKey(key)}
					if c == ctxPrefix {
						s.Press = []string{"C-b", tmuxKey(key)}
					}
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// tmuxKey is a Bubble Tea key name as tmux's send-keys names it.
func tmuxKey(key string) string {
	names := map[string]string{
		"enter": "Enter", "esc": "Escape", "tab": "Tab", "shift+tab": "BTab", "space": "Space",
		"up": "Up", "down": "Down", "left": "Left", "right": "Right", "home": "Home", "end": "End",
		"pgup": "PPage", "pgdown": "NPage", "backspace": "BSpace", "delete": "DC",
	}
	if n, ok := names[key]; ok {
		return n
	}
	mod := ""
	for {
		switch {
		case strings.HasPrefix(key, "ctrl+"):
			mod, key = mod+"C-", key[len("ctrl+"):]
			continue
		case strings.HasPrefix(key, "alt+"):
			mod, key = mod+"M-", key[len("alt+"):]
			continue
		case strings.HasPrefix(key, "shift+"):
			mod, key = mod+"S-", key[len("shift+"):]
			continue
		}
		break
	}
	if n, ok := names[key]; ok {
		key = n
	}
	return mod + key
}
