package attach_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"pullcept/attach"
)

// The terminal client writes the server's output in the order it was
// sent, also around a program it runs on the terminal: output the server
// sent after an Exec (without waiting for ExecDone) comes after the
// program's own output, and the Exit ends the session with its code.
func TestRunTerminalOutputAroundExec(t *testing.T) {
	dir := t.TempDir()
	pager := writeScript(t, dir, "pager", "printf two,")
	t.Setenv("PAGER", pager)
	file := writeFile(t, dir, "shown.txt")
	inR, inW, err := os.Pipe() // the terminal's keys: none are typed
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	cs, ss := socketPair(t) // buffered, as the real socket is
	defer cs.Close()
	defer ss.Close()
	client, server := attach.NewConn(cs), attach.NewConn(ss)

	serverDone := make(chan attach.ExecDone, 1)
	go func() {
		_ = server.Write(attach.FrameOutput, []byte("one,"))
		_ = server.WriteJSON(attach.FrameExec, attach.Exec{Role: attach.RolePager, Paths: []string{file}})
		_ = server.Write(attach.FrameOutput, []byte("three,"))
		for {
			typ, b, err := server.Read()
			if err != nil {
				return
			}
			if typ == attach.FrameExecDone {
				var d attach.ExecDone
				_ = json.Unmarshal(b, &d)
				serverDone <- d
				_ = server.Write(attach.FrameOutput, []byte("four"))
				_ = server.WriteJSON(attach.FrameExit, attach.Exit{Code: 7})
				return
			}
		}
	}()
	type result struct {
		e   attach.Exit
		err error
	}
	ran := make(chan result, 1)
	go func() {
		e, err := attach.RunTerminal(context.Background(), client, inR, outW)
		outW.Close()
		ran <- result{e, err}
	}()
	got, err := io.ReadAll(outR)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-ran:
		if r.err != nil || r.e.Code != 7 {
			t.Fatalf("RunTerminal: %+v, %v; want the Exit with code 7", r.e, r.err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("RunTerminal did not return after the Exit")
	}
	if d := <-serverDone; d.Code != 0 || d.Error != "" {
		t.Errorf("ExecDone %+v, want code 0", d)
	}
	if string(got) != "one,two,three,four" {
		t.Fatalf("the terminal got %q, want %q", got, "one,two,three,four")
	}
}

// socketPair is two connected Unix stream sockets.
func socketPair(t *testing.T) (net.Conn, net.Conn) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	var conns [2]net.Conn
	for i, fd := range fds {
		f := os.NewFile(uintptr(fd), "socketpair")
		c, err := net.FileConn(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = c
	}
	return conns[0], conns[1]
}

// writeScript writes an executable sh script named name in dir.
func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// writeFile makes an empty file named name in dir.
func writeFile(t *testing.T, dir, name string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// runExecs plays a server that sends each of xs (the next after the
// client's answer to the last) and then Exit; it returns the answers.
func runExecs(t *testing.T, xs []any) []attach.ExecDone {
	t.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer inR.Close()
	defer inW.Close()
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	cs, ss := socketPair(t)
	defer cs.Close()
	defer ss.Close()
	client, server := attach.NewConn(cs), attach.NewConn(ss)
	answers := make(chan []attach.ExecDone, 1)
	go func() {
		var got []attach.ExecDone
		defer func() { answers <- got }()
		for _, x := range xs {
			if err := server.WriteJSON(attach.FrameExec, x); err != nil {
				return
			}
			var d attach.ExecDone
			if err := server.ReadJSON(attach.FrameExecDone, &d); err != nil {
				return
			}
			got = append(got, d)
		}
		_ = server.WriteJSON(attach.FrameExit, attach.Exit{})
	}()
	done := make(chan error, 1)
	go func() { _, err := attach.RunTerminal(context.Background(), client, inR, devnull); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("RunTerminal: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("RunTerminal did not end")
	}
	return <-answers
}

// An Exec names a role; the client runs the person's program for it, with
// "--" before the paths, and refuses anything else without running a
// thing: an impostor server must not pass flags or commands to an editor
// (issue "Hardening 2", finding 1).
func TestExecRoles(t *testing.T) {
	dir := t.TempDir()
	argvFile := filepath.Join(dir, "argv")
	ran := filepath.Join(dir, "ran")
	// The fake editor and pager write their arguments, one a line.
	editor := writeScript(t, dir, "editor", `printf '%s\n' "$@" >`+argvFile)
	pager := writeScript(t, dir, "pager", `printf 'pager\n' >`+argvFile+`; printf '%s\n' "$@" >>`+argvFile)
	t.Setenv("VISUAL", "")
	t.Setenv("EDITOR", editor)
	t.Setenv("PAGER", pager)
	t.Setenv("PULLCEPT_OPEN", "")
	file := writeFile(t, dir, "post.md")
	other := filepath.Join(dir, "link.md")
	if err := os.Symlink(file, other); err != nil {
		t.Fatal(err)
	}
	// Each hostile request, were it run, would touch ran.
	touch := "touch " + ran
	hostile := []any{
		attach.Exec{Role: attach.RoleEditor, Paths: []string{"-c", "!" + touch}},
		attach.Exec{Role: attach.RoleEditor, Paths: []string{"+:!" + touch}},
		attach.Exec{Role: attach.RoleEditor, Paths: []string{"post.md"}},
		attach.Exec{Role: attach.RoleEditor, Paths: []string{dir + "/../" + filepath.Base(dir) + "/post.md"}},
		attach.Exec{Role: attach.RoleEditor, Paths: []string{file, "-c"}},
		attach.Exec{Role: attach.RoleEditor, Paths: []string{file + "\n" + touch}},
		attach.Exec{Role: attach.RoleEditor, Paths: []string{other}},       // a symlink
		attach.Exec{Role: attach.RoleEditor, Paths: []string{"/dev/null"}}, // not a regular file
		attach.Exec{Role: attach.RoleEditor},
		attach.Exec{Role: "shell", Paths: []string{file}},
		attach.Exec{Role: "", Paths: []string{file}},
		map[string]any{"argv": []string{"sh", "-c", touch}}, // protocol 1's shape
		map[string]any{"role": "editor", "paths": []string{file}, "env": []string{"EDITOR=sh -c '" + touch + "'"}},
	}
	answers := runExecs(t, hostile)
	if len(answers) != len(hostile) {
		t.Fatalf("%d answers to %d requests", len(answers), len(hostile))
	}
	for i, d := range answers {
		if i == len(answers)-1 { // unknown members are ignored: a good request
			if d.Code != 0 {
				t.Errorf("a good request with an env member: answer %+v", d)
			}
			continue
		}
		if d.Code != -1 || !strings.Contains(d.Error, "refused") {
			t.Errorf("request %d (%v): answer %+v, want refused", i, hostile[i], d)
		}
	}
	if _, err := os.Stat(ran); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a hostile request ran a command (%v)", err)
	}

	// Good requests: the resolved program, "--", the path.
	for _, c := range []struct {
		x    attach.Exec
		want []string
	}{
		{attach.Exec{Role: attach.RoleEditor, Paths: []string{file}}, []string{"--", file}},
		{attach.Exec{Role: attach.RolePager, Paths: []string{file}}, []string{"pager", "--", file}},
		{attach.Exec{Role: attach.RoleOpener, Paths: []string{file, file}}, []string{"pager", "--", file, file}}, // no desktop here: the pager
	} {
		os.Remove(argvFile)
		t.Setenv("DISPLAY", "")
		t.Setenv("WAYLAND_DISPLAY", "")
		d := runExecs(t, []any{c.x})
		if len(d) != 1 || d[0] != (attach.ExecDone{}) {
			t.Fatalf("%+v: answer %+v", c.x, d)
		}
		b, err := os.ReadFile(argvFile)
		if err != nil {
			t.Fatalf("%+v: the program did not run: %v", c.x, err)
		}
		if got := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); !slices.Equal(got, c.want) {
			t.Errorf("%+v ran with %q, want %q", c.x, got, c.want)
		}
	}
	// The editor's word-split command line is the person's own.
	t.Setenv("EDITOR", editor+" --wait")
	os.Remove(argvFile)
	if d := runExecs(t, []any{attach.Exec{Role: attach.RoleEditor, Paths: []string{file}}}); len(d) != 1 || d[0].Code != 0 {
		t.Fatalf("answer %+v", d)
	}
	if b, _ := os.ReadFile(argvFile); string(b) != "--wait\n--\n"+file+"\n" {
		t.Errorf("EDITOR with a flag ran with %q", b)
	}
}
