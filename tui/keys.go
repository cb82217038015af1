package tui

// The one binding table. Update dispatches through it, the help overlay
// lists it, and README.md's key section is generated from it (a test keeps
// the two equal).

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// keyCtx is where a key is read.
type keyCtx int

const (
	ctxPrefix     keyCtx = iota // after the prefix key
	ctxInput                    // the input line has focus
	ctxCandidates               // the @ candidates are open (checked before ctxInput)
	ctxTopics                   // the topic list has focus
	ctxRoom                     // the room pane has focus
	ctxParts                    // the participants have focus
	ctxPane                     // a terminal pane has focus
	ctxScroll                   // a pane in scroll mode
	ctxDialog                   // a confirmation dialog is open
	ctxRename                   // renaming a topic inline
	ctxHelp                     // the help overlay is open
	ctxNumbers                  // the pane numbers are shown (prefix #)
	ctxChips                    // the attachment chips above the input line are selected (attach.go)
	ctxPicker                   // the file picker is open (attach.go)
	ctxNeeds                    // the needs-you list is open (prefix !)
)

var ctxTitles = map[keyCtx]string{
	ctxPrefix:     "After the prefix key (anywhere)",
	ctxInput:      "Input line",
	ctxCandidates: "@ candidates (open above the input line)",
	ctxTopics:     "Topic list",
	ctxRoom:       "Room pane",
	ctxParts:      "Participants",
	ctxPane:       "Terminal pane",
	ctxScroll:     "Terminal pane in scroll mode",
	ctxDialog:     "Confirmation dialog",
	ctxRename:     "Renaming a topic",
	ctxHelp:       "Help overlay",
	ctxNumbers:    "Pane numbers shown (prefix #)",
	ctxChips:      "Attachments above the input line (ctrl+x)",
	ctxPicker:     "File picker (ctrl+o)",
	ctxNeeds:      "Needs-you list (prefix !)",
}

var ctxOrder = []keyCtx{ctxPrefix, ctxInput, ctxCandidates, ctxTopics, ctxRoom, ctxParts, ctxPane, ctxScroll, ctxDialog, ctxRename, ctxHelp, ctxNumbers, ctxChips, ctxPicker, ctxNeeds}

type action int

const (
	actNone action = iota
	actNewTopic
	actNextTopic
	actPrevTopic
	actFocusNext
	actFocusPrev
	actFocusInput
	actFocusTopics
	actFocusRoom
	actFocusParts
	actZoom
	actStartSeat
	actStopSeat
	actRestartSeat
	actReleaseSeat
	actRename
	actNickname
	actDelete
	actHelp
	actNotices
	actQuit
	actNextLayout
	actPaneNumbers
	actDetach
	actEditor
	actScrollMode
	actToggleTopics
	actToggleParts
	actSendPrefix
	actSend
	actNewline
	actUp
	actDown
	actLeft
	actRight
	actHome
	actEnd
	actPgUp
	actPgDn
	actTop
	actBottom
	actBackspace
	actDeleteChar
	actKillBefore
	actKillAfter
	actKillWord
	actPick
	actClose
	actOpen
	actExpand
	actConfirm
	actCancel
	actTypeToPane
	actText
	actSelect
	actCopy
	actAttachFile
	actAttachImage
	actChips
	actUnpaste
	actOpenAttachment
	actRemoveChip
	actMCPLog
	actMCPConfig
	actMCPNew
	actMCPDelete
	actClearInput
	actStartAndSend
	actGoOn
	actNeeds
	actAnswer
)

// binding is one row of the table. Keys are Bubble Tea key strings
// (tea.Key.String()); "prefix" in help output stands for the prefix key.
type binding struct {
	ctx  keyCtx
	keys []string
	act  action
	help string
}

