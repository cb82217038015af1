package web

// The page's two WebSockets: /ws carries the control protocol's lines
// (docs/control.md), one message a line; /term streams one seat's
// terminal as its emulator draws it and takes the person's keys.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/control"
)

// wsConn is a WebSocket whose writes are serialised.
type wsConn struct {
	c  *websocket.Conn
	mu sync.Mutex
}

func (w *wsConn) send(typ int, b []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	_ = w.c.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return w.c.WriteMessage(typ, b)
}

func (w *wsConn) Close() error { return w.c.Close() }

// lineWriter sends each line written as one text message.
type lineWriter struct {
	w      *wsConn
	rest   []byte
	shown  string // the topic a terminal shows last, for the ready line
	screen string // this browser's name as a screen ("browser N")
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.rest = append(l.rest, p...)
	for {
		i := bytes.IndexByte(l.rest, '\n')
		if i < 0 {
			return len(p), nil
		}
		line := readyLine(l.rest[:i], l.shown, l.screen)
		l.rest = l.rest[i+1:]
		if err := l.w.send(websocket.TextMessage, line); err != nil {
			return len(p), err
		}
	}
}

// readyLine drops the room socket's address and token from the ready
// line (they are the seats', and a browser has no use for them) and adds
// "shown", the topic a terminal showed last, which the page opens as a new
// screen does, and "screen", the name its answers and seen posts are
// recorded under (as a terminal's are "terminal N").
func readyLine(line []byte, shown, screen string) []byte {
	if !bytes.HasPrefix(line, []byte(`{"event":"ready"`)) {
		return line
	}
	var m map[string]any
	if json.Unmarshal(line, &m) != nil {
		return []byte(`{"event":"ready"}`)
	}
	delete(m, "token")
	delete(m, "url")
	if shown != "" {
		m["shown"] = shown
	}
	m["screen"] = screen
	b, _ := json.Marshal(m)
	return b
}

func (s *Server) upgrade(w http.ResponseWriter, r *http.Request) (*wsConn, func(), bool) {
	c, err := s.up.Upgrade(w, r, nil)
	if err != nil {
		return nil, nil, false // the upgrader answered
	}
	c.SetReadLimit(control.MaxLine)
	wc := &wsConn{c: c}
	done, ok := s.track(wc)
	if !ok {
		c.Close()
		return nil, nil, false
	}
	return wc, done, true
}

// control runs one browser's control session.
func (s *Server) control(w http.ResponseWriter, r *http.Request) {
	wc, done, ok := s.upgrade(w, r)
	if !ok {
		return
	}
	defer done()
	defer wc.Close()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	pr, pw := io.Pipe()
	go func() {
		defer cancel()
		for {
			typ, b, err := wc.c.ReadMessage()
			if err != nil {
				pw.Close()
				return
			}
			if typ != websocket.TextMessage {
				continue
			}
			// One message is one line: a newline inside would be two.
			b = bytes.ReplaceAll(b, []byte("\n"), []byte(" "))
			if _, err := pw.Write(append(b, '\n')); err != nil {
				return
			}
		}
	}()
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("web: the control session failed", "panic", fmt.Sprint(p))
		}
	}()
	s.mu.Lock()
	s.nextID++
	lw := &lineWriter{w: wc, screen: fmt.Sprintf("browser %d", s.nextID)}
	s.mu.Unlock()
	if s.o.Topic != nil {
		lw.shown = s.o.Topic()
	}
	if err := (&control.Server{App: s.o.App}).Serve(ctx, pr, lw); err != nil {
		s.log.Warn("web: control session", "err", err)
	}
	pr.Close()
}

// termFrame is one picture of a seat's terminal: its size and the bytes
// that draw it on an emulator of that size (the pane's cells as SGR text:
// what the seat wrote was cleaned by the server's emulator, never relayed).
type termFrame struct {
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
	Data  string `json:"data,omitempty"`
	State string `json:"state,omitempty"` // "" while the pane runs; else why there is none
}

// terminal streams the seat's pane named by ?topic=&account= and types
// the keys the page sends ({"keys":TEXT}) as the person's.
func (s *Server) terminal(w http.ResponseWriter, r *http.Request) {
	topic, account := r.URL.Query().Get("topic"), r.URL.Query().Get("account")
	wc, done, ok := s.upgrade(w, r)
	if !ok {
		return
	}
	defer done()
	defer wc.Close()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	a := s.o.App
	wish := func(cols, rows int) {}
	if s.o.PaneSize != nil {
		var leave func()
		wish, leave = s.o.PaneSize(topic, account)
		defer leave()
	}
	go func() {
		defer cancel()
		for {
			typ, b, err := wc.c.ReadMessage()
			if err != nil {
				return
			}
			var in struct {
				Keys string `json:"keys"`
				Cols int    `json:"cols"` // the browser's size for the pane
				Rows int    `json:"rows"`
			}
			if typ != websocket.TextMessage || json.Unmarshal(b, &in) != nil || in.Keys == "" {
				continue
			}
			// The person's keys, as a terminal client's: the typist
			// counts them as unsent input (its hold), and the browser's
			// size, when it says one, becomes the pane's.
			if in.Cols >= 20 && in.Rows >= 5 && in.Cols <= 500 && in.Rows <= 200 {
				wish(in.Cols, in.Rows)
			}
			if p, err := a.Pane(topic, account); err == nil {
				_, _ = p.Write([]byte(in.Keys))
			}
		}
	}()
	states, output, stop := a.WatchSeatsAndOutput()
	defer stop()
	last := ""
	tick := time.NewTicker(40 * time.Millisecond) // at most 25 pictures a second
	defer tick.Stop()
	dirty := true
	for {
		if dirty {
			dirty = false
			f := termFrame{}
			if p, err := a.Pane(topic, account); err != nil {
				f.State = err.Error()
			} else {
				f.Cols, f.Rows = p.Size()
				x, y, vis := p.Cursor()
				var b strings.Builder
				b.WriteString("\x1b[?25l\x1b[0m\x1b[H\x1b[2J")
				b.WriteString(strings.ReplaceAll(p.Render(), "\n", "\x1b[0m\r\n"))
				fmt.Fprintf(&b, "\x1b[0m\x1b[%d;%dH", y+1, x+1)
				if vis {
					b.WriteString("\x1b[?25h")
				}
				f.Data = b.String()
			}
			msg, _ := json.Marshal(f)
			if string(msg) != last {
				last = string(msg)
				if wc.send(websocket.TextMessage, msg) != nil {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-states:
			dirty = true
		case <-output:
			dirty = true
		}
		select { // gather a burst of output into one picture
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
