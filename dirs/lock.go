package dirs

// One run per home (issue "Sessions outlive the terminal": two pullcept
// processes on one home ran two engines over one store — two floors and two
// orders for one topic, which the spec forbids: 一つの会話に二つの順序が生まれ
// る). A run holds an exclusive flock on state/pullcept.lock for its whole
// life; the kernel drops it when the process ends, however it ends, so a
// killed run leaves nothing to clean up. Until a second pullcept can attach
// to the running one, it is refused with the holder's pid.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// ErrHomeBusy reports that another run holds the home.
var ErrHomeBusy = errors.New("another pullcept runs on this home")

// LockFile is the lock's name under the state folder.
const LockFile = "pullcept.lock"

// LockHome takes the home's lock for the engine's run and writes this
// process's pid in it (a second engine is refused with it); release gives
// it back.
func LockHome(stateDir string) (release func(), err error) {
	return lockHome(stateDir, true)
}

// LockHomeBriefly takes the home's lock for a store command (topics,
// accounts) while no server owns the home, without writing a pid: the hold
// lasts milliseconds, a starting server waits for it (cli's
// startApp), and the two inode changes of writing and clearing a pid cost
// 0.13-0.15 ms of system time on ext4 run after run, paid by every store
// command's start-up (docs/performance.md "Start-up").
func LockHomeBriefly(stateDir string) (release func(), err error) {
	return lockHome(stateDir, false)
}

func lockHome(stateDir string, writePID bool) (release func(), err error) {
	path := filepath.Join(stateDir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("home lock %s: %w", path, err)
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		data, _ := os.ReadFile(path)
		f.Close()
		holder := strings.TrimSpace(string(data))
		if _, perr := strconv.Atoi(holder); perr == nil {
			holder = "pid " + holder
		} else {
			holder = "no pid: a store command (pullcept topics, accounts) or a server starting"
		}
		return nil, fmt.Errorf("%w (%s, lock %s): one home has one room engine, so attach to it (pullcept), end it (pullcept kill-server), or give this one another home with PULLCEPT_HOME", ErrHomeBusy, holder, path)
	}
	if !writePID {
		// A pid left by an engine that was killed would name the wrong
		// holder: clear it (the rare case; fstat changes nothing).
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			_ = f.Truncate(0)
		}
		return func() {
			_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
			f.Close()
		}, nil
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		_ = f.Truncate(0)
		_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
		f.Close()
	}, nil
}

// LockHolder is the engine that holds the home's lock, found without its
// socket (a deleted socket file; kill-server): the pid written in the lock,
// trusted only when that pid still holds a lock on that very file (Linux's
// /proc/locks) and runs as this user. 0 with no error: no engine holds it.
func LockHolder(stateDir string) (int, error) {
	path := filepath.Join(stateDir, LockFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, nil // no engine's pid: none, or a store command's brief hold
	}
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return 0, err
	}
	locks, err := os.ReadFile("/proc/locks")
	if err != nil {
		// No /proc (not Linux): the lock is held if it cannot be taken,
		// and then by the pid written, if that process runs and may be
		// signalled by this user.
		if !lockHeld(path) || unix.Kill(pid, 0) != nil {
			return 0, nil
		}
		return pid, nil
	}
	if !holdsFlock(string(locks), pid, uint64(st.Dev), uint64(st.Ino)) {
		return 0, nil // a killed engine's pid, perhaps reused since
	}
	var pst unix.Stat_t
	if err := unix.Stat("/proc/"+strconv.Itoa(pid), &pst); err != nil {
		return 0, nil // it ended meanwhile
	}
	if int(pst.Uid) != os.Getuid() {
		return 0, fmt.Errorf("the lock %s is held by pid %d of uid %d, not this user's (%d): not signalled", path, pid, pst.Uid, os.Getuid())
	}
	return pid, nil
}

// holdsFlock reads /proc/locks ("1: FLOCK  ADVISORY  WRITE 19140
// fe:00:9981729 0 EOF": pid, then major:minor in hex and the inode) for an
// exclusive flock of pid on the file dev/ino.
func holdsFlock(locks string, pid int, dev, ino uint64) bool {
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(dev), unix.Minor(dev), ino)
	for _, line := range strings.Split(locks, "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "FLOCK" && f[3] == "WRITE" && f[4] == strconv.Itoa(pid) && f[5] == want {
			return true
		}
	}
	return false
}

// lockHeld tells whether someone holds the lock at path, by trying it.
func lockHeld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return true
	}
	_ = unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return false
}