var bindings = []binding{
	{ctxPrefix, []string{"c"}, actNewTopic, "new topic"},
	{ctxPrefix, []string{"n"}, actNextTopic, "next topic in the list"},
	{ctxPrefix, []string{"p"}, actPrevTopic, "previous topic in the list"},
	{ctxPrefix, []string{"o", "tab"}, actFocusNext, "focus the next area (input, room, panes (hidden ones too: focused, one comes on screen), topics, participants)"},
	{ctxPrefix, []string{"O", "shift+tab"}, actFocusPrev, "focus the previous area"},
	{ctxPrefix, []string{"i"}, actFocusInput, "focus the input line"},
	{ctxPrefix, []string{"w"}, actFocusTopics, "focus the topic list"},
	{ctxPrefix, []string{"r"}, actFocusRoom, "focus the room pane"},
	{ctxPrefix, []string{"a"}, actFocusParts, "focus the participants"},
	{ctxPrefix, []string{"z"}, actZoom, "zoom the focused pane or the room (again: unzoom)"},
	{ctxPrefix, []string{"space"}, actNextLayout, "next pane layout: tiled, even-horizontal, even-vertical, main-vertical (the status line names it)"},
	{ctxPrefix, []string{"#"}, actPaneNumbers, "show the pane numbers for a moment (like tmux's display-panes); a digit then focuses that pane"},
	{ctxPrefix, []string{"s"}, actStartSeat, "start the seat of the focused terminal pane (an ended one: again), or of the participant selected when the participants have focus"},
	{ctxPrefix, []string{"x"}, actStopSeat, "stop the focused pane's seat, or the selected participant's (asks first, naming it; an ended pane closes at once); elsewhere the status line says to focus one"},
	{ctxPrefix, []string{"R"}, actRestartSeat, "restart the focused pane's seat, or the selected participant's (asks first while a turn runs)"},
	{ctxPrefix, []string{","}, actRename, "rename the topic on screen"},
	{ctxPrefix, []string{"&"}, actDelete, "delete the topic on screen (asks first)"},
	{ctxPrefix, []string{"["}, actScrollMode, "scroll mode for the focused terminal pane"},
	{ctxPrefix, []string{"t"}, actToggleTopics, "show or hide the topic list"},
	{ctxPrefix, []string{"P"}, actToggleParts, "show or hide the participants"},
	{ctxPrefix, []string{"?"}, actHelp, "this help"},
	{ctxPrefix, []string{"g"}, actGoOn, "let the topic's agents go on for another budget of agent posts (\"agent_loop\": \"hold\"): the posts held past it are typed, in order; else says the count"},
	{ctxPrefix, []string{"!"}, actNeeds, "the needs-you list: every topic's prompts (tool and input), limits, errors, unanswered turns, posts to you not yet seen, newest first; Enter jumps, one key answers"},
	{ctxPrefix, []string{"~"}, actNotices, "the notices shown on the status line, whole (like tmux's show-messages)"},
	{ctxPrefix, []string{"d"}, actDetach, "detach: this terminal goes, the sessions keep running (pullcept, pullcept attach or pullcept a attaches again)"},
	{ctxPrefix, []string{"q"}, actQuit, "quit: stop the sessions and the server (asks first; offers detach)"},
	{ctxPrefix, []string{"prefix"}, actSendPrefix, "send the prefix key itself to the focused pane"},
	{ctxPrefix, []string{"esc"}, actCancel, "cancel the prefix"},

	{ctxInput, []string{"enter"}, actSend, "send to the topic on screen"},
	{ctxInput, []string{"alt+enter", "shift+enter", "ctrl+j"}, actNewline, "new line"},
	{ctxInput, []string{"left"}, actLeft, "cursor left"},
	{ctxInput, []string{"right"}, actRight, "cursor right"},
	{ctxInput, []string{"up"}, actUp, "in an empty line (or on a recalled post's first line): recall the post sent before from this screen (any topic, the last 100); else cursor up a line"},
	{ctxInput, []string{"down"}, actDown, "on a recalled post's last line: the one sent after it, then an empty line again; else cursor down a line"},
	{ctxInput, []string{"home", "ctrl+a"}, actHome, "start of line"},
	{ctxInput, []string{"end", "ctrl+e"}, actEnd, "end of line"},
	{ctxInput, []string{"backspace", "ctrl+h"}, actBackspace, "delete before the cursor"},
	{ctxInput, []string{"delete", "ctrl+d"}, actDeleteChar, "delete under the cursor"},
	{ctxInput, []string{"ctrl+u"}, actKillBefore, "delete to the start of the line"},
	{ctxInput, []string{"ctrl+k"}, actKillAfter, "delete to the end of the line"},
	{ctxInput, []string{"ctrl+w", "alt+backspace"}, actKillWord, "delete the word before the cursor"},
	{ctxInput, []string{"ctrl+c"}, actClearInput, "clear the input line; on an empty line: say how to detach (prefix d) or quit (prefix q)"},
	{ctxInput, []string{"ctrl+s"}, actStartAndSend, "the post @-names an account not in the room (Enter said so): start its seat here and send the post when it joins"},
	{ctxInput, []string{"ctrl+g"}, actEditor, "edit the input in $VISUAL or $EDITOR (vi), on your terminal"},
	{ctxInput, []string{"ctrl+o"}, actAttachFile, "attach a file: opens the file picker (a pasted or dropped path attaches too)"},
	{ctxInput, []string{"ctrl+v"}, actAttachImage, "attach the clipboard's image as image.png (read on your terminal's machine)"},
	{ctxInput, []string{"ctrl+x"}, actChips, "select the attachments above the input line (to remove one)"},
	{ctxInput, []string{"ctrl+z"}, actUnpaste, "right after a paste became attachments: keep it as text instead"},
	{ctxInput, []string{"pgup"}, actPgUp, "scroll the room up"},
	{ctxInput, []string{"pgdown"}, actPgDn, "scroll the room down"},
	{ctxInput, []string{"tab"}, actFocusNext, "focus the next area"},
	{ctxInput, []string{"text"}, actText, "typed into the input; @ or ＠ opens candidates"},

	{ctxCandidates, []string{"up", "ctrl+p"}, actUp, "previous candidate"},
	{ctxCandidates, []string{"down", "ctrl+n"}, actDown, "next candidate"},
	{ctxCandidates, []string{"enter", "tab"}, actPick, "put @name in the input"},
	{ctxCandidates, []string{"esc"}, actClose, "close (this @ stays closed)"},

	{ctxTopics, []string{"up", "k"}, actUp, "previous topic"},
	{ctxTopics, []string{"down", "j"}, actDown, "next topic"},
	{ctxTopics, []string{"enter"}, actOpen, "open the selected topic"},
	{ctxTopics, []string{"+", "c"}, actNewTopic, "new topic"},
	{ctxTopics, []string{"r"}, actRename, "rename the selected topic"},
	{ctxTopics, []string{"d", "delete"}, actDelete, "delete the selected topic (asks first)"},
	{ctxTopics, []string{"esc", "i"}, actFocusInput, "back to the input line"},
	{ctxTopics, []string{"tab"}, actFocusNext, "focus the next area"},

	{ctxRoom, []string{"up", "k"}, actUp, "post cursor to the post before (a closed fold is one item, an open one its header and each post); selecting: move the selection's end"},
	{ctxRoom, []string{"down", "j"}, actDown, "post cursor to the post after; selecting: move the selection's end"},
	{ctxRoom, []string{"pgup"}, actPgUp, "scroll up a page (older posts load at the top); the cursor stays on a post shown"},
	{ctxRoom, []string{"pgdown", "space"}, actPgDn, "scroll down a page; the cursor stays on a post shown"},
	{ctxRoom, []string{"home", "g"}, actTop, "oldest loaded post"},
	{ctxRoom, []string{"end", "G"}, actBottom, "newest post (the cursor follows new posts from there)"},
	{ctxRoom, []string{"v"}, actSelect, "select lines: starts at the selected post's last line (again: starts over at the selection's end)"},
	{ctxRoom, []string{"y"}, actCopy, "copy the selected post (speaker line and body; a fold: its posts) as plain text to the clipboard (OSC 52); selecting: the selected lines"},
	{ctxRoom, []string{"enter"}, actOpen, "open or close the selected fold; selecting: copy the selected lines"},
	{ctxRoom, []string{"e"}, actExpand, "expand or fold all the MCP notices"},
	{ctxRoom, []string{"o"}, actOpenAttachment, "open the selected post's attachments on your terminal ($PULLCEPT_OPEN, else the desktop's opener, else $PAGER)"},
	{ctxRoom, []string{"esc"}, actCancel, "cancel the selection; without one, back to the input line"},
	{ctxRoom, []string{"i"}, actFocusInput, "back to the input line"},
	{ctxRoom, []string{"tab"}, actFocusNext, "focus the next area"},

	{ctxParts, []string{"up", "k"}, actUp, "previous participant"},
	{ctxParts, []string{"down", "j"}, actDown, "next participant"},
	{ctxParts, []string{"s", "enter"}, actStartSeat, "start the seat in this topic"},
	{ctxParts, []string{"x"}, actStopSeat, "stop the seat (asks first); an ended seat: close its pane"},
	{ctxParts, []string{"R"}, actRestartSeat, "restart the seat (asks first while a turn runs); an MCP server: restart it from the file (stop it when it left the file)"},
	{ctxParts, []string{"u"}, actReleaseSeat, "release the posts the seat holds, or say why not (an open prompt: answer it in the pane; unsent keys: asks, then clears them)"},
	{ctxParts, []string{"n"}, actNickname, "rename the account: its nickname, what the room calls it (empty: its name)"},
	{ctxParts, []string{"L"}, actMCPLog, "MCP server: its log (stderr and pullcept's lines, the last 1000) in $PAGER, on your terminal"},
	{ctxParts, []string{"E"}, actMCPConfig, "MCP servers: edit mcp-servers.json in $VISUAL or $EDITOR; R on a server applies it"},
	{ctxParts, []string{"+"}, actMCPNew, "new MCP server: its name, command, args and env in $EDITOR (writes only its entry, then its account, then starts it)"},
	{ctxParts, []string{"D"}, actMCPDelete, "delete the MCP server (asks first): its entry, the server, then its account"},
	{ctxParts, []string{"esc", "i"}, actFocusInput, "back to the input line"},
	{ctxParts, []string{"tab"}, actFocusNext, "focus the next area"},

	{ctxPane, []string{"any"}, actTypeToPane, "every key but the prefix is typed into the terminal (arrows, F-keys, ctrl, alt, paste)"},

	{ctxScroll, []string{"up", "k"}, actUp, "scroll up a line (selecting: move the selection's end)"},
	{ctxScroll, []string{"down", "j"}, actDown, "scroll down a line (selecting: move the selection's end)"},
	{ctxScroll, []string{"pgup"}, actPgUp, "scroll up a page"},
	{ctxScroll, []string{"pgdown"}, actPgDn, "scroll down a page"},
	{ctxScroll, []string{"home", "g"}, actTop, "top of the scrollback"},
	{ctxScroll, []string{"end", "G"}, actBottom, "bottom"},
	{ctxScroll, []string{"v", "space"}, actSelect, "select lines: starts at the application's cursor line (scrolled: the bottom line shown); again: starts over at the selection's end"},
	{ctxScroll, []string{"y", "enter"}, actCopy, "copy the selected lines (plain text) to the clipboard (OSC 52) and end the selection"},
	{ctxScroll, []string{"esc"}, actCancel, "cancel the selection; without one, leave scroll mode"},
	{ctxScroll, []string{"q"}, actClose, "leave scroll mode"},

	{ctxDialog, []string{"y", "enter"}, actConfirm, "confirm"},
	{ctxDialog, []string{"n", "esc"}, actCancel, "cancel"},
	{ctxDialog, []string{"d"}, actDetach, "detach instead (when quitting)"},

	{ctxRename, []string{"enter"}, actConfirm, "save the name"},
	{ctxRename, []string{"esc"}, actCancel, "cancel"},

	{ctxHelp, []string{"up", "k"}, actUp, "scroll up"},
	{ctxHelp, []string{"down", "j"}, actDown, "scroll down"},
	{ctxHelp, []string{"pgup"}, actPgUp, "scroll up a page"},
	{ctxHelp, []string{"pgdown", "space"}, actPgDn, "scroll down a page"},
	{ctxHelp, []string{"esc", "q", "?", "enter"}, actClose, "close the help"},

	{ctxNumbers, []string{"digit"}, actPick, "focus that pane: 1–9, 0 for the tenth (a hidden pane comes on screen)"},
	{ctxNumbers, []string{"esc"}, actClose, "hide the numbers"},
	{ctxNumbers, []string{"any"}, actNone, "any other key hides the numbers and does what it does"},

	{ctxChips, []string{"left", "h"}, actLeft, "previous attachment"},
	{ctxChips, []string{"right", "l"}, actRight, "next attachment"},
	{ctxChips, []string{"x", "delete", "backspace"}, actRemoveChip, "remove the selected attachment (nothing was saved yet)"},
	{ctxChips, []string{"esc", "enter", "i"}, actClose, "back to the input line"},

	{ctxNeeds, []string{"up", "k"}, actUp, "previous item"},
	{ctxNeeds, []string{"down", "j"}, actDown, "next item"},
	{ctxNeeds, []string{"enter"}, actOpen, "jump to the item: its topic on screen, its seat's pane focused (a post to you: the room)"},
	{ctxNeeds, []string{"y", "a", "n", "digit"}, actAnswer, "answer the selected prompt as its line shows: y yes, a always (don't ask again), n no, 1 … 9 a question's choice (through the CLI's hook, else typed into its pane only if the same prompt still waits)"},
	{ctxNeeds, []string{"h"}, actExpand, "the selected item's topic's answered items: who answered what, from which screen, when (again: the open items)"},
	{ctxNeeds, []string{"esc", "q"}, actClose, "close the list"},

	{ctxPicker, []string{"esc", "q"}, actClose, "close the picker (nothing attached)"},
	{ctxPicker, []string{"any"}, actNone, "↑/↓ (k/j) move, PgUp/PgDn, g/G first/last; → (l) or Enter opens a folder, Enter on a file attaches it; ← (h) or Backspace the folder above"},
}

