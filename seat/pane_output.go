package seat

// A pane's output: the PTY read into the emulator, guarded against an
// emulator fault, and the coalesced Dirty signal.

import (
	"fmt"
	"time"
)

// drainAfterExit bounds how long output is still read after the child
// exited, when something else (a grandchild) keeps the terminal open.
const drainAfterExit = 500 * time.Millisecond

func (p *Pane) readLoop() {
	defer func() {
		if p.frameTimer != nil {
			p.frameTimer.Stop()
		}
	}()
	buf := make([]byte, 64*1024)
	write := func(b []byte) { _, _ = p.emu.Write(b) }
	for {
		n, err := p.pty.Read(buf)
		if n > 0 {
			p.lastOut.Store(time.Now().UnixNano())
			p.emuMu.Lock()
			p.written++
			seq0, _, held0 := p.emu.FrameHeld()
			fault := p.feed(write, buf[:n])
			seq, until, held := p.emu.FrameHeld()
			p.emuMu.Unlock()
			// While one synchronized frame stays open the screen shown does
			// not change: no redraw until it ends or its hold runs out.
			if !held0 || !held || seq != seq0 {
				p.markDirty()
			}
			p.watchFrame(held, until)
			if fault != nil && p.onFault != nil {
				p.onFault(fault)
			}
		}
		if err != nil {
			// EIO once the child side is closed is end of file, as are
			// the deadline and a closed file.
			return
		}
	}
}

// feed writes the CLI's output b into the emulator with write. An emulator
// bug reached by some output must not end the server and every session:
// a panic is recovered, the screen reset (RIS, itself guarded) and
// returned as the fault.
func (p *Pane) feed(write func([]byte), b []byte) (fault error) {
	defer func() {
		if r := recover(); r != nil {
			fault = fmt.Errorf("the terminal emulator failed on the output (%v); the pane's screen was reset", r)
			func() {
				defer func() { _ = recover() }()
				write([]byte("\x1bc"))
			}()
		}
	}()
	write(b)
	return nil
}

// watchFrame arms a timer for the end of a held frame's hold, which no
// output may mark: the screen changes then without a write.
func (p *Pane) watchFrame(held bool, until time.Time) {
	if !held {
		if p.frameTimer != nil {
			p.frameTimer.Stop()
		}
		return
	}
	d := time.Until(until)
	if p.frameTimer == nil {
		p.frameTimer = time.AfterFunc(d, p.markDirty)
		return
	}
	p.frameTimer.Reset(d)
}

func notifyChan(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (p *Pane) markDirty() {
	if p.onDirty != nil {
		p.onDirty()
		return
	}
	notifyChan(p.dirty)
}

// LastOutput is when the child last wrote to its terminal; zero if never.
func (p *Pane) LastOutput() time.Time {
	if n := p.lastOut.Load(); n != 0 {
		return time.Unix(0, n)
	}
	return time.Time{}
}

// Dirty is signalled when the screen may have changed: buffered 1 and
// coalesced, never one per read. A host redraws at its own frame rate.
func (p *Pane) Dirty() <-chan struct{} { return p.dirty }
