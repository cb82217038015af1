package server

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pullcept/attach"
	"pullcept/seat"
)

// fakeCLI writes an executable named fakecli in a new folder that writes
// its PATH and LANG to out and then waits; it returns the folder.
func fakeCLI(t *testing.T, out string) string {
	t.Helper()
	dir := t.TempDir()
	script := "#!/bin/sh\nprintf '%s\\n%s\\n' \"$PATH\" \"$LANG\" >" + out + ".tmp && mv " + out + ".tmp " + out + "\nexec cat\n"
	if err := os.WriteFile(filepath.Join(dir, "fakecli"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// clientByPID is the attached client whose Hello said pid.
func (f *fixture) clientByPID(pid int) *client {
	f.t.Helper()
	var found *client
	eventually(f.t, fmt.Sprintf("client pid %d attached", pid), func() bool {
		f.srv.mu.Lock()
		defer f.srv.mu.Unlock()
		for c := range f.srv.clients {
			if c.hello.PID == pid {
				found = c
				return true
			}
		}
		return false
	})
	return found
}

// A seat starts in the person's environment of the client that starts it
// (its PATH finds the CLI, its LANG), else of the most recently active
// client; a client that brought none changes nothing (issue 31, point 7:
// the server's PATH was the first terminal's, and the seat failed).
func TestSeatEnvIsTheClients(t *testing.T) {
	out := filepath.Join(t.TempDir(), "env")
	cliDir := fakeCLI(t, out)
	f := startServer(t, setup{accounts: []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "fakecli"}}})
	path := os.Getenv("PATH")
	if strings.Contains(path, cliDir) {
		t.Fatal("the test's own PATH has the fake CLI")
	}
	a := f.attachScreenWith(attach.Hello{UpdateEnv: []string{"PATH=" + path, "LANG=C.UTF-8"}}, 100, 30, 7101)
	b := f.attachScreenWith(attach.Hello{UpdateEnv: []string{"PATH=" + cliDir + ":" + path, "LANG=en_GB.UTF-8", "HOME=/not/this"}}, 100, 30, 7102)
	a.ready()
	b.ready()
	ca, cb := f.clientByPID(7101), f.clientByPID(7102)
	topic, err := f.a.NewTopic()
	if err != nil {
		t.Fatal(err)
	}
	seatsOf := func(c *client) clientSeats { return clientSeats{a: f.a, z: f.srv.z, c: c} }
	started := func(want string) {
		t.Helper()
		eventually(t, "the fake CLI wrote its environment", func() bool {
			b, err := os.ReadFile(out)
			return err == nil && strings.HasSuffix(string(b), "\n"+want+"\n")
		})
		b, _ := os.ReadFile(out)
		if !strings.HasPrefix(string(b), cliDir+":") {
			t.Fatalf("the seat's PATH: %q, want the client's", b)
		}
		os.Remove(out)
		if err := f.a.StopSeat(topic, "bot", "test"); err != nil {
			t.Fatal(err)
		}
	}

	// Started by B: B's PATH finds it, B's LANG.
	if err := seatsOf(cb).Start(topic, "bot"); err != nil {
		t.Fatalf("start from the client whose PATH has the CLI: %v", err)
	}
	started("en_GB.UTF-8")
	// Started by A: not on A's PATH.
	if err := seatsOf(ca).Start(topic, "bot"); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Fatalf("start from the client whose PATH lacks the CLI: %v, want not found", err)
	}

	// No client starts it (a session operation, a reopen): the most
	// recently active client's.
	touch := func(s *screen) {
		t.Helper()
		time.Sleep(2 * time.Millisecond) // a later time stamp than the other's
		if err := s.conn.WriteJSON(attach.FrameResize, attach.Size{Cols: 100, Rows: 30}); err != nil {
			t.Fatal(err)
		}
	}
	touch(b)
	eventually(t, "B is the most recently active", func() bool {
		ca.mu.Lock()
		ta := ca.active
		ca.mu.Unlock()
		cb.mu.Lock()
		defer cb.mu.Unlock()
		return cb.active.After(ta)
	})
	if _, err := f.a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatalf("start with B the most recently active: %v", err)
	}
	started("en_GB.UTF-8")
	touch(a)
	eventually(t, "A is the most recently active", func() bool {
		cb.mu.Lock()
		tb := cb.active
		cb.mu.Unlock()
		ca.mu.Lock()
		defer ca.mu.Unlock()
		return ca.active.After(tb)
	})
	if _, err := f.a.StartSeat(context.Background(), topic, "bot"); err == nil {
		t.Fatal("started with A the most recently active, whose PATH lacks the CLI")
	}
	// A control client (pullcept serve) that starts it: its own.
	ctl, _ := f.dial(attach.Hello{Mode: attach.ModeControl, UpdateEnv: []string{"PATH=" + cliDir + ":" + path, "LANG=C.UTF-8"}})
	go func() { // its events are not read here
		for {
			if _, _, err := ctl.Read(); err != nil {
				return
			}
		}
	}()
	if err := ctl.Write(attach.FrameInput, []byte(`{"cmd":"start","topic":"`+topic+`","account":"bot"}`+"\n")); err != nil {
		t.Fatal(err)
	}
	started("C.UTF-8")

	// Only the listed variables come: HOME stays the server's.
	if env := personEnv(cb.hello)([]string{"HOME=/srv", "PATH=/srv/bin", "LC_ALL=C"}); strings.Join(env, " ") != "HOME=/srv PATH="+cliDir+":"+path+" LANG=en_GB.UTF-8" {
		t.Errorf("B's environment over the server's: %q", env)
	}
}

// A store command run by the server (accounts add) looks a program up on
// the PATH of the terminal that ran it.
func TestCommandSeesTheClientsPATH(t *testing.T) {
	t.Parallel()
	cliDir := fakeCLI(t, filepath.Join(t.TempDir(), "unused"))
	f := startServer(t, setup{command: func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		p, err := seat.LookPathFor(ctx)("fakecli")
		fmt.Fprintf(stdout, "%s %v", p, err)
		return nil
	}})
	for _, c := range []struct {
		env  []string
		want string
	}{
		{[]string{"PATH=" + cliDir + ":/usr/bin:/bin"}, filepath.Join(cliDir, "fakecli") + " <nil>"},
		{[]string{"PATH=/usr/bin:/bin"}, ` exec: "fakecli": executable file not found in $PATH`},
	} {
		conn, _ := f.dial(attach.Hello{Mode: attach.ModeCommand, Args: []string{"accounts", "add"}, UpdateEnv: c.env})
		if out, _, _ := untilExit(t, conn); out != c.want {
			t.Errorf("with %q: %q, want %q", c.env, out, c.want)
		}
	}
}

// An account added while a screen is open (no account at all when it
// opened: the first run) appears in its participants at once.
func TestAccountAddedWhileAScreenIsOpen(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	s := f.attachScreen(100, 30, 7201)
	s.ready()
	s.waitFor("the no-accounts hint", has("no accounts:"))
	cfg := `{"accounts":[{"id":"lin","name":"Lin","kind":"cli","command":"cat"}]}`
	if err := os.WriteFile(f.a.Dirs().ConfigFile(), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	f.a.ReloadAccounts() // what accounts add and the config watch do
	s.waitFor("Lin in the participants", func(l []string) bool {
		return has("Lin")(l) && !has("no accounts:")(l)
	})
}