// actions are what each action of the table does wherever the context has
// no key of its own for it (contextKeys, dispatch.go): the prefix table's
// actions, and the panels' keys that are the same. An action missing here
// does nothing there.
var actions = map[action]func(m *model, ctx keyCtx) tea.Cmd{
	actNewTopic:     (*model).doNewTopic,
	actNextTopic:    func(m *model, _ keyCtx) tea.Cmd { return m.moveTopic(1) },
	actPrevTopic:    func(m *model, _ keyCtx) tea.Cmd { return m.moveTopic(-1) },
	actFocusNext:    func(m *model, _ keyCtx) tea.Cmd { m.cycleFocus(1); return nil },
	actFocusPrev:    func(m *model, _ keyCtx) tea.Cmd { m.cycleFocus(-1); return nil },
	actFocusInput:   func(m *model, _ keyCtx) tea.Cmd { m.setFocus(focusInput, 0); return nil },
	actFocusTopics:  func(m *model, _ keyCtx) tea.Cmd { m.showTopics = true; m.setFocus(focusTopics, 0); return nil },
	actFocusRoom:    func(m *model, _ keyCtx) tea.Cmd { m.setFocus(focusRoom, 0); return nil },
	actFocusParts:   func(m *model, _ keyCtx) tea.Cmd { m.showParts = true; m.setFocus(focusParts, 0); return nil },
	actZoom:         (*model).doZoom,
	actStartSeat:    func(m *model, ctx keyCtx) tea.Cmd { return m.doSeat(actStartSeat, ctx) },
	actStopSeat:     func(m *model, ctx keyCtx) tea.Cmd { return m.doSeat(actStopSeat, ctx) },
	actRestartSeat:  func(m *model, ctx keyCtx) tea.Cmd { return m.doSeat(actRestartSeat, ctx) },
	actReleaseSeat:  func(m *model, ctx keyCtx) tea.Cmd { return m.doSeat(actReleaseSeat, ctx) },
	actRename:       func(m *model, _ keyCtx) tea.Cmd { m.startRename(m.topic); return nil },
	actDelete:       (*model).doDelete,
	actHelp:         func(m *model, _ keyCtx) tea.Cmd { m.help, m.helpNotices, m.helpOff = true, false, 0; return nil },
	actNeeds:        func(m *model, _ keyCtx) tea.Cmd { return m.openNeeds() },
	actNotices:      func(m *model, _ keyCtx) tea.Cmd { m.help, m.helpNotices, m.helpOff = true, true, 1<<30; return nil }, // the newest in view: the overlay clamps it to the last page
	actNextLayout:   func(m *model, _ keyCtx) tea.Cmd { m.nextLayout(); return nil },
	actPaneNumbers:  (*model).doPaneNumbers,
	actQuit:         func(m *model, _ keyCtx) tea.Cmd { return m.askQuit() },
	actDetach:       func(m *model, _ keyCtx) tea.Cmd { return m.detach() },
	actScrollMode:   (*model).doScrollMode,
	actToggleTopics: (*model).doToggleTopics,
	actToggleParts:  (*model).doToggleParts,
	actSendPrefix:   (*model).doSendPrefix,
	actGoOn:         (*model).doGoOn,
}

