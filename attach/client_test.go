package attach_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
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
	t.Parallel()
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
		_ = server.WriteJSON(attach.FrameExec, attach.Exec{Argv: []string{"sh", "-c", "printf two,"}})
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
