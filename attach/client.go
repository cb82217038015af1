package attach

// The client: a thin relay between the person's terminal and the server,
// as tmux's client is. It puts the terminal in raw mode, sends its bytes
// and size, writes what the server draws, and runs a program on the
// terminal when the server asks (Exec), giving the terminal back after.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/charmbracelet/x/term"
	"github.com/muesli/cancelreader"
	"golang.org/x/sys/unix"
)

// TermEnv lists the variables that describe the person's terminal and
// tools: the server draws for this terminal with them.
var TermEnv = []string{"TERM", "COLORTERM", "NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "LANG", "LC_ALL", "LC_CTYPE",
	"TERM_PROGRAM", "TERM_PROGRAM_VERSION", "SSH_TTY", "SSH_CONNECTION", "WT_SESSION", "TMUX",
	"VISUAL", "EDITOR", "PAGER", "PULLCEPT_PREFIX", "COLUMNS", "LINES",
	"PWD"} // where the person ran pullcept: the file picker opens there

// TerminalEnv picks TermEnv out of environ.
func TerminalEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		for _, want := range TermEnv {
			if k == want {
				out = append(out, kv)
			}
		}
	}
	return out
}

// Greet sends h and reads the server's Welcome; a refusal or another
// protocol version is an error that says what to do.
func Greet(c *Conn, h Hello) (Welcome, error) {
	h.Proto = ProtocolVersion
	if err := c.WriteJSON(FrameHello, h); err != nil {
		return Welcome{}, err
	}
	var w Welcome
	if err := c.ReadJSON(FrameWelcome, &w); err != nil {
		return w, fmt.Errorf("the server did not answer as a pullcept server: %w", err)
	}
	if w.Proto != ProtocolVersion {
		return w, errors.New(Mismatch(ProtocolVersion, w.Proto, w.PID))
	}
	if w.Error != "" {
		return w, errors.New(w.Error)
	}
	c.terminal = h.Terminal && w.Terminal
	return w, nil
}

// ErrServerGone reports a connection that ended without an Exit frame.
var ErrServerGone = errors.New("the pullcept server went away (it may have been killed; run pullcept again to start a new one)")