// pseudoKey marks table entries that describe a class of keys, not a key.
var pseudoKey = map[string]bool{"text": true, "any": true, "prefix": true, "digit": true}

// lookup finds the action of key in ctx. In ctxPrefix the key equal to the
// prefix itself is actSendPrefix.
func lookup(ctx keyCtx, key, prefix string) (action, bool) {
	if ctx == ctxPrefix && key == prefix {
		return actSendPrefix, true
	}
	for _, b := range bindings {
		if b.ctx != ctx {
			continue
		}
		for _, k := range b.keys {
			if k == key && !pseudoKey[k] {
				return b.act, true
			}
		}
	}
	return actNone, false
}

// keyLabel is how a key is shown to the person.
func keyLabel(ctx keyCtx, k, prefix string) string {
	if k == "prefix" && ctx == ctxPrefix {
		return prefix + " " + prefix // the prefix twice sends it on
	}
	if k == "prefix" {
		return prefix
	}
	if k == "digit" {
		return "1 … 9, 0"
	}
	if ctx == ctxPrefix {
		return prefix + " " + k
	}
	return k
}

// helpRow is one row of the help: a context's title (key empty, title
// set), a binding (key and what it does), or a line of prose (desc only).
type helpRow struct {
	title, key, desc string
}

// helpRows is the help's content, from the table.
func helpRows(prefix string) []helpRow {
	var out []helpRow
	for _, c := range ctxOrder {
		out = append(out, helpRow{title: ctxTitles[c] + ":"})
		for _, b := range bindings {
			if b.ctx != c {
				continue
			}
			labels := make([]string, len(b.keys))
			for i, k := range b.keys {
				labels[i] = keyLabel(c, k, prefix)
			}
			out = append(out, helpRow{key: strings.Join(labels, ", "), desc: b.help})
		}
		out = append(out, helpRow{})
	}
	return append(out, helpRow{desc: "Mouse: click focuses an area (a topic opens it, a room post is selected, an MCP fold opens or closes); the wheel scrolls; " +
		"a drag over a pane's or the room's lines selects them, and the release copies them (OSC 52)."})
}

