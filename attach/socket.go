package attach

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// SocketName is the server's socket in the runtime folder.
const SocketName = "server.sock"

// maxSocketPath is below the kernel's sun_path (108 bytes with its NUL).
const maxSocketPath = 100

// SocketPath is where the server of the home whose runtime folder is
// runtimeDir listens. A path too long for a Unix socket moves to a 0700
// folder of this user under the temp folder, named by a hash of the
// runtime folder (one home, one path). The hash is FNV-1a: a name, not a
// secret (the folder is the user's, 0700).
func SocketPath(runtimeDir string) string {
	p := filepath.Join(runtimeDir, SocketName)
	if len(p) <= maxSocketPath {
		return p
	}
	h := fnv.New64a()
	h.Write([]byte(runtimeDir))
	return filepath.Join(os.TempDir(), "pullcept-"+strconv.Itoa(os.Getuid()), "s-"+hex.EncodeToString(h.Sum(nil))+".sock")
}

// The socket's both ends are system calls on Go's poller (an *os.File of a
// non-blocking socket), not package net: written when the commands'
// start-up kept net out (issue 13); the one binary links net now, so this
// saves no start-up any more. An *os.File of a socket reads, writes, closes
// and takes deadlines as a net.Conn does.

// Listener is the server's socket (Listen).
type Listener struct {
	f      *os.File
	path   string
	unlink sync.Once
}

