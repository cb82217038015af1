package attach

// Passing the terminal (FrameTerminal): the client hands its terminal's
// descriptors to the server over the Unix socket, so a key and its echo
// cross no relay (tmux's client does the same). A client whose input and
// output are not one terminal relays, as before.

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// OfferTerminal says whether a tui client on in and out can hand them to
// the server: both are terminals, the same one.
func OfferTerminal(in, out *os.File) bool {
	var a, b unix.Stat_t
	if !isTerminal(in) || !isTerminal(out) || unix.Fstat(int(in.Fd()), &a) != nil || unix.Fstat(int(out.Fd()), &b) != nil {
		return false
	}
	return a.Rdev == b.Rdev
}

func isTerminal(f *os.File) bool { return isTerminalFD(int(f.Fd())) }

func isTerminalFD(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	return err == nil
}

// SetNonblock turns the non-blocking flag of f's open file on or off
// without f.Fd(), which would make a file on Go's poller blocking for good.
// A passed terminal's open file is the client's too (and its shell's): the
// server reads it non-blocking, on the poller, as tmux's server does, and
// every side that lets go of it puts it back (ReceiveTerminal).
func SetNonblock(f *os.File, on bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.SetNonblock(int(fd), on) }); err != nil {
		return err
	}
	return serr
}

// PassesTerminal says whether the server took the terminal this client
// offered in its Hello (RunTerminal then sends it).
func (c *Conn) PassesTerminal() bool { return c.terminal }

// errNotUnix refuses to pass the terminal over a connection that is not a
// Unix socket.
var errNotUnix = errors.New("attach: the terminal passes only over a Unix socket")

// SendTerminal sends in and out as one FrameTerminal.
func (c *Conn) SendTerminal(in, out *os.File) error {
	uc, ok := c.rw.(rawConn)
	if !ok {
		return errNotUnix
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return errNotUnix
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	hdr := [5]byte{FrameTerminal}
	rights := unix.UnixRights(int(in.Fd()), int(out.Fd()))
	n, serr := 0, error(nil)
	if err := rc.Write(func(fd uintptr) bool {
		n, serr = unix.SendmsgN(int(fd), hdr[:], rights, nil, 0)
		return serr != unix.EAGAIN && serr != unix.EINTR
	}); err != nil {
		return err
	}
	if serr != nil {
		return os.NewSyscallError("sendmsg", serr)
	}
	if n < len(hdr) { // the descriptors went with the first byte
		_, serr = c.rw.Write(hdr[n:])
	}
	return serr
}

// ReceiveTerminal reads the FrameTerminal that must come next and returns
// the terminal's input and output. The descriptors are checked to be
// terminals; the caller closes them.
func (c *Conn) ReceiveTerminal() (in, out *os.File, err error) {
	uc, ok := c.rw.(rawConn)
	if !ok {
		return nil, nil, errNotUnix
	}
	rc, err := uc.SyscallConn()
	if err != nil {
		return nil, nil, errNotUnix
	}
	if c.r.Buffered() > 0 {
		return nil, nil, errors.New("attach: bytes before the terminal frame: the peer is not a pullcept of this protocol")
	}
	// Exactly the frame's five bytes: what follows is read through c.r.
	var hdr [5]byte
	oob := make([]byte, unix.CmsgSpace(2*4))
	n, oobn, rerr := 0, 0, error(nil)
	if err = rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = unix.Recvmsg(int(fd), hdr[:], oob, unix.MSG_CMSG_CLOEXEC)
		return rerr != unix.EAGAIN && rerr != unix.EINTR
	}); err == nil {
		switch {
		case rerr != nil:
			err = os.NewSyscallError("recvmsg", rerr)
		case n == 0 && oobn == 0:
			err = io.EOF
		}
	}
	var fds []int
	if oobn > 0 {
		msgs, perr := unix.ParseSocketControlMessage(oob[:oobn])
		for _, m := range msgs {
			if got, e := unix.ParseUnixRights(&m); e == nil {
				fds = append(fds, got...)
			}
		}
		if err == nil {
			err = perr
		}
	}
	closeAll := func() {
		for _, fd := range fds {
			_ = unix.Close(fd)
		}
	}
	switch {
	case err != nil:
		closeAll()
		return nil, nil, err
	case n != len(hdr) || hdr[0] != FrameTerminal || hdr[1]|hdr[2]|hdr[3]|hdr[4] != 0:
		closeAll()
		return nil, nil, fmt.Errorf("attach: expected the terminal frame, got %q (%d bytes): the peer is not a pullcept of this protocol", hdr[0], n)
	case len(fds) != 2:
		closeAll()
		return nil, nil, fmt.Errorf("attach: the terminal frame carried %d descriptors, want 2", len(fds))
	}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
	}
	if !isTerminalFD(fds[0]) || !isTerminalFD(fds[1]) {
		closeAll()
		return nil, nil, errors.New("attach: the descriptors passed are not a terminal")
	}
	// The input non-blocking before os.NewFile, which then puts it on Go's
	// poller: a key wakes the screen's reader through the poller instead of
	// a thread blocked in a system call, which the runtime's monitor keeps
	// taking processors from (docs/performance.md "Key echo"). The flag belongs to the open file, which the client and
	// its shell share: the client clears it when it lets go of the
	// terminal or runs a program on it, the server when it closes its copy
	// (SetNonblock). If it cannot be set, the input stays blocking and is
	// read as before.
	_ = unix.SetNonblock(fds[0], true)
	in, out = os.NewFile(uintptr(fds[0]), "terminal-in"), os.NewFile(uintptr(fds[1]), "terminal-out")
	return in, out, nil
}
