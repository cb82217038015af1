package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// tmuxServer is a tmux server on a private socket (-L) with a config file
// of its own: history-limit 10000, Pullcept's scrollback, so both keep the
// same history; everything else is tmux's default.
type tmuxServer struct {
	sock string
	conf string
}

var tmuxCount atomic.Int64

// tmuxEnv is this environment without the variables of an enclosing tmux.
func tmuxEnv() []string {
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "TMUX" || name == "TMUX_PANE" {
			continue
		}
		out = append(out, kv)
	}
	return out
}

// newTmux returns a server handle (nothing runs until a session is made);
// extra lines go into its config file.
func newTmux(extra ...string) (*tmuxServer, error) {
	n := tmuxCount.Add(1)
	t := &tmuxServer{sock: fmt.Sprintf("pcbench-%d-%d", os.Getpid(), n)}
	t.conf = filepath.Join(opts.work, t.sock+".conf")
	conf := "set -g history-limit 10000\n" + strings.Join(extra, "\n") + "\n"
	if err := os.WriteFile(t.conf, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	atCleanup(func() {
		t.Kill()
		os.Remove(t.conf)
	})
	return t, nil
}

// argv is the tmux command line for args on this server.
func (t *tmuxServer) argv(args ...string) []string {
	return append([]string{"tmux", "-u", "-L", t.sock, "-f", t.conf}, args...)
}

// Run runs one tmux command and returns its output.
func (t *tmuxServer) Run(args ...string) (string, error) {
	a := t.argv(args...)
	cmd := exec.Command(a[0], a[1:]...)
	cmd.Env = tmuxEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Pid is the server's process id.
func (t *tmuxServer) Pid() (int, error) {
	out, err := t.Run("display-message", "-p", "#{pid}")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(out))
}

// Kill ends the server and its panes.
func (t *tmuxServer) Kill() {
	a := t.argv("kill-server")
	cmd := exec.Command(a[0], a[1:]...)
	cmd.Env = tmuxEnv()
	_ = cmd.Run()
}

// WaitCapture polls capture-pane of target (plain tmux commands) until it
// holds needle.
func (t *tmuxServer) WaitCapture(target, needle string, timeout, interval time.Duration) error {
	return waitUntil("tmux pane "+target+" showing "+needle, timeout, interval, func() (bool, error) {
		out, err := t.Run("capture-pane", "-p", "-t", target)
		return strings.Contains(out, needle), err
	})
}

// tmuxCtl is a control-mode client (tmux -C): one process for many
// commands, so polling does not start a tmux client per poll. It is
// attached to a session of its own and asks for no pane output.
type tmuxCtl struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	r   *bufio.Reader
}

// Control attaches a control client to session.
func (t *tmuxServer) Control(session string) (*tmuxCtl, error) {
	a := t.argv("-C", "attach-session", "-t", session)
	cmd := exec.Command(a[0], a[1:]...)
	cmd.Env = tmuxEnv()
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &tmuxCtl{cmd: cmd, in: in, r: bufio.NewReaderSize(out, 1<<16)}
	atCleanup(c.Close)
	// Blocks (the attach's own, notifications) may come first: skip up to
	// the answer to a marker command, then it is one block per command.
	// A command that reaches the server before the attach is done fails
	// with "no current client" (tmux 3.3a, about one start in three): then
	// it is sent again.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if _, err := fmt.Fprintf(in, "refresh-client -f no-output\n"); err != nil {
			return nil, err
		}
		var err error
		for own := false; !own; { // the attach's own block is not the answer
			_, own, err = c.readBlock()
			if err != nil && !own {
				return nil, fmt.Errorf("tmux control client: %w", err)
			}
		}
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "no current client") || time.Now().After(deadline) {
			return nil, fmt.Errorf("tmux control client: %w", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := fmt.Fprintf(in, "display-message -p pcbench-sync\n"); err != nil {
		return nil, err
	}
	for {
		lines, err := c.block()
		if err != nil {
			return nil, fmt.Errorf("tmux control client: %w", err)
		}
		if len(lines) == 1 && lines[0] == "pcbench-sync" {
			return c, nil
		}
	}
}

// block reads up to the next %begin … %end/%error block and returns its
// lines.
func (c *tmuxCtl) block() ([]string, error) {
	lines, _, err := c.readBlock()
	return lines, err
}

// readBlock is block, also saying whether the block answers a command
// this client sent (flags 1) rather than one tmux ran for it (the attach).
func (c *tmuxCtl) readBlock() (lines []string, own bool, err error) {
	num := ""
	for {
		l, err := c.r.ReadString('\n')
		if err != nil {
			return nil, false, err
		}
		l = strings.TrimRight(l, "\r\n")
		if strings.HasPrefix(l, "%begin ") {
			f := strings.Fields(l)
			if len(f) >= 3 {
				num = f[2]
			}
			own = len(f) >= 4 && f[3] == "1"
			break
		}
	}
	for {
		l, err := c.r.ReadString('\n')
		if err != nil {
			return nil, own, err
		}
		l = strings.TrimRight(l, "\r\n")
		if strings.HasPrefix(l, "%end ") || strings.HasPrefix(l, "%error ") {
			f := strings.Fields(l)
			if len(f) >= 3 && f[2] == num {
				if strings.HasPrefix(l, "%error ") {
					return lines, own, errors.New(strings.Join(lines, "; "))
				}
				return lines, own, nil
			}
		}
		lines = append(lines, l)
	}
}

// Do runs one command and returns its output lines.
func (c *tmuxCtl) Do(command string) ([]string, error) {
	if _, err := io.WriteString(c.in, command+"\n"); err != nil {
		return nil, err
	}
	return c.block()
}

// Close detaches the control client.
func (c *tmuxCtl) Close() {
	c.in.Close()
	done := make(chan struct{})
	go func() { _ = c.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		_ = c.cmd.Process.Kill()
		<-done
	}
}

// WaitCapture polls capture-pane of target until it holds needle.
func (c *tmuxCtl) WaitCapture(target, needle string, timeout, interval time.Duration) error {
	return waitUntil("tmux pane "+target+" showing "+needle, timeout, interval, func() (bool, error) {
		lines, err := c.Do("capture-pane -p -t " + target)
		return strings.Contains(strings.Join(lines, "\n"), needle), err
	})
}

// shQuote quotes s for sh (and tmux's command parser).
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
