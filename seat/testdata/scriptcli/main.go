// Command scriptcli is a scripted stand-in for an AI CLI in seat's tests.
//
// It puts its terminal in raw mode and records every read of its input, as
// hex with a timestamp, one line per read, to the file named by
// SCRIPTCLI_RECORD (appended):
//
//	<unix nanos> pid <process id> args <Go-quoted arguments>
//	<unix nanos> ready
//	<unix nanos> in <hex of the bytes of one read>
//	<unix nanos> winch <rows> <cols>
//	<unix nanos> said <Go-quoted tool answer, or error>
//	<unix nanos> mcp <connected, or Go-quoted error> (SCRIPTCLI_MCP_AT_START)
//
// It echoes printable input; a read that is exactly \r submits the input
// (Ctrl+U clears it, Backspace deletes a rune). When PULLCEPT_MCP_CONFIG
// names a Claude-style MCP config ({"mcpServers":{"name":{"command","args",
// "env"}}}) and a submitted input starts with "[pullcept] {tag JSON}\n", it
// starts the first server over stdio (once) and calls say_to_room with
// content "ack: <body>" and last_seen = the tag's message_id.
//
// SCRIPTCLI_MCP_AT_START=1 makes it start that MCP server at once, as a
// real CLI starts its MCP servers at launch (the room then seats the
// sidecar before any post arrives); without it the server starts at the
// first tagged input.
//
// SCRIPTCLI_ANSWER=admin makes it answer only the person's posts (tag role
// admin): two of them in one room then do not answer each other's answers.
//
// SCRIPTCLI_DSR=1 makes it ask for the cursor position (ESC[6n) at start.
//
// `scriptcli fake-mcp` is instead a tiny MCP server with a say_to_room tool
// that appends each call's arguments as a JSON line to SCRIPTCLI_MCP_LOG.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "fake-mcp" {
		fakeMCP()
		return
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "scriptcli:", err)
		os.Exit(1)
	}
}

type recorder struct {
	mu sync.Mutex
	f  *os.File
}

func (r *recorder) log(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.f != nil {
		fmt.Fprintf(r.f, "%d "+format+"\n", append([]any{time.Now().UnixNano()}, args...)...)
	}
}

func run() error {
	old, err := unix.IoctlGetTermios(0, unix.TCGETS)
	if err != nil {
		return fmt.Errorf("stdin is not a terminal: %w", err)
	}
	raw := *old
	raw.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	raw.Oflag &^= unix.OPOST
	raw.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	raw.Cflag &^= unix.CSIZE | unix.PARENB
	raw.Cflag |= unix.CS8
	raw.Cc[unix.VMIN], raw.Cc[unix.VTIME] = 1, 0
	if err := unix.IoctlSetTermios(0, unix.TCSETS, &raw); err != nil {
		return fmt.Errorf("raw mode: %w", err)
	}
	defer unix.IoctlSetTermios(0, unix.TCSETS, old) //nolint:errcheck

	rec := &recorder{}
	if path := os.Getenv("SCRIPTCLI_RECORD"); path != "" {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return err
		}
		defer f.Close()
		rec.f = f
	}

	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	go func() {
		for range winch {
			ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
			if err == nil {
				rec.log("winch %d %d", ws.Row, ws.Col)
				fmt.Printf("size %d %d\r\n", ws.Row, ws.Col)
			}
		}
	}()

	rec.log("pid %d args %q", os.Getpid(), os.Args[1:])
	if os.Getenv("SCRIPTCLI_DSR") == "1" {
		os.Stdout.WriteString("\x1b[6n")
	}
	fmt.Print("scriptcli READY\r\n")
	rec.log("ready")

	sp := &speaker{config: os.Getenv("PULLCEPT_MCP_CONFIG"), rec: rec}
	defer sp.close()
	if sp.config != "" && os.Getenv("SCRIPTCLI_MCP_AT_START") == "1" {
		go sp.connectAtStart()
	}
	var input []byte
	buf := make([]byte, 64*1024)
	for {
		n, err := os.Stdin.Read(buf)
		if n > 0 {
			b := buf[:n]
			rec.log("in %x", b)
			switch {
			case n == 1 && b[0] == '\r':
				fmt.Print("\r\n")
				sp.submit(string(input))
				input = input[:0]
			case n == 1 && (b[0] == 0x15 || b[0] == 0x03):
				input = input[:0]
				fmt.Print("\r\n")
			case n == 1 && (b[0] == 0x7f || b[0] == 0x08):
				if _, size := utf8.DecodeLastRune(input); size > 0 {
					input = input[:len(input)-size]
				}
			default:
				input = append(input, b...)
				os.Stdout.Write(printable(b))
			}
		}
		if err != nil {
			return nil
		}
	}
}

