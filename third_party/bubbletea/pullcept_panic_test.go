package tea

import (
	"bytes"
	"errors"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// PATCH(pullcept): WithPanicHandler.

type panicOnceWriter struct {
	armed atomic.Bool
	mu    sync.Mutex
	buf   bytes.Buffer
}

func (w *panicOnceWriter) Write(b []byte) (int, error) {
	if w.armed.CompareAndSwap(true, false) {
		panic("test: the terminal failed")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (w *panicOnceWriter) written() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Len()
}

type countModel int

type countMsg struct{}

func (m countModel) Init() Cmd { return nil }
func (m countModel) Update(msg Msg) (Model, Cmd) {
	if _, ok := msg.(countMsg); ok {
		m++
	}
	return m, nil
}
func (m countModel) View() View { return NewView("count " + strconv.Itoa(int(m))) }

// runPanicking runs a program whose frame loop or input loop panics; the
// handler must get the panic and the program end as killed, the process
// going on (without the handler the test binary dies).
func runPanicking(t *testing.T, opts []ProgramOption, after func(p *Program)) {
	t.Helper()
	got := make(chan any, 2)
	opts = append(opts, WithOnDemandFrames(), WithoutCatchPanics(), WithoutSignalHandler(), WithWindowSize(20, 5),
		WithPanicHandler(func(r any, stack []byte) {
			if !bytes.Contains(stack, []byte("panic")) {
				t.Errorf("the stack %s", stack)
			}
			got <- r
		}))
	p := NewProgram(countModel(0), opts...)
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	if after != nil {
		after(p)
	}
	select {
	case r := <-got:
		t.Logf("handled: %v", r)
	case <-time.After(5 * time.Second):
		p.Kill()
		t.Fatal("no panic handled")
	}
	select {
	case err := <-done:
		if !errors.Is(err, ErrProgramKilled) {
			t.Errorf("Run: %v, want killed", err)
		}
	case <-time.After(5 * time.Second):
		buf := make([]byte, 1<<20)
		t.Fatalf("the program did not end after its panic:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

func TestPanicHandlerFrameLoop(t *testing.T) {
	w := &panicOnceWriter{}
	runPanicking(t, []ProgramOption{WithInput(nil), WithOutput(w)}, func(p *Program) {
		deadline := time.Now().Add(5 * time.Second)
		for w.written() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		w.armed.Store(true)
		p.Send(countMsg{})
	})
}
