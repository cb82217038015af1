package tui

// The loop budget on the screen (issue 36): a topic whose agents reached
// the budget of agent posts per post of the person is marked ↻ in the
// topic list, told on the status line ("Lin and Lay have exchanged 12
// posts without you"), rung as config.json's "notify" "agent_loop" says,
// and prefix g lets them go on for another budget (agent_loop hold).

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room/wire"
)

// loopBackend is a Backend that counts agent posts (the app does).
type loopBackend interface {
	Loop(topic string) app.LoopState
	GoOn(topic string) (app.LoopState, bool, error)
}

// takeLoop records a topic's count and tells the person at the budget.
func (m *model) takeLoop(st app.LoopState) {
	if m.noteLoop(st) {
		m.status = m.loopLine(st)
	}
}

// noteLoop records a topic's count; it reports whether it is at the budget.
func (m *model) noteLoop(st app.LoopState) bool {
	if m.loops == nil {
		m.loops = map[string]app.LoopState{}
	}
	if !st.Reached() {
		delete(m.loops, st.Topic)
		return false
	}
	m.loops[st.Topic] = st
	return true
}

// readLoop reads a topic's count from the run (a screen attached later, or
// one that fell behind the events): marked, and on the status line when
// it has nothing else.
func (m *model) readLoop(topic string) {
	if b, ok := m.app.(loopBackend); ok {
		m.noteLoop(b.Loop(topic))
	}
}

// loopLine is the status line's sentence for a topic at the budget.
func (m *model) loopLine(st app.LoopState) string {
	s := wire.OneLine(st.Text()) + " in “" + m.topicName(st.Topic) + "”"
	if st.Held > 0 {
		s += fmt.Sprintf(": %d held; %s g lets them go on, or post", st.Held, m.prefix)
	}
	return s
}

// doGoOn lets the agents of the topic on screen go on for another budget.
func (m *model) doGoOn(keyCtx) tea.Cmd {
	b, ok := m.app.(loopBackend)
	if !ok {
		m.status = "this screen cannot reach the loop budget"
		return nil
	}
	st, released, err := b.GoOn(m.topic)
	switch {
	case err != nil:
		m.status = "go on: " + err.Error()
	case !released:
		mode := "tell"
		if st.Hold {
			mode = "hold"
		}
		m.status = fmt.Sprintf("nothing held past the loop budget in “%s” (agent_loop %s): %d agent posts since your last post, budget %d", m.topicName(m.topic), mode, st.Count, st.Budget)
	default:
		m.takeLoop(st)
		m.status = fmt.Sprintf("the agents in “%s” go on for %d more posts", m.topicName(m.topic), st.Budget)
	}
	return nil
}
