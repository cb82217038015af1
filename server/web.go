package server

// `pullcept web` in the server: the page's listener (package web) opened,
// revoked, and counted as a client while a browser is open.

import (
	"flag"
	"fmt"
	"io"
	"time"

	"pullcept/attach"
	"pullcept/seat"
	"pullcept/web"
)

// webCommand opens the page (printing its address with the token, once)
// or, with --revoke, closes it and forgets the token and every cookie.
func (s *Server) webCommand(conn *attach.Conn, args []string) attach.Exit {
	fs := flag.NewFlagSet("pullcept web", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	revoke := fs.Bool("revoke", false, "")
	listen := fs.String("listen", "", "")
	cert := fs.String("tls-cert", "", "")
	key := fs.String("tls-key", "", "")
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		return attach.Exit{Code: 2, Message: "usage: pullcept web [--listen ADDRESS --tls-cert FILE --tls-key FILE] | pullcept web --revoke"}
	}
	out := frameWriter{conn, attach.FrameOutput}
	s.mu.Lock()
	defer s.mu.Unlock()
	if *revoke {
		if s.web == nil {
			return attach.Exit{Message: "pullcept web: no page was open"}
		}
		w := s.web
		s.web = nil
		w.Close()
		s.nudgeIdle()
		return attach.Exit{Message: "pullcept web: the token is revoked and every browser signed out; pullcept web makes a new one"}
	}
	if s.web != nil && (*listen != "" || *cert != "" || *key != "") {
		return attach.Exit{Code: 1, Message: fmt.Sprintf("pullcept web: the page is open at %s; pullcept web --revoke first to open it elsewhere", s.web.Address())}
	}
	if s.web != nil {
		fmt.Fprintf(out, "the page is open at %s; its token was printed when it was made (pullcept web --revoke, then pullcept web, for a new one)\n", s.web.Address())
		return attach.Exit{}
	}
	w, url, err := web.Start(web.Options{App: s.a, Listen: *listen, CertFile: *cert, KeyFile: *key, Changed: s.webChanged, Topic: s.topicToShow, PaneSize: s.browserPane})
	if err != nil {
		return attach.Exit{Code: 1, Message: "pullcept web: " + err.Error()}
	}
	s.web = w
	fmt.Fprintf(out, "%s\nOpen it in a browser on this machine (the token after # is printed this once; pullcept web --revoke ends it).\n", url)
	// A page nobody opened keeps the server for IdleGrace, as a new server
	// waits for its first client.
	time.AfterFunc(s.o.IdleGrace, s.nudgeIdle)
	return attach.Exit{}
}

// webChanged: a browser's connection opened or closed. A closed one is
// given IdleGrace to come back (a reload) before the idle check.
func (s *Server) webChanged() {
	time.AfterFunc(s.o.IdleGrace, s.nudgeIdle)
}

func (s *Server) nudgeIdle() {
	select {
	case s.idle <- struct{}{}:
	default:
	}
}

// webKeeps says the page keeps the server up: a browser is open, or one
// was within IdleGrace (or the page was opened then).
func (s *Server) webKeeps() bool {
	s.mu.Lock()
	w := s.web
	s.mu.Unlock()
	return w != nil && (w.Open() > 0 || time.Since(w.Last()) < s.o.IdleGrace)
}

func (s *Server) closeWeb() {
	s.mu.Lock()
	w := s.web
	s.web = nil
	s.mu.Unlock()
	if w != nil {
		w.Close()
	}
}

// browserPane is a browser's view of one seat's pane in the panes' sizes
// (server/seats.go): a client of the sizes only, showing the pane's topic,
// whose wish applies once its keys make it the latest client.
func (s *Server) browserPane(topic, account string) (wish func(cols, rows int), done func()) {
	c := &client{}
	s.z.show(c, topic)
	wish = func(cols, rows int) {
		p, err := s.a.Pane(topic, account)
		if err != nil {
			return
		}
		var panes []*seat.Pane
		for _, st := range s.a.Seats(topic) {
			if st.Pane != nil {
				panes = append(panes, st.Pane)
			}
		}
		s.z.note(topic, panes)
		s.z.touch(c)
		_ = s.z.resize(c, p, cols, rows)
	}
	return wish, func() { s.z.drop(c) }
}
