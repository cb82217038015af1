package server

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"

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
	if ino := socketIno(s.o.Socket); ino != 0 && ino == s.sockIno {
		// Still its own socket (a signal sent while it started): a new
		// listener would drop the connections waiting on this one.
		return nil
	}
	l, err := attach.Listen(s.o.Socket)
	if err != nil {
		return fmt.Errorf("server socket %s: %w", s.o.Socket, err)
	}
	old := s.l
	s.l, s.sockIno = l, socketIno(s.o.Socket)
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

// socketIno is the inode of the socket file at path, 0 when there is none.
func socketIno(path string) uint64 {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode().Type() != fs.ModeSocket {
		return 0
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ino
	}
	return 0
}
