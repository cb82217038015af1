package tui

// From a key to an action: where a key is read (keyCtx), the binding table's
// lookup, pastes, and the actions carried out.

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"pullcept/room/wire"
)

// keyFor is the first key the table binds to act in ctx, as shown.
func (m *model) keyFor(ctx keyCtx, act action) string {
	for _, b := range bindings {
		if b.ctx == ctx && b.act == act {
			return keyLabel(ctx, b.keys[0], m.prefix)
		}
	}
	return "?"
}

// keyCtx is where a key goes now.
func (m *model) keyCtx() keyCtx {
	switch {
	case m.help:
		return ctxHelp
	case m.dlg != nil:
		return ctxDialog
	case m.nl.open:
		return ctxNeeds
	case m.renaming != "" || m.nicking != "":
		return ctxRename
	case m.att.picker != nil:
		return ctxPicker
	case m.att.chipMode && m.focus == focusInput && len(m.att.chips) > 0:
		return ctxChips
	}
	switch m.focus {
	case focusPane:
		if m.scrollMode {
			return ctxScroll
		}
		return ctxPane
	case focusTopics:
		return ctxTopics
	case focusRoom:
		return ctxRoom
	case focusParts:
		return ctxParts
	}
	if len(m.input.candidates(m.roster())) > 0 {
		return ctxCandidates
	}
	return ctxInput
}

func (m *model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := msg.String()
	numbers := m.numbers
	if m.armed {
		m.armed = false
		act, ok := lookup(ctxPrefix, k, m.prefix)
		if !ok {
			m.status = fmt.Sprintf("%s %s is not bound (%s ? lists the keys)", m.prefix, k, m.prefix)
			return nil
		}
		return m.do(act, ctxPrefix)
	}
	if m.numbers {
		m.numbers = false
		if n, ok := paneDigit(k); ok {
			m.focusNumber(n)
			return nil
		}
		if act, ok := lookup(ctxNumbers, k, m.prefix); ok && act == actClose {
			return nil
		}
		// Any other key hides the numbers and goes on as usual.
	}
	if k == m.prefix {
		m.armed = true
		return nil
	}
	ctx := m.keyCtx()
	switch ctx {
	case ctxPane:
		if s, ok := m.focusedPane(); ok {
			app := false
			if a, ok := s.Pane.(AppCursorKeys); ok {
				app = a.AppCursorKeys()
			}
			m.writePane(s.Pane, keyBytes(tea.Key(msg), app))
			m.sameView = !numbers
		}
		return nil
	case ctxCandidates:
		if act, ok := lookup(ctxCandidates, k, m.prefix); ok {
			return m.do(act, ctxCandidates)
		}
		ctx = ctxInput
	case ctxPicker:
		return m.pickerKey(msg)
	case ctxNeeds:
		if cmd, ok := m.needsAnswerKey(k); ok {
			return cmd
		}
	}
	if act, ok := lookup(ctx, k, m.prefix); ok {
		return m.do(act, ctx)
	}
	if ctx == ctxRename { // the input line's editing keys work here too
		if act, ok := lookup(ctxInput, k, m.prefix); ok {
			m.edit(&m.renameEd, act)
			return nil
		}
	}
	if (ctx == ctxInput || ctx == ctxRename) && msg.Text != "" && !msg.Mod.Contains(tea.ModCtrl) && !msg.Mod.Contains(tea.ModAlt) {
		m.editing(ctx).Insert(msg.Text)
	}
	return nil
}

func (m *model) editing(ctx keyCtx) *editor {
	if ctx == ctxRename {
		return &m.renameEd
	}
	return &m.input
}

func (m *model) paste(s string) tea.Cmd {
	switch ctx := m.keyCtx(); ctx {
	case ctxPane:
		if sp, ok := m.focusedPane(); ok {
			m.writePane(sp.Pane, pasteBytes(sp.Pane, s))
		}
	case ctxInput, ctxCandidates:
		if !m.pasteAttach(s) {
			m.input.Insert(s)
		}
	case ctxRename:
		m.renameEd.Insert(strings.ReplaceAll(s, "\n", " "))
	}
	return nil
}

