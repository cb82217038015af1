package attach

import (
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// fakeInfo is a fake stat of a folder (or not) of some uid.
type fakeInfo struct {
	mode fs.FileMode
	uid  uint32
}

func (f fakeInfo) Name() string       { return "x" }
func (f fakeInfo) Size() int64        { return 0 }
func (f fakeInfo) Mode() fs.FileMode  { return f.mode }
func (f fakeInfo) ModTime() time.Time { return time.Time{} }
func (f fakeInfo) IsDir() bool        { return f.mode.IsDir() }
func (f fakeInfo) Sys() any           { return &syscall.Stat_t{Uid: f.uid} }

// fakeHost answers stat with info for every path, and the peer's uid.
func fakeHost(info fs.FileInfo, me, peer int) host {
	return host{
		lstat:     func(string) (fs.FileInfo, error) { return info, nil },
		getuid:    func() int { return me },
		peerCreds: func(int) (*unix.Ucred, error) { return &unix.Ucred{Uid: uint32(peer), Pid: 4242}, nil },
	}
}

// The socket's folder must be a folder of the person's, writable by
// nobody else; a refusal names the folder, its owner and mode, and what to
// do (issue "Hardening 2", finding 1; tmux checks its folder the same).
func TestSocketDirOK(t *testing.T) {
	t.Parallel()
	const me = 1000
	for _, c := range []struct {
		info fakeInfo
		open fs.FileMode
		want []string // in the refusal; none: accepted
	}{
		{fakeInfo{fs.ModeDir | 0o700, me}, 0o022, nil},
		{fakeInfo{fs.ModeDir | 0o755, me}, 0o022, nil},
		{fakeInfo{fs.ModeDir | 0o700, 1001}, 0o022, []string{"/f", "uid 1001", "not to you (uid 1000", "drwx------", "Have it removed", "PULLCEPT_HOME"}},
		{fakeInfo{fs.ModeDir | 0o777, 1001}, 0o022, []string{"uid 1001", "drwxrwxrwx"}},
		{fakeInfo{fs.ModeDir | 0o777, me}, 0o022, []string{"/f", "others may write it", "drwxrwxrwx", "chmod 700 /f"}},
		{fakeInfo{fs.ModeDir | 0o770, me}, 0o022, []string{"drwxrwx---", "chmod 700 /f"}},
		{fakeInfo{fs.ModeDir | 0o750, me}, 0o077, []string{"drwxr-x---"}}, // the server's own: taken away
		{fakeInfo{fs.ModeSymlink | 0o777, me}, 0o022, []string{"/f is not a folder", "Lrwxrwxrwx"}},
	} {
		_, err := fakeHost(c.info, me, me).socketDirOK("/f", c.open)
		if c.want == nil {
			if err != nil {
				t.Errorf("%v: refused: %v", c.info, err)
			}
			continue
		}
		if !errors.Is(err, ErrUnsafeSocket) {
			t.Errorf("%v: %v, want refused", c.info, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: the refusal %q does not say %q", c.info, err, w)
			}
		}
	}
}

// A client connects only to a server of its own uid, in a folder of its
// own: refused, it sends nothing.
func TestDialChecksTheServer(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "pa")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, SocketName)
	l, err := Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	me := os.Getuid()
	dirInfo, err := os.Lstat(dir)
	if err != nil {
		t.Fatal(err)
	}

	// A folder of another uid: no connection at all.
	other := fakeHost(fakeInfo{fs.ModeDir | 0o700, uint32(me + 1)}, me, me)
	other.lstat = func(p string) (fs.FileInfo, error) {
		if p == dir {
			return fakeInfo{fs.ModeDir | 0o700, uint32(me + 1)}, nil
		}
		return os.Lstat(p)
	}
	if _, err := other.dial(path); !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "uid "+strconv.Itoa(me+1)) {
		t.Fatalf("dial through another user's folder: %v", err)
	}
	// A server of another uid: connected, checked, closed, nothing sent.
	impostor := fakeHost(dirInfo, me, me+1)
	impostor.lstat = os.Lstat
	if _, err := impostor.dial(path); !errors.Is(err, ErrUnsafeSocket) || !errors.Is(err, ErrOtherUser) ||
		!strings.Contains(err.Error(), "uid "+strconv.Itoa(me+1)) || !strings.Contains(err.Error(), "Nothing was sent") {
		t.Fatalf("dial of another user's server: %v", err)
	}
	// The first connection the listener sees is the impostor's: empty.
	sc, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	_ = sc.SetReadDeadline(time.Now().Add(10 * time.Second))
	if b, err := io.ReadAll(sc); len(b) != 0 || err != nil {
		t.Errorf("the refused client sent %q (%v)", b, err)
	}
	sc.Close()
	// The person's own: accepted.
	c, err := Dial(path)
	if err != nil {
		t.Fatalf("dial of this user's server: %v", err)
	}
	c.Close()

	// A real folder of this user that others may write: refused.
	open, err := os.MkdirTemp("", "pa")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(open)
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	ul, err := net.Listen("unix", filepath.Join(open, SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	if _, err := Dial(filepath.Join(open, SocketName)); !errors.Is(err, ErrUnsafeSocket) || !strings.Contains(err.Error(), "chmod 700 "+open) {
		t.Fatalf("dial into a folder others may write: %v", err)
	}
}
