package mcpstdio_test

// mcpstdio against a real client: mark3labs/mcp-go's (the library the
// sidecar served with before), over a pipe pair as over stdio.

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"pullcept/mcpstdio"
)

// connect serves s on a pipe pair and returns an mcp-go client on it,
// initialized with version.
func connect(t *testing.T, s *mcpstdio.Server, version string) (*client.Client, *mcp.InitializeResult) {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() {
		served <- s.Serve(ctx, toServer, fromServer)
		fromServer.Close()
	}()
	c := client.NewClient(transport.NewIO(toClient, fromClient, nil))
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close() // closes the server's input: Serve ends with nil
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		cancel()
	})
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = version
	req.Params.ClientInfo = mcp.Implementation{Name: "interop", Version: "0"}
	ictx, icancel := context.WithTimeout(ctx, 30*time.Second)
	defer icancel()
	init, err := c.Initialize(ictx, req)
	if err != nil {
		t.Fatalf("initialize (%s): %v", version, err)
	}
	return c, init
}

// interopServer has three tools; block tells ended how its context ended.
func interopServer(t *testing.T, ended chan<- error) *mcpstdio.Server {
	s := mcpstdio.New(mcpstdio.Info{Name: "interop-srv", Version: "9.9", Instructions: "Be brief.\nReally."})
	err := s.SetTools([]mcpstdio.Tool{
		{
			Name: "add", Description: "adds a and b",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number"}},"required":["a","b"]}`),
			Annotations: &mcpstdio.Annotations{Title: "Add", ReadOnly: true, Idempotent: true},
			Handler: func(_ context.Context, r *mcpstdio.Request) (*mcpstdio.Result, error) {
				a, _ := r.Args()["a"].(float64)
				b, _ := r.Args()["b"].(float64)
				return mcpstdio.TextResult("= " + jsonNumber(a+b)), nil
			},
		},
		{
			Name: "refuse", Description: "always fails",
			Handler: func(context.Context, *mcpstdio.Request) (*mcpstdio.Result, error) {
				return mcpstdio.ErrorResult("refused, as always"), nil
			},
		},
		{
			Name: "block", Description: "waits for its context",
			Handler: func(ctx context.Context, _ *mcpstdio.Request) (*mcpstdio.Result, error) {
				<-ctx.Done()
				ended <- ctx.Err()
				return mcpstdio.TextResult("ended"), nil
			},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func TestMCPGoClient(t *testing.T) {
	t.Parallel()
	// The newest version first makes the client probe server/discover, which
	// is not found here: it falls back to initialize.
	for _, version := range []string{mcp.LATEST_PROTOCOL_VERSION, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			ended := make(chan error, 1)
			c, init := connect(t, interopServer(t, ended), version)
			want := version
			if mcp.IsModernProtocol(version) {
				want = "2025-11-25"
			}
			if init.ProtocolVersion != want || init.ServerInfo.Name != "interop-srv" || init.ServerInfo.Version != "9.9" ||
				init.Instructions != "Be brief.\nReally." || init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
				t.Fatalf("initialize: %+v", init)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := c.Ping(ctx); err != nil {
				t.Fatalf("ping: %v", err)
			}
			list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
			if err != nil {
				t.Fatal(err)
			}
			if len(list.Tools) != 3 || list.Tools[0].Name != "add" || list.Tools[1].Name != "refuse" || list.Tools[2].Name != "block" {
				t.Fatalf("tools/list: %+v", list.Tools)
			}
			add := list.Tools[0]
			if add.Description != "adds a and b" || add.InputSchema.Type != "object" || len(add.InputSchema.Properties) != 2 ||
				len(add.InputSchema.Required) != 2 || add.Annotations.Title != "Add" ||
				add.Annotations.ReadOnlyHint == nil || !*add.Annotations.ReadOnlyHint ||
				add.Annotations.DestructiveHint == nil || *add.Annotations.DestructiveHint {
				t.Fatalf("add as the client reads it: %+v", add)
			}
			if s := list.Tools[1].InputSchema; s.Type != "object" {
				t.Fatalf("a tool without a schema: %+v", s)
			}

			call := mcp.CallToolRequest{}
			call.Params.Name = "add"
			call.Params.Arguments = map[string]any{"a": 2, "b": 40.5}
			res, err := c.CallTool(ctx, call)
			if err != nil {
				t.Fatal(err)
			}
			if text := res.Content[0].(mcp.TextContent).Text; res.IsError || text != "= 42.5" {
				t.Fatalf("add: %v %q", res.IsError, text)
			}
			call.Params.Name = "refuse"
			res, err = c.CallTool(ctx, call)
			if err != nil || !res.IsError || res.Content[0].(mcp.TextContent).Text != "refused, as always" {
				t.Fatalf("refuse: %+v %v", res, err)
			}
			call.Params.Name = "nope"
			_, err = c.CallTool(ctx, call)
			if err == nil || !strings.Contains(err.Error(), "tool 'nope' not found") {
				t.Fatalf("an unknown tool: %v", err)
			}
			// The client's own cancellation: it gives up and the server goes on.
			bctx, bcancel := context.WithTimeout(ctx, 50*time.Millisecond)
			call.Params.Name = "block"
			_, err = c.CallTool(bctx, call)
			bcancel()
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("a blocked call with a deadline: %v", err)
			}
			// It sent notifications/cancelled: the handler's context ended.
			select {
			case err := <-ended:
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("the handler's context ended with %v", err)
				}
			case <-time.After(15 * time.Second):
				t.Fatal("the client's cancellation did not reach the handler")
			}
			if err := c.Ping(ctx); err != nil {
				t.Fatalf("ping after a cancelled call: %v", err)
			}
		})
	}
}

func TestMCPGoClientSeesListChanged(t *testing.T) {
	t.Parallel()
	s := interopServer(t, nil)
	c, _ := connect(t, s, "2025-06-18")
	changed := make(chan string, 4)
	c.OnNotification(func(n mcp.JSONRPCNotification) { changed <- n.Method })
	err := s.SetTools([]mcpstdio.Tool{{Name: "only", Description: "the new set", Handler: func(context.Context, *mcpstdio.Request) (*mcpstdio.Result, error) {
		return mcpstdio.TextResult("ok"), nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-changed:
		if m != "notifications/tools/list_changed" {
			t.Fatalf("notification %q", m)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("the client was not told the tools changed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil || len(list.Tools) != 1 || list.Tools[0].Description != "the new set" {
		t.Fatalf("tools/list after the change: %+v %v", list, err)
	}
}
