package tui

// A fault in the screen ends the screen, never the process it runs in (the
// server, with every session): Bubble Tea's own panic catcher is off (it
// prints on the process's stderr and leaves the program half shut), and
// this guard recovers instead, in the model (Init, Update, View), in every
// command the model returns (Bubble Tea runs them in goroutines of their
// own: a panic there would end the process), in Run's own goroutines and,
// through tea.WithPanicHandler (third_party/bubbletea), in the frame loop
// that renders and writes.
// The first fault quits the program the ordinary way (the terminal is
// given back as on any quit) and Run returns it as a *Fault.

import (
	"fmt"
	"reflect"
	"runtime/debug"
	"sync"

	tea "charm.land/bubbletea/v2"
)

// Fault is a panic recovered in a screen: Run returns it.
type Fault struct {
	Value any    // what was panicked with
	Stack []byte // the panicking goroutine's stack
}

func (f *Fault) Error() string { return fmt.Sprintf("the screen failed: %v", f.Value) }

// faultMsg tells the model's goroutine that a command or helper failed.
type faultMsg struct{}

// guard wraps the model; it is the program's model.
type guard struct {
	m    tea.Model
	quit func() // quits the program (Program.Quit), for Run's goroutines

	mu    sync.Mutex
	fault *Fault
	last  tea.View // the last view drawn, shown again once failed
}

// failed records r (the first fault wins); it reports whether r was the first.
func (g *guard) failed(r any) bool { return g.failedAt(r, debug.Stack()) }

// failedAt is failed with the stack taken where r was recovered (Bubble
// Tea's frame loop: tea.WithPanicHandler).
func (g *guard) failedAt(r any, stack []byte) bool {
	f := &Fault{Value: r, Stack: stack}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.fault != nil {
		return false
	}
	g.fault = f
	return true
}

// Fault is the screen's first fault, nil while none.
func (g *guard) Fault() *Fault {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.fault
}

func (g *guard) Init() (cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			g.failed(r)
			cmd = tea.Quit
		}
	}()
	return g.cmd(g.m.Init())
}

func (g *guard) Update(msg tea.Msg) (m tea.Model, cmd tea.Cmd) {
	if g.Fault() != nil {
		return g, tea.Quit
	}
	defer func() {
		if r := recover(); r != nil {
			g.failed(r)
			m, cmd = g, tea.Quit
		}
	}()
	_, cmd = g.m.Update(msg)
	return g, g.cmd(cmd)
}

func (g *guard) View() (v tea.View) {
	if g.Fault() != nil {
		return g.last
	}
	defer func() {
		if r := recover(); r != nil {
			g.failed(r)
			v = g.last
			go g.quit() // Program.Quit sends: not from the model's goroutine
		}
	}()
	v = g.m.View()
	g.last = v
	return v
}

// cmdType is tea.Cmd's type: a message that is a slice of them (tea.Batch's
// BatchMsg, tea.Sequence's unexported one) carries commands to run.
var cmdType = reflect.TypeFor[tea.Cmd]()

// cmd wraps c so that a panic in it is this screen's fault, as are those in
// the commands its message carries.
func (g *guard) cmd(c tea.Cmd) tea.Cmd {
	if c == nil {
		return nil
	}
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				g.failed(r)
				msg = faultMsg{}
			}
		}()
		msg = c()
		if v := reflect.ValueOf(msg); v.Kind() == reflect.Slice && v.Type().Elem() == cmdType {
			w := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			for i := range v.Len() {
				w.Index(i).Set(reflect.ValueOf(g.cmd(v.Index(i).Interface().(tea.Cmd))))
			}
			msg = w.Interface()
		}
		return msg
	}
}

// protect runs f, a goroutine of Run's; a panic in it is the screen's fault.
func (g *guard) protect(f func()) func() {
	return func() {
		defer func() {
			if r := recover(); r != nil {
				g.failed(r)
				g.quit()
			}
		}()
		f()
	}
}
