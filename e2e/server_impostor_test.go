package e2e

// An impostor at the socket's path (issue "Hardening 2", finding 1): when
// run/server.sock is too long, the socket moves under the temp folder, to
// /tmp/pullcept-<uid>/, which another local user can make first; and a
// socket of another user may end up at the path (a symlink race). The
// client must talk to neither: it refuses before sending a byte, saying
// which folder or process and what to do, and so runs nothing the
// impostor asks. The impostor runs as another uid (nobody), so the test
// needs root (as CI runs).

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// impostorScript listens at argv[1] and, to every client, logs what it
// sent (argv[2]) and answers as a server of protocol 2 would, asking the
// client to run a command through its editor.
const impostorScript = `
import json, os, socket, struct, sys
path, log = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX)
s.bind(path)
s.listen(8)
open(log + ".ready", "w").close()
def frame(t, v):
    b = json.dumps(v).encode()
    return t + struct.pack(">I", len(b)) + b
while True:
    c, _ = s.accept()
    c.settimeout(2)
    try:
        data = c.recv(65536)
    except Exception:
        data = b""
    with open(log, "ab") as f:
        f.write(data)
    try:
        c.sendall(frame(b"W", {"proto": 2, "pid": 1}))
        c.sendall(b"o" + struct.pack(">I", 9) + b"\x1b]0;evil\x07")
        c.sendall(frame(b"x", {"role": "editor", "paths": ["-c", "!touch " + log + ".ran"]}))
    except Exception:
        pass
    c.close()
`

func TestServerRefusesAnImpostor(t *testing.T) {
	if os.Getuid() != 0 {
		required(t, "the impostor runs as another user: the test needs root")
	}
	const nobody = 65534
	base, err := os.MkdirTemp("/tmp", "pi")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	// The impostor's own folder.
	imp := filepath.Join(base, "imp")
	if err := os.Mkdir(imp, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(imp, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	// A home whose run/server.sock is too long: the socket goes under
	// TMPDIR, here base.
	phome := filepath.Join(base, strings.Repeat("h", 100))
	if err := os.Mkdir(phome, 0o700); err != nil {
		t.Fatal(err)
	}
	env := []string{"TMPDIR=" + base}
	res := pullceptCmd(t, phome, env, "ls")
	m := regexp.MustCompile(`\((` + regexp.QuoteMeta(base) + `/pullcept-0/s-[0-9a-f]+\.sock)\)`).FindStringSubmatch(res.err)
	if res.code == 0 || m == nil {
		t.Fatalf("pullcept ls with no server: exit %d\n%s%s", res.code, res.out, res.err)
	}
	sock := m[1]
	sockDir := filepath.Dir(sock)

	impostor := func(path string) string {
		t.Helper()
		log := filepath.Join(imp, "log-"+filepath.Base(path))
		cmd := exec.Command("/usr/bin/python3", "-c", impostorScript, path, log)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			required(t, "python3 does not run: "+err.Error())
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		for deadline := time.Now().Add(tuiWait); ; time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(log + ".ready"); err == nil {
				return log
			}
			if time.Now().After(deadline) {
				t.Fatal("the impostor did not listen")
			}
		}
	}
	// refused runs ls, kill-server and the attaching pullcept: each must
	// fail saying want, and the impostor must have been sent nothing and
	// have had nothing run.
	refused := func(log string, want ...string) {
		t.Helper()
		for _, args := range [][]string{{"ls"}, {"kill-server"}, {}} {
			res := pullceptCmd(t, phome, env, args...)
			if res.code == 0 {
				t.Errorf("pullcept %q with an impostor at the socket: exit 0\n%s%s", args, res.out, res.err)
			}
			if strings.Contains(res.out+res.err, "\x1b") {
				t.Errorf("pullcept %q printed the impostor's escape sequence: %q", args, res.out+res.err)
			}
			for _, w := range want {
				if !strings.Contains(res.err, w) {
					t.Errorf("pullcept %q: the refusal does not say %q:\n%s", args, w, res.err)
				}
			}
		}
		if b, _ := os.ReadFile(log); len(b) != 0 {
			t.Errorf("the client sent the impostor %q", b)
		}
		if _, err := os.Stat(log + ".ran"); err == nil {
			t.Error("the impostor's command ran")
		}
	}

	// 1. The impostor made the temp folder first and listens in it.
	if err := os.Mkdir(sockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(sockDir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	log := impostor(sock)
	refused(log, sockDir, "belongs to uid 65534", "not to you (uid 0", "drwxr-xr-x", "Have it removed")
	if fi, err := os.Lstat(sockDir); err != nil || fi.Sys().(*syscall.Stat_t).Uid != nobody {
		t.Errorf("the client changed the impostor's folder: %v %v", fi, err)
	}

	// 2. The folder is the person's, but the socket at the path is the
	// impostor's (moved in: what a symlink race gives).
	if err := os.RemoveAll(sockDir); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	log = impostor(filepath.Join(imp, "s.sock"))
	if err := os.Rename(filepath.Join(imp, "s.sock"), sock); err != nil {
		t.Fatal(err)
	}
	refused(log, "the process listening at "+sock+" is not you", "uid 65534", "Nothing was sent")
}
