// Package control is the headless control mode (`pullcept serve`): a run
// of the app driven by JSON lines on stdin, reporting on stdout. The
// protocol is documented in docs/control.md.
package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pullcept/app"
)

// MaxLine bounds one command line.
const MaxLine = 4 << 20

// Server answers control commands.
type Server struct {
	App *app.App

	outMu   sync.Mutex
	enc     *json.Encoder
	current string
}

// Command is one input line.
type Command struct {
	Cmd      string `json:"cmd"`
	ID       any    `json:"id,omitempty"` // echoed on the answer
	Topic    string `json:"topic,omitempty"`
	Content  string `json:"content,omitempty"`
	LastSeen string `json:"last_seen,omitempty"`
	Name     string `json:"name,omitempty"`
	Account  string `json:"account,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	Keys     string `json:"keys,omitempty"`     // "keys": bytes typed into a seat's terminal as the person
	Nickname string `json:"nickname,omitempty"` // "nickname": what the room calls Account ("" clears it)
	Clear    string `json:"clear,omitempty"`    // "release": the unsent text it reported, to clear and type the held posts
	// Attachments are absolute paths of files a post attaches: each is
	// saved under the topic and named in the body (app.PostWith).
	Attachments []string `json:"attachments,omitempty"`
	// "answer": the needs-you item, the answer's id and the screen
	// answering ("" = "serve"); "needs" with Answered and Topic: the
	// topic's record of answers.
	Item     string `json:"item,omitempty"`
	Answer   string `json:"answer,omitempty"`
	Screen   string `json:"screen,omitempty"`
	Answered bool   `json:"answered,omitempty"`
}

// TopicInfo is a topic in the "topics" answer.
type TopicInfo struct {
	ID       string            `json:"id"`
	Name     string            `json:"name,omitempty"`
	Created  string            `json:"created,omitempty"`
	HasPosts bool              `json:"has_posts"`
	Missing  bool              `json:"missing,omitempty"`
	Sessions map[string]string `json:"sessions,omitempty"`
	Current  bool              `json:"current,omitempty"`
	Open     bool              `json:"open,omitempty"`
}

type line map[string]any

// Serve writes the ready line, then answers commands from in until it ends
// or ctx is done. Events of the engine are written as they happen.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	s.enc = json.NewEncoder(out)
	s.enc.SetEscapeHTML(false)
	cur, err := s.App.NewTopic()
	if err != nil {
		return err
	}
	s.current = cur
	sub := s.App.Subscribe()
	defer sub.Close()
	ready := line{"event": "ready", "url": s.App.URL(), "token": s.App.Token(), "topic": s.current}
	if n := s.App.Notice(); n != "" {
		ready["notice"] = n // config problems, a rebuilt topic index
	}
	s.write(ready)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	// A panic in one of the goroutines below is raised again in Serve's
	// own, where the caller (the server, for one client) can recover it.
	faults := make(chan *Panic, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer catch(faults)
		s.forward(ctx, sub)
	}()
	defer wg.Wait()
	defer cancel()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() { // ends when in ends; the owner of in closes it
		defer catch(faults)
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			b, err := readLine(r)
			if len(b) > 0 || errors.Is(err, errTooLong) {
				select {
				case lines <- b:
				case <-ctx.Done():
					return
				}
			}
			if errors.Is(err, errTooLong) {
				continue
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case p := <-faults:
			panic(p)
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("control input: %w", err)
		case b := <-lines:
			if b == nil {
				s.write(line{"event": "error", "error": fmt.Sprintf("line longer than %d bytes ignored", MaxLine)})
				continue
			}
			s.write(s.handle(ctx, b))
		}
	}
}

var errTooLong = errors.New("line too long")

// Panic is a panic recovered in one of Serve's goroutines and raised again
// in Serve's own: Value is what was panicked with, Stack where.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string { return fmt.Sprintf("control: panic: %v", p.Value) }

// catch is deferred by Serve's goroutines: it hands a panic to Serve.
func catch(faults chan<- *Panic) {
	if r := recover(); r != nil {
		faults <- &Panic{Value: r, Stack: debug.Stack()}
	}
}

// readLine reads one line; a line over MaxLine is skipped whole and
// reported as (nil, errTooLong).
func readLine(r *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLine {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = r.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, bufio.ErrBufferFull) && !errors.Is(err, io.EOF) {
				return nil, err
			}
			return nil, errTooLong
		}
		buf = append(buf, chunk...)
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(buf) > 0 && buf[len(buf)-1] == '\n' {
			buf = buf[:len(buf)-1]
		}
		return buf, err
	}
}

func (s *Server) write(v any) {
	s.outMu.Lock()
	defer s.outMu.Unlock()
	_ = s.enc.Encode(v) // a closed stdout ends the run through stdin
}

// forward writes the run's events.
func (s *Server) forward(ctx context.Context, sub *app.Subscription) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.C:
			if !ok {
				return
			}
			switch ev.Kind {
			case app.EventRoom:
				s.writeRoom(ev.Room)
			case app.EventSeat:
				s.write(seatLine(ev.Seat))
			case app.EventDelivery:
				s.write(deliveryLine(ev.Delivery))
			case app.EventNeedsList:
				s.write(line{"event": "needs", "change": ev.List})
			case app.EventResync:
				s.write(line{"event": "resync", "reason": "the event stream fell behind and events were lost; read again what you show (topics, open, seats)"})
			}
		}
	}
}

func (s *Server) writeRoom(ev app.RoomEvent) {
	switch ev.Kind {
	case app.RoomPost:
		s.write(line{"event": "post", "topic": ev.Topic, "role": ev.Role, "own": ev.Own, "post": ev.Post})
	case app.RoomRoster:
		s.write(line{"event": "roster", "topic": ev.Topic, "participants": ev.Participants})
	case app.RoomLogError:
		s.write(line{"event": "log_error", "topic": ev.Topic, "error": ev.Err})
	case app.RoomLoop:
		l := loopLine(ev.Loop)
		l["event"] = "agent_loop"
		s.write(l)
	case app.RoomUsage:
		// The figures themselves, as my_usage's request answers them.
		l := line{"event": "usage", "topic": ev.Topic, "account": ev.Account}
		if u, ok := s.App.Usage(ev.Topic, ev.Account); ok {
			var m line
			b, _ := json.Marshal(u.Result()) // plain fields: cannot fail
			_ = json.Unmarshal(b, &m)
			delete(m, "type")
			delete(m, "request_id")
			l["usage"] = m
		}
		s.write(l)
	}
}

// seatLine is a seat event as a line: {"event":"seat",...} for its life,
// {"event":"activity",...} for its activity and held posts.
func seatLine(ev app.SeatEvent) line {
	b, _ := json.Marshal(ev) // plain fields: cannot fail
	var m line
	_ = json.Unmarshal(b, &m)
	m["event"] = "seat"
	if ev.Type == app.SeatActivity {
		m["event"] = "activity"
		delete(m, "type")
		delete(m, "state")
	}
	return m
}

// deliveryLine is a post's delivery mark in a seat:
// {"event":"delivery","topic":…,"message_id":…,"account":…,"mark":…,"why":…}.
func deliveryLine(d app.Delivery) line {
	l := line{"event": "delivery", "topic": d.Topic, "message_id": d.MessageID, "account": d.Account, "mark": d.Mark}
	if d.Why != "" {
		l["why"] = d.Why
	}
	return l
}

// loopLine is a topic's loop count: the agents' posts since the person's
// last post, the budget, how many are held, and the sentence for the
// person ("Lin and Lay have exchanged 12 posts without you").
func loopLine(st app.LoopState) line {
	mode := "tell"
	if st.Hold {
		mode = "hold"
	}
	l := line{"topic": st.Topic, "count": st.Count, "budget": st.Budget, "limit": st.Limit, "held": st.Held, "mode": mode, "reached": st.Reached(), "speakers": st.Speakers}
	if st.Count > 0 {
		l["text"] = st.Text()
	}
	return l
}

func errLine(c Command, format string, a ...any) line {
	l := line{"event": "error", "error": fmt.Sprintf(format, a...)}
	if c.Cmd != "" {
		l["cmd"] = c.Cmd
	}
	if c.ID != nil {
		l["id"] = c.ID
	}
	return l
}

func (s *Server) handle(ctx context.Context, b []byte) line {
	var c Command
	if err := json.Unmarshal(b, &c); err != nil {
		return errLine(c, "bad JSON: %v", err)
	}
	res := s.run(ctx, c)
	if c.ID != nil {
		res["id"] = c.ID
	}
	return res
}

func (s *Server) run(ctx context.Context, c Command) line {
	switch c.Cmd {
	case "post":
		atts, err := attachments(c.Attachments)
		if err != nil {
			return errLine(c, "post not delivered: %v", err)
		}
		o, atts, err := s.App.PostWith(c.Topic, c.Content, c.LastSeen, atts)
		if err != nil {
			return errLine(c, "post not delivered: %v", err)
		}
		res := line{"event": "post_result", "topic": c.Topic, "delivered": o.Delivered}
		if len(atts) > 0 {
			saved := make([]string, len(atts))
			for i, at := range atts {
				saved[i] = at.Saved
			}
			res["attachments"] = saved // a retry may send these: they are not saved again
		}
		if !o.Delivered {
			res["missed"] = o.Missed
			return res
		}
		res["message_id"] = o.Post.MessageID
		return res
	case "new":
		id, err := s.App.NewTopic()
		if err != nil {
			return errLine(c, "%v", err)
		}
		s.current = id
		return line{"event": "new", "topic": s.current}
	case "open":
		o, err := s.App.Open(c.Topic, c.Limit)
		if err != nil {
			return errLine(c, "%v", err)
		}
		s.current = c.Topic
		return line{"event": "opened", "topic": c.Topic, "posts": o.Posts, "has_more": o.HasMore, "skipped": o.Skipped, "participants": o.Participants}
	case "rename":
		if err := s.App.Rename(c.Topic, c.Name); err != nil {
			return errLine(c, "%v", err)
		}
		return line{"event": "renamed", "topic": c.Topic, "name": c.Name}
	case "delete":
		return s.delete(ctx, c)
	case "nickname":
		name, err := s.App.SetNickname(c.Account, c.Nickname)
		if err != nil {
			return errLine(c, "nickname: %v", err)
		}
		return line{"event": "nickname", "account": c.Account, "name": name}
	case "topics":
		return s.topics(c)
	case "loop":
		l := loopLine(s.App.Loop(c.Topic))
		l["event"] = "loop"
		return l
	case "go_on":
		st, ok, err := s.App.GoOn(c.Topic)
		if err != nil {
			return errLine(c, "go_on: %v", err)
		}
		l := loopLine(st)
		l["event"], l["released"] = "go_on", ok
		return l
	case "needs", "answer", "seen":
		return s.needs(c)
	case "start", "stop", "restart", "seats", "screen", "keys", "release":
		res, err := s.seat(ctx, c)
		if err != nil {
			return errLine(c, "%s: %v", c.Cmd, err)
		}
		return line{"event": c.Cmd, "topic": c.Topic, "account": c.Account, "result": res}
	case "":
		return errLine(c, `missing "cmd"`)
	default:
		return errLine(c, "unknown command %q (want post, new, open, rename, delete, nickname, topics, loop, go_on, start, stop, restart, release, seats, screen, keys, needs, answer, seen)", c.Cmd)
	}
}

// seat runs a seat command.
func (s *Server) seat(ctx context.Context, c Command) (any, error) {
	switch c.Cmd {
	case "start":
		return s.App.StartSeat(ctx, c.Topic, c.Account)
	case "restart":
		return s.App.RestartSeat(ctx, c.Topic, c.Account)
	case "stop":
		return map[string]bool{"stopped": true}, s.App.StopSeat(c.Topic, c.Account, "stopped from the control mode")
	case "release":
		// "clear": the unsent text a release reported, to clear it and
		// type the held posts (the person's second word).
		var out app.ReleaseOutcome
		var err error
		if c.Clear != "" {
			out, err = s.App.ClearUnsentSeat(c.Topic, c.Account, c.Clear)
		} else {
			out, err = s.App.ReleaseSeat(c.Topic, c.Account)
		}
		return map[string]any{"released": out.Done, "held": out.Held, "hold": out.Was.Text, "hold_kind": out.Was.Kind, "unsent": out.Unsent, "note": out.Note}, err
	case "seats":
		out := []map[string]any{}
		for _, st := range s.App.Seats(c.Topic) {
			out = append(out, map[string]any{"account": st.Account, "state": st.State, "activity": st.Activity, "held": st.Held, "hold": st.Hold, "hold_kind": st.HoldKind, "skipped": st.Skipped})
		}
		return out, nil
	}
	p, err := s.App.Pane(c.Topic, c.Account)
	if err != nil {
		return nil, err
	}
	if c.Cmd == "keys" {
		_, err := p.Write([]byte(c.Keys))
		return map[string]bool{"written": true}, err
	}
	return map[string]any{"screen": ansi.Strip(p.Render()), "alt": p.AltScreen()}, nil
}

// needs answers the needs-you list's commands (app/needslist.go): "needs"
// lists the open items (with "answered" and "topic": the topic's record of
// answers), "answer" gives one, "seen" says this client showed the topic's
// posts up to "last_seen".
func (s *Server) needs(c Command) line {
	screen := c.Screen
	if screen == "" {
		screen = "serve"
	}
	switch {
	case c.Cmd == "answer":
		res, err := s.App.AnswerNeed(c.Item, c.Answer, screen)
		if err != nil {
			return errLine(c, "answer: %v", err)
		}
		return line{"event": "answer", "item": c.Item, "answer": c.Answer, "result": res}
	case c.Cmd == "seen":
		s.App.SeenPosts(screen, c.Topic, c.LastSeen)
		return line{"event": "seen", "topic": c.Topic, "last_seen": c.LastSeen}
	case c.Answered:
		recs, err := s.App.NeedAnswers(c.Topic)
		if err != nil {
			return errLine(c, "needs: %v", err)
		}
		if recs == nil {
			recs = []app.AnswerRecord{}
		}
		return line{"event": "needs_answered", "topic": c.Topic, "answers": recs}
	}
	return line{"event": "needs", "items": s.App.NeedsList()}
}

// delete deletes a topic (app.Delete: seats, then files, then the room);
// deleting the current topic moves to a new one.
func (s *Server) delete(ctx context.Context, c Command) line {
	if err := s.App.Delete(ctx, c.Topic); err != nil {
		return errLine(c, "%v", err)
	}
	res := line{"event": "deleted", "topic": c.Topic}
	if c.Topic == s.current {
		id, err := s.App.NewTopic()
		if err != nil {
			return errLine(c, "%v", err)
		}
		s.current = id
	}
	res["current"] = s.current
	return res
}

func (s *Server) topics(c Command) line {
	ts, err := s.App.Topics()
	if err != nil {
		return errLine(c, "list topics: %v", err)
	}
	out := make([]TopicInfo, 0, len(ts))
	for _, t := range ts {
		info := TopicInfo{ID: t.ID, Name: t.Name, HasPosts: t.HasPosts, Missing: t.Missing, Sessions: t.Sessions, Current: t.ID == s.current, Open: s.App.IsOpen(t.ID)}
		if !t.Created.IsZero() {
			info.Created = t.Created.UTC().Format(time.RFC3339)
		}
		out = append(out, info)
	}
	return line{"event": "topics", "topics": out, "current": s.current}
}

// attachments are a post's "attachments": absolute paths (a control
// client's working folder is not the server's).
func attachments(paths []string) ([]app.Attachment, error) {
	var out []app.Attachment
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("attachment %q: the path must be absolute", p)
		}
		out = append(out, app.Attachment{Name: filepath.Base(p), Source: p})
	}
	return out, nil
}