// RunTerminal relays the terminal in/out to the server until it says Exit.
// in is put in raw mode when it is a terminal.
func RunTerminal(ctx context.Context, c *Conn, in, out *os.File) (Exit, error) {
	var raw *term.State
	if term.IsTerminal(in.Fd()) {
		st, err := term.MakeRaw(in.Fd())
		if err != nil {
			return Exit{}, fmt.Errorf("raw mode: %w", err)
		}
		raw = st
		keepNewlines(in.Fd())
	}
	// The server reads a passed terminal non-blocking, and the flag is on
	// the open file this client and its shell share: a program run here,
	// the last bytes written here and the shell after get it blocking.
	blocking := func() {
		if c.terminal {
			_ = unix.SetNonblock(int(in.Fd()), false)
			_ = unix.SetNonblock(int(out.Fd()), false)
		}
	}
	restore := func() {
		blocking()
		if raw != nil {
			_ = term.Restore(in.Fd(), raw)
		}
	}
	defer restore()
	ended := false // the server's own last frame reset the screen
	defer func() {
		if !ended {
			blocking()
			_, _ = out.WriteString(ResetTerminal)
		}
	}()

	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	defer signal.Stop(winch)
	go func() {
		for range winch {
			if w, h, err := term.GetSize(out.Fd()); err == nil {
				_ = c.WriteJSON(FrameResize, Size{Cols: w, Rows: h})
			}
		}
	}()

	// With the terminal passed, the server reads the keys and draws itself;
	// this client only resizes, runs programs and ends.
	var keys *keyReader
	if c.terminal {
		if err := c.SendTerminal(in, out); err != nil {
			return Exit{}, fmt.Errorf("passing the terminal to the server: %w", err)
		}
	} else {
		keys = &keyReader{c: c, in: in}
		if err := keys.start(); err != nil {
			return Exit{}, err
		}
		defer keys.stop()
	}

	// The frame reader writes Output itself, as it arrives: a key's echo is
	// not handed to another goroutine first. Any other frame goes to the
	// loop below, and the reader waits until it is handled (an Exec runs a
	// program on this terminal) before it reads on, so output keeps its
	// place around it. After RunTerminal returns, nothing more is written.
	frames := make(chan frame)
	readErr := make(chan error, 1)
	var outMu sync.Mutex // out's writer: the reader, until RunTerminal returns
	stopped := false
	leave := make(chan struct{})
	defer func() {
		outMu.Lock()
		stopped = true
		outMu.Unlock()
		close(leave)
	}()
	go func() {
		for {
			typ, b, err := c.Read()
			if err == nil && typ == FrameOutput {
				outMu.Lock()
				if !stopped {
					_, err = out.Write(b)
				}
				outMu.Unlock()
				if err == nil {
					continue
				}
			} else if err != nil {
				readErr <- err
				close(frames)
				return
			}
			f := frame{typ: typ, b: b, done: make(chan struct{}), werr: err}
			select {
			case frames <- f:
			case <-leave:
				return
			}
			select {
			case <-f.done:
			case <-leave:
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return Exit{Detached: true}, nil
		case f, ok := <-frames:
			if !ok {
				return Exit{}, fmt.Errorf("%w: %v", ErrServerGone, <-readErr)
			}
			if f.werr != nil {
				return Exit{}, f.werr
			}
			switch f.typ {
			case FrameExec:
				var x Exec
				done := ExecDone{}
				var cmd *exec.Cmd
				err := json.Unmarshal(f.b, &x)
				if err == nil {
					cmd, err = x.Command()
				}
				if err != nil {
					// Nothing runs; the terminal stays the screen's.
					done = ExecDone{Code: -1, Error: err.Error()}
				} else {
					if keys != nil {
						keys.stop()
					}
					restore()
					done = runHere(cmd, in, out)
					if raw != nil {
						_, _ = term.MakeRaw(in.Fd())
						keepNewlines(in.Fd())
					}
					if keys != nil {
						if err := keys.start(); err != nil {
							return Exit{}, err
						}
					}
				}
				if err := c.WriteJSON(FrameExecDone, done); err != nil {
					return Exit{}, err
				}
				close(f.done)
			case FrameExit:
				var e Exit
				_ = json.Unmarshal(f.b, &e)
				ended = true
				return e, nil
			default:
				close(f.done)
			}
		}
	}
}

// ResetTerminal undoes what the screen turned on (alternate screen, hidden
// cursor, bracketed paste, mouse and focus reports, keyboard modes) when
// the server could not say goodbye itself.
const ResetTerminal = "\x1b[?1049l\x1b[?25h\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?1004l\x1b[<u\x1b[>4;0m\x1b[m\r\n"

// keepNewlines turns output processing back on after raw mode: the
// server's renderer draws for a terminal that is not its own tty, and
// Bubble Tea then writes "\n" meaning a new line (it maps newlines when its
// input is not a terminal), which the terminal must turn into CR LF.
func keepNewlines(fd uintptr) {
	t, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
	if err != nil {
		return
	}
	t.Oflag |= unix.OPOST | unix.ONLCR
	_ = unix.IoctlSetTermios(int(fd), unix.TCSETS, t)
}

type frame struct {
	typ  byte
	b    []byte
	done chan struct{} // closed once handled
	werr error         // writing an Output frame to the terminal failed
}

// runHere runs cmd on the person's terminal, in this client's own
// environment.
func runHere(cmd *exec.Cmd, in, out *os.File) ExecDone {
	cmd.Stdin, cmd.Stdout, cmd.Stderr = in, out, out
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ExecDone{Code: ee.ExitCode()}
	case err != nil:
		return ExecDone{Code: -1, Error: err.Error()}
	}
	return ExecDone{}
}

// keyReader sends the terminal's bytes as Input frames; stop cancels the
// read (a program run on the terminal reads it meanwhile).
type keyReader struct {
	c    *Conn
	in   *os.File
	r    cancelreader.CancelReader
	done chan struct{}
	once sync.Once
}

func (k *keyReader) start() error {
	r, err := cancelreader.NewReader(k.in)
	if err != nil {
		return err
	}
	k.r, k.done, k.once = r, make(chan struct{}), sync.Once{}
	go func(r cancelreader.CancelReader, done chan struct{}) {
		defer close(done)
		buf := make([]byte, 32<<10)
		for {
			n, err := r.Read(buf)
			if n > 0 {
				if k.c.Write(FrameInput, buf[:n]) != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}(r, k.done)
	return nil
}

func (k *keyReader) stop() {
	k.once.Do(func() {
		k.r.Cancel()
		<-k.done
		k.r.Close()
	})
}

// Relay is a client without a screen (serve, commands, ls, kill-server):
// stdin (when given) goes to the server, Output to stdout, Stderr frames to
// stderr, until Exit.
func Relay(ctx context.Context, c *Conn, stdin io.Reader, stdout, stderr io.Writer) (Exit, error) {
	if stdin != nil {
		go func() {
			buf := make([]byte, 32<<10)
			for {
				n, err := stdin.Read(buf)
				if n > 0 && c.Write(FrameInput, buf[:n]) != nil {
					return
				}
				if err != nil {
					_ = c.Write(FrameEOF, nil)
					return
				}
			}
		}()
	}
	for {
		typ, b, err := c.Read()
		if err != nil {
			if ctx.Err() != nil {
				return Exit{}, ctx.Err()
			}
			return Exit{}, fmt.Errorf("%w: %v", ErrServerGone, err)
		}
		switch typ {
		case FrameOutput:
			if _, err := stdout.Write(b); err != nil {
				return Exit{}, err
			}
		case FrameStderr:
			_, _ = stderr.Write(b)
		case FrameExit:
			var e Exit
			_ = json.Unmarshal(b, &e)
			return e, nil
		}
	}
}
