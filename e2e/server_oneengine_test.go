package e2e

// One engine per home (issue 32, finding 4 and a low of finding 5):
// kill-server ends a foreground `pullcept serve` as it ends a background
// server, and a server whose socket file was deleted is reached again — it
// makes the socket anew on SIGUSR1, which a client that finds the home's
// lock held and no socket sends.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"pullcept/dirs"
)

// exitedOrZombie tells whether pid has ended (a child not yet waited for
// is a zombie, which kill(pid, 0) still reaches).
func exitedOrZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] == 'Z'
}

func awaitCond(d time.Duration, f func() bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if f() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func sizeOr(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// kill-server against a foreground `pullcept serve` (its stdin a pipe kept
// open): serve's process ends, nothing more reaches the topic file, and a
// new server starts and is the home's only engine. Before: kill-server
// printed "ended", serve went on posting without the lock, and the next
// server appended to the same topic file beside it.
func TestKillServerEndsForegroundServe(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := startServe(t, home)
	cur := s.topic()
	if r := s.do(map[string]any{"cmd": "post", "topic": cur, "content": "before kill-server"}); r["delivered"] != true {
		t.Fatalf("%v", r)
	}
	topicFile := filepath.Join(home, "logs", "main", cur+".jsonl")
	pid := s.cmd.Process.Pid

	res := pullceptCmd(t, home, nil, "kill-server")
	if res.code != 0 || !strings.Contains(res.out, "ended") {
		t.Fatalf("kill-server: exit %d\n%s%s", res.code, res.out, res.err)
	}
	if !awaitCond(20*time.Second, func() bool { return exitedOrZombie(pid) }) {
		before := sizeOr(topicFile)
		_, _ = s.in.Write([]byte(`{"cmd":"post","topic":"` + cur + `","content":"after kill-server"}` + "\n"))
		grew := awaitCond(5*time.Second, func() bool { return sizeOr(topicFile) > before })
		t.Fatalf("serve (pid %d) still runs 20 s after kill-server; a post through its stdin appended to the topic file: %v", pid, grew)
	}
	size := sizeOr(topicFile)
	_, _ = s.in.Write([]byte(`{"cmd":"post","topic":"` + cur + `","content":"after kill-server"}` + "\n"))

	next := startForegroundServer(t, home, nil)
	if l := serverLs(t, home); l.pid != next {
		t.Errorf("ls names pid %d, want the new server %d", l.pid, next)
	}
	if holder, err := dirs.LockHolder(filepath.Join(home, "state")); holder != next || err != nil {
		t.Errorf("the home's lock is held by %d (%v), want the new server %d", holder, err, next)
	}
	if got := sizeOr(topicFile); got != size {
		t.Errorf("the topic file changed after serve ended: %d bytes, then %d", size, got)
	}
}

// A server whose socket file was deleted makes it again on SIGUSR1 (as
// tmux does); ls, and kill-server, find the server by the home's lock,
// signal it and reach it. Before: "no server runs for this home" while it
// ran, and a second server could not start.
func TestServerSocketDeleted(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	pid := startForegroundServer(t, home, nil)
	sock := serverLs(t, home).socket

	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	if !awaitCond(10*time.Second, func() bool { _, err := os.Lstat(sock); return err == nil }) {
		t.Fatalf("no socket at %s after SIGUSR1", sock)
	}
	if l := serverLs(t, home); l.pid != pid {
		t.Fatalf("ls after SIGUSR1 names pid %d, want %d", l.pid, pid)
	}

	// ls with the socket gone: the client signals the lock's holder.
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if l := serverLs(t, home); l.pid != pid {
		t.Fatalf("ls with the socket deleted names pid %d, want %d", l.pid, pid)
	}

	// kill-server with the socket gone ends it.
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	res := pullceptCmd(t, home, nil, "kill-server")
	if res.code != 0 || !strings.Contains(res.out, "ended") {
		t.Fatalf("kill-server with the socket deleted: exit %d\n%s%s", res.code, res.out, res.err)
	}
	if !awaitCond(20*time.Second, func() bool { return exitedOrZombie(pid) }) {
		t.Fatalf("the server (pid %d) still runs after kill-server", pid)
	}
	noServerLs(t, home)
}

// A server that cannot make its socket again (a folder took its path) is
// still ended by kill-server: found by the lock, sent SIGTERM, awaited.
func TestKillServerUnreachable(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	pid := startForegroundServer(t, home, nil)
	sock := serverLs(t, home).socket
	if err := os.Remove(sock); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sock, 0o700); err != nil {
		t.Fatal(err)
	}
	res := pullceptCmd(t, home, nil, "kill-server")
	if res.code != 0 || !strings.Contains(res.out, "ended by SIGTERM") {
		t.Fatalf("kill-server with the socket's path taken: exit %d\n%s%s", res.code, res.out, res.err)
	}
	if !awaitCond(20*time.Second, func() bool { return exitedOrZombie(pid) }) {
		t.Fatalf("the server (pid %d) still runs after kill-server", pid)
	}
	if holder, err := dirs.LockHolder(filepath.Join(home, "state")); holder != 0 || err != nil {
		t.Errorf("the lock is held by %d (%v) after kill-server", holder, err)
	}
	os.Remove(sock)
}
