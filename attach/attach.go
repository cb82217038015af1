// Package attach is the protocol between a pullcept client (the person's
// terminal) and the pullcept server of a home (issue "Sessions outlive the
// terminal"): frames over a Unix socket in the home's runtime folder.
//
// A frame is one type byte, a 4-byte big-endian length and the payload.
// The client's first frame is Hello (JSON), the server's first is Welcome
// (JSON); after that a tui client sends Input and Resize and reads Output,
// Exec and Exit, like tmux's client, which relays bytes and nothing else.
// The Hello/Welcome frames keep this shape in every version, so a client
// and a server of different versions can always tell each other so.
package attach

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// ProtocolVersion is the attach protocol this build speaks. A change that
// an older peer would misread bumps it. 2: Hello's update_env, and Exec
// names a role and paths instead of a command line.
const ProtocolVersion = 2

// Frame types.
const (
	FrameHello    byte = 'H' // client → server, JSON Hello
	FrameWelcome  byte = 'W' // server → client, JSON Welcome
	FrameInput    byte = 'i' // client → server, terminal or stdin bytes
	FrameEOF      byte = 'e' // client → server, stdin ended (control, command)
	FrameResize   byte = 'r' // client → server, JSON Size
	FrameExecDone byte = 'd' // client → server, JSON ExecDone
	FrameOutput   byte = 'o' // server → client, bytes for stdout
	FrameStderr   byte = 'E' // server → client, bytes for stderr (command)
	FrameExec     byte = 'x' // server → client, JSON Exec: run a program here
	FrameExit     byte = 'q' // server → client, JSON Exit: the session is over
	// FrameTerminal carries the client's terminal (its input and output
	// descriptors, SCM_RIGHTS) to a server whose Welcome asked for it; it
	// has no payload. The server then reads the keys and draws on the
	// terminal itself, as tmux's server does, and no Input or Output frame
	// crosses the socket (docs/protocol.md "The terminal itself").
	FrameTerminal byte = 't'
)

// MaxFrame bounds a frame's payload: a peer that sends more is not a
// pullcept peer.
const MaxFrame = 4 << 20

// Modes of a Hello.
const (
	ModeTUI     = "tui"     // the terminal UI, drawn by the server
	ModeControl = "control" // `pullcept serve`: JSON lines (docs/control.md)
	ModeCommand = "command" // one command (topics, accounts) run by the server
	ModeList    = "ls"      // `pullcept ls`
	ModeKill    = "kill"    // `pullcept kill-server`
	ModeWeb     = "web"     // `pullcept web`: the page's listener (Args: its options)
)

// Hello is the client's first frame.
type Hello struct {
	Proto int    `json:"proto"`
	Mode  string `json:"mode"`
	// Build names the client binary (pullcept version).
	Build string `json:"build,omitempty"`
	// Env is the terminal's facts: TERM, COLORTERM, NO_COLOR, LANG, ...
	Env []string `json:"env,omitempty"`
	// UpdateEnv is the person's variables for a seat (UpdateEnv's: PATH,
	// LANG, LC_*, SSH_AUTH_SOCK, ...): a seat this client starts, or
	// starts while it is the most recently active, runs with them, and a
	// command (accounts add) checks them.
	UpdateEnv []string `json:"update_env,omitempty"`
	Cols      int      `json:"cols,omitempty"`
	Rows      int      `json:"rows,omitempty"`
	// Args are a command's arguments (ModeCommand).
	Args []string `json:"args,omitempty"`
	PID  int      `json:"pid,omitempty"`
	TTY  string   `json:"tty,omitempty"`
	// Terminal offers the client's terminal itself (FrameTerminal), for a
	// tui client whose input and output are one terminal.
	Terminal bool `json:"terminal,omitempty"`
}