// printable keeps text and turns line breaks into CR LF.
func printable(b []byte) []byte {
	var out bytes.Buffer
	for _, r := range string(b) {
		switch {
		case r == '\n' || r == '\r':
			out.WriteString("\r\n")
		case r < 0x20 || r == 0x7f:
		default:
			out.WriteRune(r)
		}
	}
	return out.Bytes()
}

type speaker struct {
	config string
	rec    *recorder
	mu     sync.Mutex // guards c
	c      *client.Client
}

// connectAtStart starts the MCP server before any input, as a real CLI
// does at launch.
func (s *speaker) connectAtStart() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		return
	}
	c, err := s.connect(ctx)
	if err != nil {
		s.rec.log("mcp %q", err.Error())
		return
	}
	s.c = c
	s.rec.log("mcp connected")
}

func (s *speaker) submit(input string) {
	rest, ok := strings.CutPrefix(input, "[pullcept] ")
	if !ok || s.config == "" {
		return
	}
	tagJSON, body, _ := strings.Cut(rest, "\n")
	var tag struct {
		MessageID string `json:"message_id"`
		Role      string `json:"role"`
	}
	if err := json.Unmarshal([]byte(tagJSON), &tag); err != nil {
		s.rec.log("said %q", "bad tag: "+err.Error())
		return
	}
	if only := os.Getenv("SCRIPTCLI_ANSWER"); only != "" && tag.Role != only {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	text, err := s.say(ctx, "ack: "+body, tag.MessageID)
	if err != nil {
		text = "error: " + err.Error()
	}
	s.rec.log("said %q", text)
}

func (s *speaker) say(ctx context.Context, content, lastSeen string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c == nil {
		c, err := s.connect(ctx)
		if err != nil {
			return "", err
		}
		s.c = c
	}
	req := mcp.CallToolRequest{}
	req.Params.Name = "say_to_room"
	req.Params.Arguments = map[string]any{"content": content, "last_seen": lastSeen}
	res, err := s.c.CallTool(ctx, req)
	if err != nil {
		return "", err
	}
	var out []string
	for _, c := range res.Content {
		if t, ok := c.(mcp.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n"), nil
}

func (s *speaker) connect(ctx context.Context) (*client.Client, error) {
	data, err := os.ReadFile(s.config)
	if err != nil {
		return nil, err
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, fmt.Errorf("mcp config: %w", err)
	}
	names := make([]string, 0, len(cfg.MCPServers))
	for n := range cfg.MCPServers {
		names = append(names, n)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("mcp config names no server")
	}
	slices.Sort(names)
	srv := cfg.MCPServers[names[0]]
	var env []string
	for k, v := range srv.Env {
		env = append(env, k+"="+v)
	}
	c, err := client.NewStdioMCPClient(srv.Command, env, srv.Args...)
	if err != nil {
		return nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: "scriptcli", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		c.Close()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	return c, nil
}

func (s *speaker) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.c != nil {
		s.c.Close()
	}
}

func fakeMCP() {
	logPath := os.Getenv("SCRIPTCLI_MCP_LOG")
	var mu sync.Mutex
	n := 0
	s := server.NewMCPServer("fake-room", "0")
	s.AddTool(mcp.NewTool("say_to_room", mcp.WithString("content"), mcp.WithString("last_seen")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mu.Lock()
			defer mu.Unlock()
			n++
			line, _ := json.Marshal(req.GetArguments())
			if f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
				f.Write(append(line, '\n'))
				f.Close()
			}
			return mcp.NewToolResultText(fmt.Sprintf("Delivered to the room. message_id: fake-%d", n)), nil
		})
	if err := server.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, "fake-mcp:", err)
		os.Exit(1)
	}
}
