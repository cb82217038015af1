package e2e

// A screen's fault ends that screen only (issue 31, "Isolation"). The
// real binary has no way to inject a fault (server/fault_test.go does it
// in-process); here the fault the issue saw: prefix ~ with a notice up
// panicked on a nil time zone, and the server took the screen's end for a
// quit and stopped every seat.

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestTUINoticesWithASeatRunning(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	seatsConfig(t, phome, "cat", "Ann")
	env := serverEnv(t)
	r := startTUI(t, phome, env, 120, 30, nil)
	r.waitText("say something to the room", "Participants", "Ann")
	startSeats(r, "Ann") // its notice is on the status line
	pid := serverPID(phome)
	if pid <= 0 {
		t.Fatal("no server pid in the home's lock")
	}

	r.prefix("~")
	r.waitText("Notices, oldest first", "Ann started (new session)")
	r.keys("Escape")
	r.waitFor("the notices closed", func(scr string) bool { return !strings.Contains(scr, "Notices, oldest first") })
	if syscall.Kill(pid, 0) != nil || r.exitStatus() != "" {
		t.Fatalf("prefix ~ ended the server (pid %d) or the screen (exit %q)", pid, r.exitStatus())
	}
	if ls := serverLs(t, phome); !strings.Contains(ls.raw, "Ann (running)") || ls.nClient != 1 {
		t.Errorf("after prefix ~:\n%s", ls.raw)
	}
	r.prefix("i")
	r.text("still here")
	r.keys("Enter")
	r.waitText("│  still here")
	if log, _ := os.ReadFile(filepath.Join(phome, "state", "server.log")); strings.Contains(string(log), "panic") {
		t.Errorf("server.log:\n%s", log)
	}
}