// Welcome is the server's answer to a Hello. Error set means refused.
type Welcome struct {
	Proto int    `json:"proto"`
	Build string `json:"build,omitempty"`
	PID   int    `json:"pid,omitempty"`
	Error string `json:"error,omitempty"`
	// Terminal takes the offered terminal: FrameTerminal comes next.
	Terminal bool `json:"terminal,omitempty"`
}

// Size is a terminal size in cells.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Exec asks the client to run the person's program of a role (RoleEditor,
// RolePager, RoleOpener, RoleClipboard) on the person's terminal, on
// Paths, and answer with ExecDone when it ends. The client resolves the
// role from its own environment and refuses anything else (roles.go).
type Exec struct {
	Role  string   `json:"role"`
	Paths []string `json:"paths"`
}

// ExecDone is how a program run for Exec ended.
type ExecDone struct {
	Code  int    `json:"code"`
	Error string `json:"error,omitempty"`
}

// Exit ends a session: the client prints Message (when set) and exits
// with Code.
type Exit struct {
	Code    int    `json:"code"`
	Message string `json:"message,omitempty"`
	// Detached says the server and its sessions go on.
	Detached bool `json:"detached,omitempty"`
}

// ErrFrameTooBig reports a frame over MaxFrame.
var ErrFrameTooBig = errors.New("attach: frame too big")

// Conn is one end of an attach connection: whole frames out, one writer
// at a time; frames in, read by one goroutine.
type Conn struct {
	rw  io.ReadWriter
	r   *bufio.Reader
	wmu sync.Mutex
	// wbuf holds a small frame whole, under wmu (a buffer on the stack
	// would escape to the heap through the io.Writer: 4.8 KB a frame).
	wbuf [5 + 4096]byte
	rhdr [5]byte // the reader's header (one reader)
	// terminal is set by Greet when the server took the offered terminal.
	terminal bool
}

// NewConn frames rw.
func NewConn(rw io.ReadWriter) *Conn {
	return &Conn{rw: rw, r: bufio.NewReaderSize(rw, 64<<10)}
}

// Write sends one frame.
func (c *Conn) Write(typ byte, payload []byte) error {
	if len(payload) > MaxFrame {
		return ErrFrameTooBig
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.wbuf[0] = typ
	binary.BigEndian.PutUint32(c.wbuf[1:5], uint32(len(payload)))
	// One write for small frames: a key's echo is one packet.
	if len(payload) <= len(c.wbuf)-5 {
		n := copy(c.wbuf[5:], payload)
		_, err := c.rw.Write(c.wbuf[:5+n])
		return err
	}
	if _, err := c.rw.Write(c.wbuf[:5]); err != nil {
		return err
	}
	_, err := c.rw.Write(payload)
	return err
}

// WriteJSON sends v as one frame.
func (c *Conn) WriteJSON(typ byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.Write(typ, b)
}

// Read returns the next frame. The payload is valid until the next Read.
func (c *Conn) Read() (byte, []byte, error) {
	hdr := c.rhdr[:]
	if _, err := io.ReadFull(c.r, hdr); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if n > MaxFrame {
		return 0, nil, fmt.Errorf("%w (%d bytes, type %q)", ErrFrameTooBig, n, hdr[0])
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		return 0, nil, err
	}
	return hdr[0], buf, nil
}

// ReadJSON reads the next frame, which must be of type want, into v.
func (c *Conn) ReadJSON(want byte, v any) error {
	typ, b, err := c.Read()
	if err != nil {
		return err
	}
	if typ != want {
		return fmt.Errorf("attach: expected a %q frame, got %q: the peer is not a pullcept of this protocol", want, typ)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("attach: bad %q frame: %w", want, err)
	}
	return nil
}

// Mismatch is the sentence for two protocol versions, said by either side.
func Mismatch(client, server int, serverPID int) string {
	return fmt.Sprintf("this pullcept speaks attach protocol %d but the server of this home (pid %d) speaks %d: "+
		"run the pullcept binary that started it, or end it with that binary's `pullcept kill-server` (its sessions stop) and start again",
		client, serverPID, server)
}