// pasteBytes is a paste as a terminal sends it to p's application: wrapped
// in ESC[200~ … ESC[201~ when the application asked for bracketed paste,
// with any end marker inside the text removed so the text cannot end the
// paste early and have the rest taken as typed keys.
func pasteBytes(p Pane, s string) []byte {
	if b, ok := p.(BracketedPaste); !ok || !b.BracketedPaste() {
		return []byte(s)
	}
	const start, end = "\x1b[200~", "\x1b[201~"
	for strings.Contains(s, end) {
		s = strings.ReplaceAll(s, end, "")
	}
	return []byte(start + s + end)
}

// do carries out an action from the table: the context's own keys first
// (contextKeys), else the action's handler (actions, next to bindings).
func (m *model) do(act action, ctx keyCtx) tea.Cmd {
	if cmd, ok := m.doAttach(act, ctx); ok {
		return cmd
	}
	if own := contextKeys[ctx]; own != nil {
		if cmd, done := own(m, act); done {
			return cmd
		}
	}
	if h := actions[act]; h != nil {
		return h(m, ctx)
	}
	return nil
}

// contextKeys are what an action does in one context when it is not the
// action's own handler; a context reports false to leave act to actions.
var contextKeys = map[keyCtx]func(m *model, act action) (tea.Cmd, bool){
	ctxHelp:       (*model).helpKey,
	ctxDialog:     (*model).dialogKey,
	ctxRename:     (*model).renameKey,
	ctxCandidates: (*model).candidatesKey,
	ctxScroll:     (*model).scrollKey,
	ctxTopics:     (*model).topicsKey,
	ctxRoom:       (*model).roomKey,
	ctxParts:      (*model).partsKey,
	ctxInput:      (*model).inputKey,
	ctxNeeds:      (*model).needsKey,
}

func (m *model) helpKey(act action) (tea.Cmd, bool) {
	switch act {
	case actClose:
		m.help = false
	case actUp:
		m.helpOff--
	case actDown:
		m.helpOff++
	case actPgUp:
		m.helpOff -= 10
	case actPgDn:
		m.helpOff += 10
	}
	m.helpOff = max(m.helpOff, 0)
	return nil, true
}

func (m *model) dialogKey(act action) (tea.Cmd, bool) {
	d := m.dlg
	m.dlg = nil
	switch {
	case act == actConfirm && d != nil && d.quit:
		return tea.Quit, true
	case act == actDetach && d != nil && d.quit:
		return m.detach(), true
	case act == actDetach:
		m.dlg = d // d only answers the quit dialog
	case act == actConfirm && d != nil && d.reopen:
		return m.reopen(d.topic), true
	case act == actConfirm && d != nil && d.mcp != "":
		return m.deleteMCP(d.mcp), true
	case act == actConfirm && d != nil && d.release != nil:
		return m.clearUnsent(*d.release), true
	case d != nil && d.release != nil:
		m.status = "kept the keys in " + wire.OneLine(d.release.name) + "'s prompt; its posts stay held"
		return nil, true
	case d != nil && d.mcp != "":
		return nil, true
	case act == actConfirm && d != nil && d.seat != nil:
		return m.runSeatOp(d.seat.act, d.seat.topic, d.seat.account, d.seat.name), true
	case d != nil && d.seat != nil:
		return nil, true
	case act == actConfirm && d != nil:
		m.status = "deleting “" + m.topicName(d.topic) + "”"
		return m.deleteTopic(d.topic), true
	}
	return nil, true
}

func (m *model) renameKey(act action) (tea.Cmd, bool) {
	if m.nicking != "" {
		return m.nicknameKey(act), true
	}
	topic := m.renaming
	switch act {
	case actConfirm:
		m.renaming = ""
		name, b := m.renameEd.String(), m.app
		return func() tea.Msg {
			if err := b.Rename(topic, name); err != nil {
				return noteMsg{err: fmt.Errorf("rename: %w", err), list: true}
			}
			return noteMsg{note: "renamed", list: true}
		}, true
	case actCancel:
		m.renaming = ""
	default:
		m.edit(&m.renameEd, act)
	}
	return nil, true
}

