package fakemodel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"pullcept/e2e/clihome"
)

// The test binary doubles as a tiny stdio MCP server: started with
// stubLogEnv set, it serves one tool, say_to_room, and appends every call to
// that file as a JSON line before answering.
const stubLogEnv = "FAKEMODEL_TEST_MCP_LOG"

// stubGateEnv names a file the stub waits for before it serves, like a slow
// MCP server that the test releases when it chooses.
const stubGateEnv = "FAKEMODEL_TEST_MCP_GATE"

func TestMain(m *testing.M) {
	if path := os.Getenv(stubLogEnv); path != "" {
		if err := serveStub(path); err != nil {
			fmt.Fprintln(os.Stderr, "mcp stub:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// stubCall is one recorded say_to_room call.
type stubCall struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
}

func serveStub(logPath string) error {
	var mu sync.Mutex
	s := server.NewMCPServer("room", "0.0.1", server.WithToolCapabilities(false))
	tool := mcp.NewTool("say_to_room",
		mcp.WithDescription("Post a message to the room."),
		mcp.WithString("content", mcp.Required(), mcp.Description("What to say.")),
		mcp.WithString("last_seen", mcp.Description("message_id of the newest post read.")),
	)
	s.AddTool(tool, func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		line, _ := json.Marshal(stubCall{Tool: req.Params.Name, Args: req.GetArguments()})
		mu.Lock()
		defer mu.Unlock()
		f, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, err
		}
		_, err = f.Write(append(line, '\n'))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
		return mcp.NewToolResultText("posted"), nil
	})
	if gate := os.Getenv(stubGateEnv); gate != "" {
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if _, err := os.Stat(gate); err == nil {
				break
			}
		}
	}
	return server.ServeStdio(s)
}

// stub returns the MCP server "room" (this test binary in stub mode) and the
// path of its call log.
func stub(t *testing.T) (clihome.MCPServer, string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	logPath := t.TempDir() + "/calls.jsonl"
	return clihome.MCPServer{Name: "room", Command: exe, Env: map[string]string{stubLogEnv: logPath}}, logPath
}

// stubCalls reads the calls recorded so far.
func stubCalls(t *testing.T, logPath string) []stubCall {
	t.Helper()
	f, err := os.Open(logPath)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var calls []stubCall
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c stubCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("bad stub log line %q: %v", sc.Text(), err)
		}
		calls = append(calls, c)
	}
	return calls
}
