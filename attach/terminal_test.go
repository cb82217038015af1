package attach

import (
	"os"
	"strings"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// socketPair is two connected Unix stream sockets, as Dial and Accept make
// them: non-blocking *os.Files on the poller.
func socketPair(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	conn := func(fd int) *os.File {
		f := os.NewFile(uintptr(fd), "sock")
		t.Cleanup(func() { f.Close() })
		return f
	}
	return conn(fds[0]), conn(fds[1])
}

func fdCount(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// A terminal passes as two descriptors on the same terminal; the frames
// after it are read as usual.
func TestTerminalPasses(t *testing.T) {
	a, b := socketPair(t)
	master, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer master.Close()
	defer tty.Close()
	if !OfferTerminal(tty, tty) {
		t.Fatal("a PTY is not offered")
	}
	client, server := NewConn(a), NewConn(b)
	if err := client.SendTerminal(tty, tty); err != nil {
		t.Fatal(err)
	}
	if err := client.Write(FrameInput, []byte("after")); err != nil {
		t.Fatal(err)
	}
	in, out, err := server.ReceiveTerminal()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	defer out.Close()
	if _, err := out.WriteString("drawn by the server"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := master.Read(buf)
	if err != nil || string(buf[:n]) != "drawn by the server" {
		t.Fatalf("the terminal showed %q, %v", buf[:n], err)
	}
	if typ, p, err := server.Read(); err != nil || typ != FrameInput || string(p) != "after" {
		t.Fatalf("the frame after the terminal: %q %q %v", typ, p, err)
	}
}

// What is not a terminal is refused, and its descriptors closed; so is a
// frame that is not the terminal's.
func TestTerminalRefused(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if OfferTerminal(r, w) {
		t.Fatal("a pipe is offered as a terminal")
	}
	a, b := socketPair(t)
	client, server := NewConn(a), NewConn(b)
	before := fdCount(t)
	if err := client.SendTerminal(r, w); err != nil {
		t.Fatal(err)
	}
	if _, _, err := server.ReceiveTerminal(); err == nil || !strings.Contains(err.Error(), "not a terminal") {
		t.Fatalf("a pipe passed as the terminal: %v", err)
	}
	if n := fdCount(t); n != before {
		t.Errorf("%d descriptors open after the refusal, %d before", n, before)
	}

	a, b = socketPair(t)
	client, server = NewConn(a), NewConn(b)
	if err := client.Write(FrameInput, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := server.ReceiveTerminal(); err == nil || !strings.Contains(err.Error(), "expected the terminal frame") {
		t.Fatalf("an Input frame taken as the terminal: %v", err)
	}
}