func (m *model) candidatesKey(act action) (tea.Cmd, bool) {
	c := m.input.candidates(m.roster())
	switch act {
	case actUp:
		m.input.sel = (m.input.sel - 1 + len(c)) % len(c)
	case actDown:
		m.input.sel = (m.input.sel + 1) % len(c)
	case actPick:
		m.input.Pick(c[min(m.input.sel, len(c)-1)])
	case actClose:
		m.input.Dismiss()
	}
	return nil, true
}

func (m *model) scrollKey(act action) (tea.Cmd, bool) {
	if s, ok := m.focusedPane(); ok {
		page := max(m.lay.Panes[m.paneIdx].Inner().H-1, 1)
		switch act {
		case actSelect:
			m.startSel(false)
			return nil, true
		case actCopy:
			return m.copySel(), true
		case actCancel:
			if m.sel != nil {
				m.endSel()
				return nil, true
			}
			act = actClose
		}
		if m.sel != nil && m.selMove(act, page) {
			return nil, true
		}
		switch act {
		case actUp:
			m.scrollOff++
		case actDown:
			m.scrollOff--
		case actPgUp:
			m.scrollOff += page
		case actPgDn:
			m.scrollOff -= page
		case actTop:
			m.scrollOff = s.Pane.ScrollbackLen()
		case actBottom:
			m.scrollOff = 0
		case actClose:
			m.scrollMode = false
			m.scrollOff = 0
		}
		m.scrollOff = min(max(m.scrollOff, 0), s.Pane.ScrollbackLen())
		m.panesDirty = true
	}
	return nil, true
}

func (m *model) topicsKey(act action) (tea.Cmd, bool) {
	switch act {
	case actUp:
		m.tsel = max(m.tsel-1, 0)
		return nil, true
	case actDown:
		m.tsel = min(m.tsel+1, max(len(m.topics)-1, 0))
		return nil, true
	case actOpen:
		if m.tsel < len(m.topics) {
			return m.openTopic(m.topics[m.tsel].ID), true
		}
		return nil, true
	case actRename:
		if m.tsel < len(m.topics) {
			m.startRename(m.topics[m.tsel].ID)
		}
		return nil, true
	case actDelete:
		if m.tsel < len(m.topics) {
			m.askDelete(m.topics[m.tsel].ID)
		}
		return nil, true
	}
	return nil, false
}

func (m *model) roomKey(act action) (tea.Cmd, bool) {
	rs := m.cur()
	switch act {
	case actSelect:
		m.startSel(true)
		return nil, true
	case actCopy:
		if m.sel != nil {
			return m.copySel(), true
		}
		return m.copyPost(), true
	case actOpen:
		if m.sel != nil {
			return m.copySel(), true
		}
		m.openSelected()
		return nil, true
	case actCancel:
		if m.sel != nil {
			m.endSel()
			return nil, true
		}
		return actions[actFocusInput](m, ctxRoom), true
	}
	if m.sel != nil && m.selMove(act, m.roomPage()) {
		return nil, true
	}
	if rs != nil && m.cursorKey(rs, act) {
		return nil, true
	}
	switch act {
	case actExpand:
		rs.expandAll = !rs.expandAll
		rs.expanded = map[string]bool{}
		rs.invalidate()
		if _, items, i := m.roomItemsNow(); i >= 0 {
			if rs.cursor != (itemKey{}) {
				rs.cursor = items[i].key // a post now folded: its fold
			}
			m.showItem(items[i])
		}
		// Said too: the notices may all be off screen.
		if rs.expandAll {
			m.status = "MCP notices expanded (e folds them)"
		} else {
			m.status = "MCP notices folded (e expands them)"
		}
		return nil, true
	}
	return nil, false
}

func (m *model) partsKey(act action) (tea.Cmd, bool) {
	if cmd, ok := m.mcpKey(act); ok {
		return cmd, true
	}
	switch act {
	case actUp:
		m.psel = max(m.psel-1, 0)
		return nil, true
	case actDown:
		m.psel = min(m.psel+1, max(len(m.partRows())-1, 0))
		return nil, true
	case actNickname:
		m.startNickname()
		return nil, true
	}
	return nil, false
}

