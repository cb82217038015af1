package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// serveProc is a running `pullcept serve`, spoken to in JSON lines
// (docs/control.md). Events that are not answers are counted and dropped.
type serveProc struct {
	cmd   *exec.Cmd
	in    io.WriteCloser
	Ready struct {
		URL   string `json:"url"`
		Token string `json:"token"`
		Topic string `json:"topic"`
	}
	Home string

	wmu     sync.Mutex
	mu      sync.Mutex
	waiting map[string]chan map[string]any
	nextID  int
	Events  atomic.Int64
	exited  chan struct{}
}

// startServe runs `pullcept serve` with PULLCEPT_HOME=home and waits for its
// ready line.
func startServe(home string) (*serveProc, error) {
	cmd := exec.Command(opts.bin, "serve")
	cmd.Env = append(os.Environ(), "PULLCEPT_HOME="+home)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errf, err := os.Create(filepath.Join(home, "serve.stderr"))
	if err != nil {
		return nil, err
	}
	cmd.Stderr = errf
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	errf.Close()
	s := &serveProc{cmd: cmd, in: in, Home: home, waiting: map[string]chan map[string]any{}, exited: make(chan struct{})}
	atCleanup(s.Close)
	go func() { _ = cmd.Wait(); close(s.exited) }()

	r := bufio.NewReaderSize(out, 1<<20)
	ready := make(chan error, 1)
	go func() {
		line, err := r.ReadBytes('\n')
		if err != nil {
			ready <- fmt.Errorf("serve ended before its ready line: %w (see %s/serve.stderr)", err, home)
			return
		}
		if err := json.Unmarshal(line, &s.Ready); err != nil || s.Ready.Topic == "" {
			ready <- fmt.Errorf("serve: bad ready line %q", line)
			return
		}
		ready <- nil
		s.readLoop(r)
	}()
	select {
	case err := <-ready:
		if err != nil {
			return nil, err
		}
	case <-time.After(15 * time.Second):
		return nil, errors.New("serve: no ready line after 15 s")
	}
	return s, nil
}

func (s *serveProc) readLoop(r *bufio.Reader) {
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var m map[string]any
			if json.Unmarshal(line, &m) == nil {
				if id, ok := m["id"].(string); ok {
					s.mu.Lock()
					c := s.waiting[id]
					delete(s.waiting, id)
					s.mu.Unlock()
					if c != nil {
						c <- m
						continue
					}
				}
			}
			s.Events.Add(1)
		}
		if err != nil {
			return
		}
	}
}

// Pid is the serve process's id.
func (s *serveProc) Pid() int { return s.cmd.Process.Pid }

// Call sends one command and returns its answer; an "error" answer is an
// error.
func (s *serveProc) Call(cmd map[string]any) (map[string]any, error) {
	s.mu.Lock()
	s.nextID++
	id := fmt.Sprintf("b%d", s.nextID)
	c := make(chan map[string]any, 1)
	s.waiting[id] = c
	s.mu.Unlock()
	cmd["id"] = id
	b, err := json.Marshal(cmd)
	if err != nil {
		return nil, err
	}
	s.wmu.Lock()
	_, err = s.in.Write(append(b, '\n'))
	s.wmu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("serve %s: %w", cmd["cmd"], err)
	}
	select {
	case m := <-c:
		if m["event"] == "error" {
			return m, fmt.Errorf("serve %s: %v", cmd["cmd"], m["error"])
		}
		return m, nil
	case <-s.exited:
		return nil, fmt.Errorf("serve %s: serve exited (see %s/serve.stderr)", cmd["cmd"], s.Home)
	case <-time.After(30 * time.Second):
		return nil, fmt.Errorf("serve %s: no answer after 30 s", cmd["cmd"])
	}
}

// Start starts account's seat in the current topic.
func (s *serveProc) Start(account string) error {
	_, err := s.Call(map[string]any{"cmd": "start", "account": account, "topic": s.Ready.Topic})
	return err
}

// Screen is account's pane as plain text.
func (s *serveProc) Screen(account string) (string, error) {
	m, err := s.Call(map[string]any{"cmd": "screen", "account": account, "topic": s.Ready.Topic})
	if err != nil {
		return "", err
	}
	res, _ := m["result"].(map[string]any)
	scr, _ := res["screen"].(string)
	return scr, nil
}

// WaitScreen polls account's screen every interval until it holds needle.
func (s *serveProc) WaitScreen(account, needle string, timeout, interval time.Duration) error {
	return waitUntil(account+"'s pane showing "+needle, timeout, interval, func() (bool, error) {
		scr, err := s.Screen(account)
		return strings.Contains(scr, needle), err
	})
}

// Close ends serve by closing its input (it stops its seats), killing it
// if it has not gone after 10 s.
func (s *serveProc) Close() {
	s.in.Close()
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}
