package app

import "testing"

// A state change reaches every watcher; a pane's output only the watchers
// of output, on their output channel.
func TestWatchersOfStatesAndOutput(t *testing.T) {
	a := &App{watchers: map[chan struct{}]chan struct{}{}}
	states, stop := a.WatchSeats()
	defer stop()
	screenStates, screenOutput, stopScreen := a.WatchSeatsAndOutput()
	defer stopScreen()
	pending := func(c <-chan struct{}) bool {
		select {
		case <-c:
			return true
		default:
			return false
		}
	}
	a.fanOutput()
	if pending(states) || pending(screenStates) || !pending(screenOutput) {
		t.Fatal("a pane's output: want only the screen's output channel signalled")
	}
	a.fanChange()
	if !pending(states) || !pending(screenStates) || pending(screenOutput) {
		t.Fatal("a state change: want both states channels signalled, not output")
	}
	stopScreen()
	a.fanOutput()
	if pending(screenOutput) {
		t.Fatal("a stopped watcher was signalled")
	}
}
