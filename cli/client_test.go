package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"pullcept/attach"
	"pullcept/dirs"
)

// A character cut between two frames is printed whole; control characters
// (C0, DEL, C1 in UTF-8) never reach the terminal raw.
func TestVisibleWriter(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	v := &visibleWriter{w: &out}
	in := "ok é\x1b]0;title\x07 \u009b2J \u009d52;c;x\u009c end\n"
	b := []byte(in)
	for i := range b { // one byte a write: every cut
		if _, err := v.Write(b[i : i+1]); err != nil {
			t.Fatal(err)
		}
	}
	v.flush()
	got := out.String()
	if strings.ContainsFunc(got, func(r rune) bool { return (r < 0x20 && r != '\n') || (r >= 0x7f && r <= 0x9f) || r == '\ufffd' }) {
		t.Fatalf("printed %q", got)
	}
	if !strings.HasPrefix(got, "ok é␛]0;title␇ ¿2J") || !strings.HasSuffix(got, " end\n") {
		t.Fatalf("printed %q", got)
	}
}

// pullcept ls and kill-server print what a server says as text: an
// impostor's escape sequences reach the terminal as visible symbols
// (issue "Hardening 2", finding 1).
func TestAskServerPrintsNoControl(t *testing.T) {
	home, err := os.MkdirTemp("", "pc") // short: the socket's path
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(home)
	t.Setenv("PULLCEPT_HOME", home)
	t.Setenv("PULLCEPT_SEAT", "")
	l, err := attach.Listen(attach.SocketPath(filepath.Join(home, "run")))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	evil := "server \x1b]52;c;ZXZpbA==\x07 \x1b[2J \u009b2J \u009d0;t\u009c\r\n"
	go func() {
		for {
			f, err := l.Accept()
			if err != nil {
				return
			}
			c := attach.NewConn(f)
			var h attach.Hello
			_ = c.ReadJSON(attach.FrameHello, &h)
			_ = c.WriteJSON(attach.FrameWelcome, attach.Welcome{Proto: attach.ProtocolVersion, PID: 1})
			_ = c.Write(attach.FrameOutput, []byte(evil))
			_ = c.WriteJSON(attach.FrameExit, attach.Exit{Message: "bye \x1b[31mred"})
			f.Close()
		}
	}()
	for name, run := range map[string]func(context.Context, *bytes.Buffer) error{
		"ls":          func(ctx context.Context, b *bytes.Buffer) error { return listServer(ctx, b) },
		"kill-server": func(ctx context.Context, b *bytes.Buffer) error { return killServer(ctx, b) },
	} {
		var out bytes.Buffer
		if err := run(context.Background(), &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := out.String()
		if strings.ContainsAny(got, "\x1b\x07\r\u009b\u009d\u009c") {
			t.Errorf("%s printed control characters: %q", name, got)
		}
		if !strings.Contains(got, "server ␛]52;c;ZXZpbA==␇") || !strings.Contains(got, "bye ␛[31mred\n") {
			t.Errorf("%s printed %q", name, got)
		}
	}
}

// A server that is ending has removed its socket and still holds the
// home's lock: a client that wakes it (SIGUSR1) takes the lock's release
// as the end and starts the next server, instead of waiting 5 s for a
// socket and saying the server does not answer (seen in
// TestPassedTerminalLeftBlocking: an attach right after a detach).
func TestWakeServerSeesTheEnd(t *testing.T) {
	home := t.TempDir()
	d := dirs.Dirs{State: filepath.Join(home, "state"), Runtime: filepath.Join(home, "run")}
	if err := os.MkdirAll(d.State, 0o700); err != nil {
		t.Fatal(err)
	}
	// This process plays the ending server: it holds the lock, takes the
	// SIGUSR1, and releases the lock a moment later.
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	defer signal.Stop(usr1)
	release, err := dirs.LockHome(d.State)
	if err != nil {
		t.Fatal(err)
	}
	go func() { <-usr1; time.Sleep(100 * time.Millisecond); release() }()
	noSock := errors.New("no socket")
	start := time.Now()
	_, err = wakeServer(d, filepath.Join(d.Runtime, "server.sock"), noSock)
	if err != noSock {
		t.Fatalf("wakeServer: %v, want the dial's error (no server: start one)", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("wakeServer took %v to see the server's end", took)
	}
}
