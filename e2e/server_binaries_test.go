package e2e

// The server keeps its binary in the home's runtime folder for the seats
// (issue 32, finding 5): linked when it can, copied only when needed, whole
// or not at all, and a disk too small for them is said plainly.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
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

// A home on a disk too small for the binary: the server does not start,
// says why (the folder, the size, the disk full) and leaves no partial file.
// Before: "no space left on device" alone, and a partial copy left behind.
func TestServerOnAFullDisk(t *testing.T) {
	t.Parallel()
	home := mountTmpfs(t, "2m")
	res := pullceptCmd(t, home, nil, "server")
	if res.code == 0 {
		t.Fatalf("pullcept server started on a 2 MB disk:\n%s%s", res.out, res.err)
	}
	for _, want := range []string{"cannot keep the server's binary in " + filepath.Join(home, "run", "bin"), "MB", "no space left on device", "Free space there"} {
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

// On the binary's own disk the server links it (no copy); on another
// disk it copies it once and a second start keeps that copy. Before: a
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
	// Same disk (both under the temp folder): a link.
	home := t.TempDir()
	startForegroundServer(t, home, nil)
	if kept := filepath.Join(home, "run", "bin", "pullcept"); ino(kept) != ino(pullceptBin) {
		t.Errorf("%s is not a link of %s on the same disk", kept, pullceptBin)
	}
	pullceptOK(t, home, "kill-server")

	// Another disk: a copy, made once.
	other := mountTmpfs(t, "256m")
	startForegroundServer(t, other, nil)
	kept := filepath.Join(other, "run", "bin", "pullcept")
	first := ino(kept)
	if first == ino(pullceptBin) {
		t.Fatalf("%s on another disk has the binary's inode", kept)
	}
	pullceptOK(t, other, "kill-server")
	startForegroundServer(t, other, nil)
	if ino(kept) != first {
		t.Errorf("the second start copied %s again", kept)
	}
	a, _ := os.ReadFile(kept)
	b, _ := os.ReadFile(pullceptBin)
	if string(a) != string(b) {
		t.Errorf("the kept %s differs from the binary", kept)
	}
	left, _ := filepath.Glob(filepath.Join(other, "run", "bin", "*.tmp*"))
	if len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// The binary that started the background server is removed, as `go run .`
// removes its own when it ends: the server, which runs from the binary it
// keeps in run/bin, goes on, and a seat started afterwards launches its
// sidecar from there and answers in the room. Before: a pullcept alone
// could not start a server at all ("pullcept-server is not beside DIR").
func TestServerOutlivesItsBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cli := filepath.Join(dir, "scriptcli")
	build := exec.Command("go", "build", "-o", cli, "./seat/testdata/scriptcli")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build scriptcli: %v\n%s", err, out)
	}
	// The binary alone in a folder of its own, like go run's.
	goRun := filepath.Join(dir, "go-build", "exe")
	if err := os.MkdirAll(goRun, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(goRun, "pullcept")
	data, err := os.ReadFile(pullceptBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	phome := t.TempDir()
	account := func(id, name string) map[string]any {
		return map[string]any{"id": id, "name": name, "kind": "cli", "command": strconv.Quote(cli),
			"env": map[string]string{"SCRIPTCLI_MCP_AT_START": "1"}}
	}
	cfg, _ := json.Marshal(map[string]any{"accounts": []map[string]any{account("bot", "Bot"), account("cat", "Cat")}})
	writeConfig(t, phome, string(cfg))
	env := []string{"PATH=/usr/bin:/bin", "HOME=" + t.TempDir(), "LANG=C.UTF-8"}

	r := startTUIBinary(t, bin, phome, env, 160, 40, nil)
	r.waitText("say something to the room", "Participants", "Bot", "Cat")
	pid := serverPID(phome)
	kept := filepath.Join(phome, "run", "bin", "pullcept")
	if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err != nil || exe != kept {
		t.Errorf("the background server (pid %d) runs %q (%v), want the kept %s", pid, exe, err, kept)
	}
	// A seat keeps the server alive once no terminal is attached.
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitFor("Bot in the room", func(scr string) bool { return regexp.MustCompile(`● Bot +in room`).MatchString(scr) })
	r.prefix("d")
	r.until("the client to end", func() bool { return r.exitStatus() != "" })
	if err := os.RemoveAll(filepath.Join(dir, "go-build")); err != nil {
		t.Fatal(err)
	}

	r2 := startTUI(t, phome, env, 160, 40, nil)
	r2.waitText("say something to the room", "Bot · cli · running")
	if got := serverPID(phome); got != pid {
		t.Fatalf("the server changed: pid %d, was %d", got, pid)
	}
	r2.prefix("a")
	r2.keys("j")
	r2.keys("j")
	r2.keys("s")
	r2.waitFor("Cat in the room", func(scr string) bool { return regexp.MustCompile(`● Cat +in room`).MatchString(scr) })
	r2.prefix("i")
	r2.text("@Cat hello")
	r2.keys("Enter")
	r2.waitText("ack: hello")
}
