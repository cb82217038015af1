package server

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/charmbracelet/x/vt"
	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"pullcept/attach"
)

// attachTerminal is a terminal client that passes its terminal, a real
// PTY, to the server (attach.FrameTerminal): the screen is read from the
// PTY's master, where keys are typed too; the connection carries only
// Exec and Exit.
func (f *fixture) attachTerminal(cols, rows, pid int) (*screen, *os.File) {
	f.t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		f.t.Fatal(err)
	}
	// The master on Go's poller (creack/pty leaves it blocking), so that
	// closing it ends the test's read of it at once and hangs the
	// terminal up.
	mfd, err := unix.Dup(int(ptmx.Fd()))
	if err == nil {
		err = unix.SetNonblock(mfd, true)
	}
	ptmx.Close()
	if err != nil {
		f.t.Fatal(err)
	}
	master := os.NewFile(uintptr(mfd), "ptmx")
	f.t.Cleanup(func() { master.Close(); tty.Close() })
	if err := pty.Setsize(master, &pty.Winsize{Cols: uint16(cols), Rows: uint16(rows)}); err != nil {
		f.t.Fatal(err)
	}
	// As the client leaves it: raw, with output processing (ONLCR) kept.
	if _, err := term.MakeRaw(tty.Fd()); err != nil {
		f.t.Fatal(err)
	}
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		f.t.Fatal(err)
	}
	tio.Oflag |= unix.OPOST | unix.ONLCR
	if err := unix.IoctlSetTermios(int(tty.Fd()), unix.TCSETS, tio); err != nil {
		f.t.Fatal(err)
	}
	if !attach.OfferTerminal(tty, tty) {
		f.t.Fatal("a PTY is not offered as a terminal")
	}
	conn, uc := f.dial(attach.Hello{Mode: attach.ModeTUI, Cols: cols, Rows: rows, Env: []string{"TERM=xterm-256color"}, PID: pid, TTY: tty.Name(), Terminal: true})
	_ = uc.SetDeadline(time.Time{})
	if !conn.PassesTerminal() {
		f.t.Fatal("the server did not take the terminal")
	}
	if err := conn.SendTerminal(tty, tty); err != nil {
		f.t.Fatal(err)
	}
	s := &screen{t: f.t, f: f, pid: pid, conn: conn, uc: uc, emu: vt.NewEmulator(cols, rows), master: master,
		changed: make(chan struct{}, 1), execs: make(chan attach.Exec, 4), exit: make(chan attach.Exit, 1), gone: make(chan struct{})}
	go func() { _, _ = io.Copy(io.Discard, s.emu) }()
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := master.Read(buf)
			if n > 0 {
				if tap := s.tap.Load(); tap != nil {
					(*tap)(buf[:n])
				}
				s.mu.Lock()
				_, _ = s.emu.Write(buf[:n])
				s.mu.Unlock()
				select {
				case s.changed <- struct{}{}:
				default:
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go s.readFrames()
	return s, tty
}

// openCopies counts this process's descriptors open on the terminal at
// path (the test's own and the server's: the server runs in the test).
func openCopies(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && l == path {
			n++
		}
	}
	return n
}

// A client that passes its terminal: the server reads the keys and draws
// on it itself, nothing crosses the socket as Input or Output; a program
// run on the client's terminal gets the keys typed meanwhile; a detach
// leaves no copy of the terminal in the server.
func TestScreenOnThePassedTerminal(t *testing.T) {
	f := startServer(t, setup{})
	before := -1
	s, tty := f.attachTerminal(100, 30, 5401)
	s.ready()
	s.keys("typed on the terminal")
	s.waitFor("the keys in the input line", func(l []string) bool { return strings.Contains(inputLine(l), "typed on the terminal") })
	if n := s.relayed.Load(); n != 0 {
		t.Errorf("%d Output frames crossed the socket with the terminal passed", n)
	}
	if n := openCopies(t, tty.Name()); n < 3 {
		t.Errorf("%d descriptors on %s: the server holds none of its own", n, tty.Name())
	} else {
		before = n
	}

	// ctrl+g: the editor runs on the client's terminal and reads it; the
	// server does not take the keys typed meanwhile.
	s.keys("\x07")
	x := s.nextExec()
	s.keys("for the editor\r")
	got := make([]byte, 64)
	_ = tty.SetReadDeadline(time.Now().Add(wait))
	n, err := tty.Read(got)
	if err != nil || !strings.Contains(string(got[:n]), "for the editor") {
		t.Fatalf("the program read %q, %v; want the keys typed while it ran", got[:n], err)
	}
	if err := os.WriteFile(x.Paths[0], []byte("from the editor\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := s.conn.WriteJSON(attach.FrameExecDone, attach.ExecDone{}); err != nil {
		t.Fatal(err)
	}
	s.waitFor("the edited text", func(l []string) bool { return strings.Contains(inputLine(l), "from the editor") })
	s.keys("!")
	s.waitFor("a key after the program", func(l []string) bool { return strings.Contains(inputLine(l), "from the editor!") })
	if strings.Contains(inputLine(s.lines()), "for the editor") {
		t.Errorf("the server took the program's keys: %q", inputLine(s.lines()))
	}

	s.detach()
	eventually(t, "the server closes its copies of the terminal", func() bool { return openCopies(t, tty.Name()) <= before-2 })
	if n := s.relayed.Load(); n != 0 {
		t.Errorf("%d Output frames crossed the socket", n)
	}
}

// A passed terminal that hangs up (the SSH connection dropped: its other
// side closed) detaches the screen, and the server keeps no copy of it.
func TestScreenOnAPassedTerminalThatHangsUp(t *testing.T) {
	f := startServer(t, setup{})
	s, tty := f.attachTerminal(80, 24, 5402)
	s.ready()
	before := openCopies(t, tty.Name())
	if before < 3 {
		t.Fatalf("%d descriptors on %s: the server holds none of its own", before, tty.Name())
	}
	s.master.Close()
	select {
	case e := <-s.exit:
		if !e.Detached {
			t.Errorf("a hung-up terminal ended the session with %+v, want a detach", e)
		}
	case <-s.gone:
	case <-time.After(wait):
		t.Fatal("the screen went on after its terminal hung up")
	}
	eventually(t, "the server closes its copies of the terminal", func() bool { return openCopies(t, tty.Name()) <= before-2 })
}