// Listen makes the socket at path: its folder 0700, the socket 0600. A
// socket file left by a dead server is removed first; the caller holds the
// home's lock, so no living server owns it. Anything else at path is an
// error, never removed. Close removes the socket file.
func Listen(path string) (*Listener, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if err := privateDir(dir); err != nil {
		return nil, err
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return nil, fmt.Errorf("%s exists and is not a socket: move it away", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("remove the stale socket %s: %w", path, err)
		}
	}
	// No umask dance (it is process-wide): the folder is 0700, so nobody
	// else can reach the socket before the chmod below.
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("listen unix %s: %w", path, os.NewSyscallError("bind", err))
	}
	l := &Listener{f: os.NewFile(uintptr(fd), "unix:"+path), path: path}
	if err := unix.Listen(fd, unix.SOMAXCONN); err != nil {
		l.Close()
		return nil, fmt.Errorf("listen unix %s: %w", path, os.NewSyscallError("listen", err))
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// Accept waits for the next client and returns its connection, which is
// non-blocking and on the poller. After Close it returns an error.
func (l *Listener) Accept() (*os.File, error) {
	rc, err := l.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	nfd, aerr := -1, error(nil)
	err = rc.Read(func(fd uintptr) bool {
		for {
			nfd, _, aerr = unix.Accept4(int(fd), unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
			// A client that gave up before its turn, or a signal: the next.
			if aerr != unix.EINTR && aerr != unix.ECONNABORTED {
				return aerr != unix.EAGAIN
			}
		}
	})
	if err != nil {
		return nil, err
	}
	if aerr != nil {
		return nil, os.NewSyscallError("accept4", aerr)
	}
	return os.NewFile(uintptr(nfd), "unix:"+l.path), nil
}

// Close stops listening (an Accept in progress returns) and removes the
// socket file.
func (l *Listener) Close() error {
	l.unlink.Do(func() { os.Remove(l.path) })
	return l.f.Close()
}

// Disown makes Close leave the socket file, which a new listener at the
// same path now owns (the server's SIGUSR1).
func (l *Listener) Disown() { l.unlink.Do(func() {}) }

// Path is where the listener's socket is.
func (l *Listener) Path() string { return l.path }

// privateDir checks that dir is this user's folder (socketDirOK) and takes
// away any access of others: the server makes its socket only there.
func privateDir(dir string) error {
	fi, err := system.socketDirOK(dir, 0o077)
	if err != nil && !errors.Is(err, errOpenToOthers) {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// ErrUnsafeSocket refuses a socket another user could have put there, or
// could answer on: its folder is not the person's alone, or the process
// listening is another user's.
var ErrUnsafeSocket = errors.New("not your pullcept server's socket")

var errOpenToOthers = errors.New("open to others")

// host is what the socket's checks ask of the system; the tests make a
// fake one (a fake stat, a fake peer).
type host struct {
	lstat     func(string) (fs.FileInfo, error)
	getuid    func() int
	peerCreds func(fd int) (*unix.Ucred, error)
}

var system = host{lstat: os.Lstat, getuid: os.Getuid,
	peerCreds: func(fd int) (*unix.Ucred, error) { return unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED) }}

// socketDirOK checks the folder of a socket as tmux does its own: a real
// folder (not a symbolic link), owned by this user, with none of the
// permission bits in open (0o022 for a client: nobody else may write it;
// the server takes away 0o077). Otherwise it says which folder, whose it
// is, its mode and what to do; fi is set when the folder was read.
func (h host) socketDirOK(dir string, open fs.FileMode) (fs.FileInfo, error) {
	fi, err := h.lstat(dir)
	if err != nil {
		return nil, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	uid := h.getuid()
	switch {
	case !ok || !fi.IsDir():
		return fi, fmt.Errorf("%w: %s is not a folder (mode %s): another user may have put it there; remove it, and pullcept makes the folder itself",
			ErrUnsafeSocket, dir, fi.Mode())
	case int(st.Uid) != uid:
		return fi, fmt.Errorf("%w: the socket's folder %s belongs to uid %d, not to you (uid %d; mode %s): another user may have made it to catch your pullcept. "+
			"Nothing was sent there. Have it removed (its owner or an administrator), or set PULLCEPT_HOME to a home whose run/server.sock path is short (then the socket is not in the temp folder)",
			ErrUnsafeSocket, dir, st.Uid, uid, fi.Mode())
	case fi.Mode().Perm()&open != 0:
		return fi, fmt.Errorf("%w: %w: the socket's folder %s is yours but others may write it (mode %s): another user could put a socket of theirs there. Run chmod 700 %s",
			ErrUnsafeSocket, errOpenToOthers, dir, fi.Mode(), dir)
	}
	return fi, nil
}

// ErrOtherUser refuses a peer of another uid.
var ErrOtherUser = errors.New("attach: the peer is another user")

// rawConn is a socket whose descriptor can be reached: an *os.File of one
// (Dial, Accept), or a *net.UnixConn in tests.
type rawConn interface {
	SyscallConn() (syscall.RawConn, error)
}

// CheckPeer accepts only a peer process of this uid (SO_PEERCRED): the
// server checks its clients, and each client its server.
func CheckPeer(c rawConn) error { return system.checkPeer(c) }

func (h host) checkPeer(c rawConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = h.peerCreds(int(fd))
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(cred.Uid) != h.getuid() {
		return fmt.Errorf("%w (uid %d, pid %d)", ErrOtherUser, cred.Uid, cred.Pid)
	}
	return nil
}

// Dial connects to the server at path. The connection is non-blocking and
// on the poller, as Accept's. As tmux's client, it talks only to a server
// of this user: the socket's folder must be this user's and writable by
// no one else (socketDirOK), and the process listening must run as this
// user (CheckPeer); otherwise it refuses, having sent nothing.
func Dial(path string) (*os.File, error) { return system.dial(path) }

func (h host) dial(path string) (*os.File, error) {
	fail := func(op string, err error) (*os.File, error) {
		return nil, fmt.Errorf("dial unix %s: %w", path, os.NewSyscallError(op, err))
	}
	// No socket file, no server: said without a socket, which would start
	// the runtime's poller (epoll, an eventfd, a thread woken) for a
	// command that then runs alone (a `topics list` with no server).
	var pe *os.PathError
	if _, err := os.Lstat(path); errors.As(err, &pe) && errors.Is(err, os.ErrNotExist) {
		return fail("connect", pe.Err)
	}
	if _, err := h.socketDirOK(filepath.Dir(path), 0o022); err != nil {
		return nil, err
	}
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fail("socket", err)
	}
	// Blocking: a Unix socket connects at once, or waits for room in the
	// server's backlog; a signal restarts it.
	for {
		if err = unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != unix.EINTR {
			break
		}
	}
	if err == nil {
		err = unix.SetNonblock(fd, true)
	}
	if err != nil {
		unix.Close(fd)
		return fail("connect", err)
	}
	f := os.NewFile(uintptr(fd), "unix:"+path)
	if err := h.checkPeer(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: the process listening at %s is not you: %w. Nothing was sent to it; find who made the socket (ls -l %s) and have it removed",
			ErrUnsafeSocket, path, err, filepath.Dir(path))
	}
	return f, nil
}

// NoServer says whether err from Dial means no server listens there (no
// socket, or a socket left by a dead one).
func NoServer(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED)
}