func (m *model) inputKey(act action) (tea.Cmd, bool) {
	rs := m.cur()
	switch act {
	case actSend:
		return m.send(), true
	case actNewline:
		m.input.Insert("\n")
		return nil, true
	case actEditor:
		return m.editInput(), true
	case actClearInput:
		m.clearInput()
		return nil, true
	case actStartAndSend:
		return m.startAndSend(), true
	case actPgUp, actPgDn:
		m.scrollRoom(rs, act)
		return nil, true
	case actUp:
		if !m.historyUp() && !m.input.Up() {
			rs.offset++
		}
		return nil, true
	case actDown:
		if !m.historyDown() && !m.input.Down() {
			rs.offset--
		}
		return nil, true
	case actLeft, actRight, actHome, actEnd, actBackspace, actDeleteChar, actKillBefore, actKillAfter, actKillWord:
		m.edit(&m.input, act)
		return nil, true
	}
	return nil, false
}

// The handlers of the actions shared by the prefix table and the panels
// (actions, in keys.go), where one is more than a call.

func (m *model) doNewTopic(keyCtx) tea.Cmd {
	if err := m.newTopic(); err != nil {
		m.status = err.Error()
	}
	m.focus = focusInput
	return nil
}

func (m *model) doZoom(keyCtx) tea.Cmd {
	switch {
	case m.zoom != zoomNone:
		m.zoom = zoomNone
	case m.focus == focusPane:
		m.zoom = zoomPane + m.paneIdx
	default:
		m.zoom = zoomRoom
		m.focus = focusRoom
	}
	return nil
}

func (m *model) doSeat(act action, ctx keyCtx) tea.Cmd {
	if ctx == ctxPrefix && m.focus == focusParts {
		if cmd, ok := m.mcpKey(act); ok { // the panel's own key would
			return cmd
		}
	}
	return m.seatOp(act)
}

func (m *model) doDelete(keyCtx) tea.Cmd {
	if !m.listed(m.topic) {
		m.status = "this topic is not saved yet: there is nothing to delete"
		return nil
	}
	m.askDelete(m.topic)
	return nil
}

func (m *model) doPaneNumbers(keyCtx) tea.Cmd {
	if m.help || m.dlg != nil || m.renaming != "" || m.nl.open {
		return nil // the digit belongs to what is open
	}
	if len(m.panes()) == 0 {
		m.status = "no terminal panes here to number"
		return nil
	}
	m.numbers = true
	m.numbersSeq++
	return m.later(paneNumbersTime, numbersOffMsg{seq: m.numbersSeq})
}

func (m *model) doScrollMode(keyCtx) tea.Cmd {
	if s, ok := m.focusedPane(); ok {
		m.scrollMode = true
		m.scrollOff = 0
		m.panesDirty = true
		m.status = fmt.Sprintf("scroll mode: %s (%d lines of scrollback); q leaves", wire.OneLine(s.Name), s.Pane.ScrollbackLen())
	} else {
		m.status = "scroll mode needs a focused terminal pane (" + m.prefix + " o)"
	}
	return nil
}

func (m *model) doToggleTopics(keyCtx) tea.Cmd {
	m.showTopics = !m.showTopics
	if !m.showTopics && m.focus == focusTopics {
		m.focus = focusInput
	}
	return nil
}

func (m *model) doToggleParts(keyCtx) tea.Cmd {
	m.showParts = !m.showParts
	if !m.showParts && m.focus == focusParts {
		m.focus = focusInput
	}
	return nil
}

func (m *model) doSendPrefix(keyCtx) tea.Cmd {
	if s, ok := m.focusedPane(); ok {
		m.writePane(s.Pane, prefixBytes(m.prefix))
	}
	return nil
}

// prefixBytes is what the prefix key itself sends to a terminal.
func prefixBytes(prefix string) []byte {
	if rest, ok := strings.CutPrefix(prefix, "ctrl+"); ok && len(rest) == 1 {
		if b, ok := ctrlByte(rune(rest[0])); ok {
			return []byte{b}
		}
	}
	return []byte(prefix)
}

func (m *model) edit(e *editor, act action) {
	switch act {
	case actLeft:
		e.Left()
	case actRight:
		e.Right()
	case actHome:
		e.Home()
	case actEnd:
		e.End()
	case actBackspace:
		e.Backspace()
	case actDeleteChar:
		e.Delete()
	case actKillBefore:
		e.KillBefore()
	case actKillAfter:
		e.KillAfter()
	case actKillWord:
		e.KillWord()
	}
}