// helpKeyMax is the widest the help's key column grows, in cells.
const helpKeyMax = 24

// helpLines is the help overlay's text at w cells: the descriptions in one
// column (measured in cells, so "↑/↓" and wide names line up), wrapped
// under themselves when long; a key label wider than the column is cut
// with ….
func helpLines(prefix string, w ...int) []string {
	width := 1 << 20
	if len(w) > 0 {
		width = max(w[0], 20)
	}
	rows := helpRows(prefix)
	kw := 0
	for _, r := range rows {
		kw = max(kw, ansi.StringWidth(r.key))
	}
	kw = min(kw, helpKeyMax, width/3)
	indent := strings.Repeat(" ", 2+kw+1)
	dw := max(width-len(indent), 10)
	var out []string
	for _, r := range rows {
		switch {
		case r.title != "":
			out = append(out, ellipsis(r.title, width))
		case r.key == "" && r.desc == "":
			out = append(out, "")
		case r.key == "":
			for i, l := range wrapText(r.desc, max(width-2, 10)) {
				if i > 0 {
					l = "  " + l
				}
				out = append(out, l)
			}
		default:
			k := fit(ellipsis(r.key, kw), kw)
			for i, l := range wrapText(r.desc, dw) {
				if i == 0 {
					out = append(out, "  "+k+" "+l)
				} else {
					out = append(out, indent+l)
				}
			}
		}
	}
	return out
}

// bindingsMarkdown is README.md's key section.
func bindingsMarkdown(prefix string) string {
	var b strings.Builder
	for _, c := range ctxOrder {
		fmt.Fprintf(&b, "### %s\n\n| keys | action |\n| --- | --- |\n", ctxTitles[c])
		for _, bd := range bindings {
			if bd.ctx != c {
				continue
			}
			labels := make([]string, len(bd.keys))
			for i, k := range bd.keys {
				labels[i] = "`" + keyLabel(c, k, prefix) + "`"
			}
			fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(labels, ", "), bd.help)
		}
		b.WriteString("\n")
	}
	return b.String()
}
