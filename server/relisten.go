package server

import (
	"fmt"

	"pullcept/attach"
)

// Relisten makes the socket again at its path, as tmux does on SIGUSR1: a
// socket file deleted under a running server left it unreachable, and a
// client that finds the home's lock held but no socket signals the holder
// (cli.DialServer). The old listener closes, leaving the new file.
func (s *Server) Relisten() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reason != "" {
		return nil // ending: its listener is closing
	}
	l, err := attach.Listen(s.o.Socket)
	if err != nil {
		return fmt.Errorf("server socket %s: %w", s.o.Socket, err)
	}
	old := s.l
	s.l = l
	old.Disown()
	old.Close()
	s.log.Info("server socket made again", "socket", s.o.Socket)
	return nil
}

// listener is the socket's current listener.
func (s *Server) listener() *attach.Listener {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.l
}
