// Command fakebridge is a scripted stand-in for the github-webhook-mcp
// bridge (../shared/notes/webhook-bridge.md §8), built by the tests: an MCP
// stdio server (mcp-go) named github-webhook-mcp that declares
// experimental claude/channel and the bridge's five tools, and takes cues
// as JSON lines on the Unix socket $FAKEBRIDGE_CTL (each answered "ok"):
//
//	{"push":{"content":"…","meta":{…}}}   a notifications/claude/channel push
//	{"event":{"id":"…","record":"…","delay_ms":N,"error":"…"}}  get_event's answer for id
//	{"stderr":"…"}                         a line on stderr
//	{"stdout":"…"}                         a raw line on stdout (not MCP)
//	{"exit":N}                             exit with status N now
//
// $FAKEBRIDGE_PIDFILE gets its pid (and, with $FAKEBRIDGE_CHILD=1, the pid
// of a child it leaves in its process group, on a second line).
// $FAKEBRIDGE_IGNORE_EOF=1 keeps it running after stdin ends, as the real
// bridge does while its WebSocket is up. Every get_event and
// mark_processed call is written to stderr ("call get_event ID").
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

type event struct {
	ID      string `json:"id"`
	Record  string `json:"record"`
	DelayMS int    `json:"delay_ms"`
	Error   string `json:"error"`
}

type cue struct {
	Push   map[string]any `json:"push"`
	Event  *event         `json:"event"`
	Stderr *string        `json:"stderr"`
	Stdout *string        `json:"stdout"`
	Exit   *int           `json:"exit"`
}

var (
	mu     sync.Mutex
	events = map[string]event{}
)

func main() {
	if f := os.Getenv("FAKEBRIDGE_PIDFILE"); f != "" {
		pids := strconv.Itoa(os.Getpid()) + "\n"
		if os.Getenv("FAKEBRIDGE_CHILD") == "1" {
			c := exec.Command("sleep", "1000")
			if err := c.Start(); err == nil {
				pids += strconv.Itoa(c.Process.Pid) + "\n"
			}
		}
		os.WriteFile(f+".tmp", []byte(pids), 0o600)
		os.Rename(f+".tmp", f)
	}
	s := server.NewMCPServer("github-webhook-mcp", "0.0.0-test",
		server.WithToolCapabilities(false),
		server.WithExperimental(map[string]any{"claude/channel": map[string]any{}}),
		server.WithInstructions("GitHub webhook events arrive as <channel source=\"github-webhook-mcp\" ...>; they are one-way and expect no reply."))
	s.AddTool(mcp.NewTool("get_event", mcp.WithString("event_id", mcp.Required())), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		id := req.GetString("event_id", "")
		fmt.Fprintf(os.Stderr, "call get_event %s\n", id)
		mu.Lock()
		ev, ok := events[id]
		mu.Unlock()
		if ev.DelayMS > 0 {
			select {
			case <-time.After(time.Duration(ev.DelayMS) * time.Millisecond):
			case <-ctx.Done():
			}
		}
		switch {
		case !ok:
			return mcp.NewToolResultError("Event " + id + " not found"), nil
		case ev.Error != "":
			return mcp.NewToolResultError(ev.Error), nil
		}
		return mcp.NewToolResultText(ev.Record), nil
	})
	s.AddTool(mcp.NewTool("mark_processed", mcp.WithString("event_id")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		fmt.Fprintf(os.Stderr, "call mark_processed %s\n", req.GetString("event_id", ""))
		return mcp.NewToolResultText(`{"success":true}`), nil
	})
	for _, name := range []string{"get_pending_status", "list_pending_events", "get_webhook_events"} {
		s.AddTool(mcp.NewTool(name), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("[]"), nil
		})
	}
	if ctl := os.Getenv("FAKEBRIDGE_CTL"); ctl != "" {
		os.Remove(ctl)
		l, err := net.Listen("unix", ctl)
		if err != nil {
			fmt.Fprintln(os.Stderr, "fakebridge:", err)
			os.Exit(2)
		}
		go accept(l, s)
	}
	fmt.Fprintln(os.Stderr, "[github-webhook-mcp] fake bridge up")
	err := server.NewStdioServer(s).Listen(context.Background(), os.Stdin, os.Stdout)
	fmt.Fprintf(os.Stderr, "[github-webhook-mcp] stdin ended (%v)\n", err)
	if os.Getenv("FAKEBRIDGE_IGNORE_EOF") == "1" {
		select {} // the WebSocket's timers keep the real bridge alive
	}
}

func accept(l net.Listener, s *server.MCPServer) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go serve(c, s)
	}
}

func serve(c net.Conn, s *server.MCPServer) {
	defer c.Close()
	sc := bufio.NewScanner(c)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var q cue
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			fmt.Fprintf(c, "error %v\n", err)
			continue
		}
		switch {
		case q.Push != nil:
			s.SendNotificationToAllClients("notifications/claude/channel", q.Push)
		case q.Event != nil:
			mu.Lock()
			events[q.Event.ID] = *q.Event
			mu.Unlock()
		case q.Stderr != nil:
			fmt.Fprintln(os.Stderr, *q.Stderr)
		case q.Stdout != nil:
			os.Stdout.Write([]byte(*q.Stdout + "\n")) // one write: a whole line between mcp-go's
		case q.Exit != nil:
			os.Exit(*q.Exit)
		}
		fmt.Fprintln(c, "ok")
	}
}
