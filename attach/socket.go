package attach

import (
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
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
// secret (the folder is the user's, 0700), and crypto/sha256 would bring
// the FIPS 140 module's inits into every command.
func SocketPath(runtimeDir string) string {
	p := filepath.Join(runtimeDir, SocketName)
	if len(p) <= maxSocketPath {
		return p
	}
	h := fnv.New64a()
	h.Write([]byte(runtimeDir))
	return filepath.Join(os.TempDir(), "pullcept-"+strconv.Itoa(os.Getuid()), "s-"+hex.EncodeToString(h.Sum(nil))+".sock")
}

// Listen makes the socket at path: its folder 0700, the socket 0600. A
// socket file left by a dead server is removed first; the caller holds the
// home's lock, so no living server owns it. Anything else at path is an
// error, never removed.
func Listen(path string) (*net.UnixListener, error) {
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
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	l.SetUnlinkOnClose(true)
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, err
	}
	return l, nil
}

// privateDir checks that dir is this user's and no one else's.
func privateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return fmt.Errorf("%s is not a folder", dir)
	}
	if int(st.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to uid %d, not to you (uid %d)", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// ErrOtherUser refuses a peer of another uid.
var ErrOtherUser = errors.New("attach: the peer is another user")

// CheckPeer accepts only a peer process of this uid (SO_PEERCRED).
func CheckPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return cerr
	}
	if int(cred.Uid) != os.Getuid() {
		return fmt.Errorf("%w (uid %d)", ErrOtherUser, cred.Uid)
	}
	return nil
}

// Dial connects to the server at path.
func Dial(path string) (*net.UnixConn, error) {
	// No socket file, no server: said without a socket, which would start
	// the runtime's poller (epoll, an eventfd, a thread woken) for a
	// command that then runs alone (a `topics list` with no server).
	var pe *os.PathError
	if _, err := os.Lstat(path); errors.As(err, &pe) && errors.Is(err, os.ErrNotExist) {
		return nil, &net.OpError{Op: "dial", Net: "unix", Addr: &net.UnixAddr{Name: path, Net: "unix"}, Err: pe.Err}
	}
	return net.DialUnix("unix", nil, &net.UnixAddr{Name: path, Net: "unix"})
}

// NoServer says whether err from Dial means no server listens there (no
// socket, or a socket left by a dead one).
func NoServer(err error) bool {
	return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ECONNREFUSED)
}
