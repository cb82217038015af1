// Package control is the headless control mode (`pullcept serve`): the room
// engine and socket driven by JSON lines on stdin, reporting on stdout.
// The protocol is documented in docs/control.md.
package control

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// MaxLine bounds one command line.
const MaxLine = 4 << 20

// Seats is what control needs from the seat manager (nil when the run has
// no seats).
type Seats interface {
	// Handle runs a seat command (start, stop, restart, seats, screen,
	// keys) and returns its result.
	Handle(ctx context.Context, c Command) (any, error)
	// StopTopic stops every seat running in topic (before it is deleted).
	StopTopic(ctx context.Context, topic string) error
	// Events delivers seat events as lines to write.
	Events() <-chan any
}

// Server answers control commands.
type Server struct {
	Engine *room.Engine
	Store  *topicstore.Store
	URL    string
	Token  string
	Seats  Seats // optional

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
	Keys     string `json:"keys,omitempty"` // "keys": bytes typed into a seat's terminal as the person
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
	s.current = topicstore.NewID()
	if _, err := s.Engine.Open(s.current); err != nil {
		return err
	}
	sub := s.Engine.Subscribe()
	defer sub.Close()
	s.write(line{"event": "ready", "url": s.URL, "token": s.Token, "topic": s.current})

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.forward(ctx, sub)
	}()
	defer wg.Wait()
	defer cancel()

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() { // ends when in ends; the owner of in closes it
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

// forward writes engine and seat events.
func (s *Server) forward(ctx context.Context, sub *room.Subscription) {
	var seatEvents <-chan any
	if s.Seats != nil {
		seatEvents = s.Seats.Events()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-seatEvents:
			if ok {
				s.write(ev)
			}
		case ev, ok := <-sub.C:
			if !ok {
				return
			}
			switch ev.Kind {
			case room.EventPost:
				s.write(line{"event": "post", "topic": ev.Topic, "role": ev.Role, "own": ev.Own, "post": ev.Post})
			case room.EventRoster:
				s.write(line{"event": "roster", "topic": ev.Topic, "participants": ev.Participants})
			case room.EventLogError:
				s.write(line{"event": "log_error", "topic": ev.Topic, "error": ev.Err})
			case room.EventUsage:
				s.write(line{"event": "usage", "topic": ev.Topic, "account": ev.Account})
			case room.EventLagged:
				s.write(line{"event": "error", "error": "event stream fell behind; events were lost"})
			}
		}
	}
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
		if err := s.ensureOpen(c.Topic); err != nil {
			return errLine(c, "%v", err)
		}
		o, err := s.Engine.PostAsPerson(c.Topic, c.Content, c.LastSeen)
		if err != nil {
			return errLine(c, "post not delivered: %v", err)
		}
		if !o.Delivered {
			return line{"event": "post_result", "topic": c.Topic, "delivered": false, "missed": o.Missed}
		}
		return line{"event": "post_result", "topic": c.Topic, "delivered": true, "message_id": o.Post.MessageID}
	case "new":
		s.current = topicstore.NewID()
		if _, err := s.Engine.Open(s.current); err != nil {
			return errLine(c, "%v", err)
		}
		return line{"event": "new", "topic": s.current}
	case "open":
		if err := s.ensureOpen(c.Topic); err != nil {
			return errLine(c, "%v", err)
		}
		s.current = c.Topic
		page, err := s.Store.Page(c.Topic, c.Limit, "")
		if err != nil {
			return errLine(c, "read %s: %v", c.Topic, err)
		}
		posts := make([]wire.Post, len(page.Posts))
		for i, p := range page.Posts {
			posts[i] = room.FromLogPost(p)
		}
		return line{"event": "opened", "topic": c.Topic, "posts": posts, "has_more": page.HasMore, "skipped": page.Skipped, "participants": s.Engine.Roster(c.Topic)}
	case "rename":
		if err := s.Store.Rename(c.Topic, c.Name); err != nil {
			return errLine(c, "rename: %v", err)
		}
		return line{"event": "renamed", "topic": c.Topic, "name": c.Name}
	case "delete":
		return s.delete(ctx, c)
	case "topics":
		return s.topics(c)
	case "start", "stop", "restart", "seats", "screen", "keys", "release":
		if s.Seats == nil {
			return errLine(c, "this run has no seats")
		}
		if c.Cmd == "start" || c.Cmd == "restart" {
			if err := s.ensureOpen(c.Topic); err != nil {
				return errLine(c, "%v", err)
			}
		}
		res, err := s.Seats.Handle(ctx, c)
		if err != nil {
			return errLine(c, "%s: %v", c.Cmd, err)
		}
		return line{"event": c.Cmd, "topic": c.Topic, "account": c.Account, "result": res}
	case "":
		return errLine(c, `missing "cmd"`)
	default:
		return errLine(c, "unknown command %q (want post, new, open, rename, delete, topics, start, stop, restart, seats, screen, keys)", c.Cmd)
	}
}

// ensureOpen opens a topic's room if the topic is the current one, already
// open, or known to the store.
func (s *Server) ensureOpen(topic string) error {
	if topic == "" {
		return errors.New(`missing "topic"`)
	}
	if !topicstore.ValidID(topic) {
		return fmt.Errorf("bad topic id %q", topic)
	}
	if _, ok := s.Engine.Room(topic); ok {
		return nil
	}
	if _, err := s.Store.Get(topic); err != nil {
		return fmt.Errorf("unknown topic %q: %w", topic, err)
	}
	_, err := s.Engine.Open(topic)
	return err
}

// delete stops the topic's seats, then deletes its files and index entry,
// then drops its room (spec: セッション → 保存 → 部屋).
func (s *Server) delete(ctx context.Context, c Command) line {
	if !topicstore.ValidID(c.Topic) {
		return errLine(c, "bad topic id %q", c.Topic)
	}
	if s.Seats != nil {
		if err := s.Seats.StopTopic(ctx, c.Topic); err != nil {
			return errLine(c, "stop seats of %s: %v", c.Topic, err)
		}
	}
	if err := s.Store.Delete(c.Topic); err != nil {
		return errLine(c, "delete %s: %v", c.Topic, err)
	}
	s.Engine.Drop(c.Topic)
	res := line{"event": "deleted", "topic": c.Topic}
	if c.Topic == s.current {
		s.current = topicstore.NewID()
		if _, err := s.Engine.Open(s.current); err != nil {
			return errLine(c, "%v", err)
		}
	}
	res["current"] = s.current
	return res
}

func (s *Server) topics(c Command) line {
	ts, err := s.Store.List()
	if err != nil {
		return errLine(c, "list topics: %v", err)
	}
	out := make([]TopicInfo, 0, len(ts))
	for _, t := range ts {
		_, open := s.Engine.Room(t.ID)
		info := TopicInfo{ID: t.ID, Name: t.Name, HasPosts: t.HasPosts, Missing: t.Missing, Sessions: t.Sessions, Current: t.ID == s.current, Open: open}
		if !t.Created.IsZero() {
			info.Created = t.Created.UTC().Format(time.RFC3339)
		}
		out = append(out, info)
	}
	return line{"event": "topics", "topics": out, "current": s.current}
}
