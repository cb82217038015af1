package e2e

// The server keeps its binaries in the home's runtime folder for the seats
// (issue 32, finding 5): linked when it can, copied only when needed, whole
// or not at all, and a disk too small for them is said plainly.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountTmpfs mounts a tmpfs of size at a new folder, unmounted at the end;
// the test is skipped where mount is not permitted (CI runs as root).
func mountTmpfs(t *testing.T, size string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount -t tmpfs is not permitted here (%v: %s): this test needs root to make a small filesystem", err, strings.TrimSpace(string(out)))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// A home on a disk too small for the binaries: the server does not start,
// says why (the folder, the size, the disk full) and leaves no partial file.
// Before: "no space left on device" alone, and a partial copy left behind.
func TestServerOnAFullDisk(t *testing.T) {
	t.Parallel()
	home := mountTmpfs(t, "2m")
	res := pullceptCmd(t, home, nil, "server")
	if res.code == 0 {
		t.Fatalf("pullcept server started on a 2 MB disk:\n%s%s", res.out, res.err)
	}
	for _, want := range []string{"cannot keep the server's binaries in " + filepath.Join(home, "run", "bin"), "MB", "no space left on device", "Free space there"} {
		if !strings.Contains(res.err, want) {
			t.Errorf("pullcept server's error does not say %q:\n%s", want, res.err)
		}
	}
	left, _ := os.ReadDir(filepath.Join(home, "run", "bin"))
	for _, e := range left {
		fi, _ := e.Info()
		t.Errorf("left in run/bin: %s (%d bytes)", e.Name(), fi.Size())
	}
}

// On the binaries' own disk the server links them (no copy); on another
// disk it copies them once and a second start keeps that copy. Before: a
// new 16.5 MB copy at every start.
func TestServerKeepsItsBinaries(t *testing.T) {
	t.Parallel()
	ino := func(p string) uint64 {
		t.Helper()
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Sys().(*syscall.Stat_t).Ino
	}
	serverBin := filepath.Join(filepath.Dir(pullceptBin), "pullcept-server")

	// Same disk (both under the temp folder): a link.
	home := t.TempDir()
	startForegroundServer(t, home, nil)
	for _, name := range []string{"pullcept", "pullcept-server"} {
		kept := filepath.Join(home, "run", "bin", name)
		src := filepath.Join(filepath.Dir(pullceptBin), name)
		if ino(kept) != ino(src) {
			t.Errorf("%s is not a link of %s on the same disk", kept, src)
		}
	}
	pullceptOK(t, home, "kill-server")

	// Another disk: a copy, made once.
	other := mountTmpfs(t, "256m")
	startForegroundServer(t, other, nil)
	kept := filepath.Join(other, "run", "bin", "pullcept-server")
	first := ino(kept)
	if first == ino(serverBin) {
		t.Fatalf("%s on another disk has the binary's inode", kept)
	}
	pullceptOK(t, other, "kill-server")
	startForegroundServer(t, other, nil)
	if ino(kept) != first {
		t.Errorf("the second start copied %s again", kept)
	}
	for _, name := range []string{"pullcept", "pullcept-server"} {
		a, _ := os.ReadFile(filepath.Join(other, "run", "bin", name))
		b, _ := os.ReadFile(filepath.Join(filepath.Dir(pullceptBin), name))
		if string(a) != string(b) {
			t.Errorf("the kept %s differs from the binary", name)
		}
	}
	left, _ := filepath.Glob(filepath.Join(other, "run", "bin", "*.tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
