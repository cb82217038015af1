package dirs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The engine's lock names its pid to a refused second engine; a store
// command's brief lock writes none, and clears one left by a killed engine,
// so a refusal never names a process that does not hold the lock.
func TestLockHomePIDs(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	content := func() string {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	release, err := LockHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := content(), fmt.Sprintf("%d\n", os.Getpid()); got != want {
		t.Errorf("the engine's lock holds %q, want %q", got, want)
	}
	// flock belongs to the open file: a second open in this process is refused.
	if _, err := LockHomeBriefly(dir); !errors.Is(err, ErrHomeBusy) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d,", os.Getpid())) {
		t.Errorf("a store command beside the engine: %v, want busy naming pid %d", err, os.Getpid())
	}
	release()
	if got := content(); got != "" {
		t.Errorf("after the engine's release the lock holds %q", got)
	}

	// A killed engine leaves its pid behind.
	if err := os.WriteFile(path, []byte("999999\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	brief, err := LockHomeBriefly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := content(); got != "" {
		t.Errorf("a store command's lock holds %q, want nothing (the dead engine's pid cleared)", got)
	}
	_, err = LockHome(dir)
	if !errors.Is(err, ErrHomeBusy) || !strings.Contains(err.Error(), "no pid: a store command") || strings.Contains(err.Error(), "999999") {
		t.Errorf("an engine beside a store command: %v, want busy naming a store command", err)
	}
	brief()
	release, err = LockHome(dir)
	if err != nil {
		t.Fatalf("after the store command's release: %v", err)
	}
	release()
}

// The engine found by the lock (kill-server with its socket gone) is the
// pid that still holds the lock: a pid left by a killed engine, or written
// by hand, is nobody.
func TestLockHolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	if pid, err := LockHolder(dir); pid != 0 || err != nil {
		t.Fatalf("no lock file: %d %v", pid, err)
	}
	release, err := LockHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := LockHolder(dir); pid != os.Getpid() || err != nil {
		t.Errorf("held by this process: %d %v, want %d", pid, err, os.Getpid())
	}
	release()
	// A pid that holds no lock on the file (here: this process, released).
	if err := os.WriteFile(path, []byte(fmt.Sprintf("%d\n", os.Getpid())), 0o600); err != nil {
		t.Fatal(err)
	}
	if pid, err := LockHolder(dir); pid != 0 || err != nil {
		t.Errorf("a pid that holds no lock: %d %v, want none", pid, err)
	}
	brief, err := LockHomeBriefly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if pid, err := LockHolder(dir); pid != 0 || err != nil {
		t.Errorf("a store command's hold: %d %v, want none", pid, err)
	}
	brief()
}

func TestHoldsFlock(t *testing.T) {
	locks := "1: POSIX  ADVISORY  WRITE 42 fe:00:77 0 EOF\n2: FLOCK  ADVISORY  READ 42 fe:00:77 0 EOF\n3: FLOCK  ADVISORY  WRITE 43 fe:00:77 0 EOF\n4: FLOCK  ADVISORY  WRITE 42 fe:01:77 0 EOF\n"
	dev := unix.Mkdev(0xfe, 0)
	if holdsFlock(locks, 42, dev, 77) {
		t.Error("a POSIX lock, a shared flock, another pid's and another device's taken for pid 42's")
	}
	if !holdsFlock(locks+"5: FLOCK  ADVISORY  WRITE 42 fe:00:77 0 EOF\n", 42, dev, 77) {
		t.Error("pid 42's exclusive flock not found")
	}
}

// Without /proc/locks the holder is found by trying the lock.
func TestLockHeld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	release, err := LockHome(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !lockHeld(path) {
		t.Error("a held lock not seen")
	}
	release()
	if lockHeld(path) {
		t.Error("a free lock seen as held")
	}
}
