package sidecar

// The in-package tests' MCP client: mcp-go's in-process client on the
// sidecar's MCP server (the stdio transport keeps one session per process,
// so tests running side by side each take their own session this way; the
// binary's tests go over stdio).

import (
	"context"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// pipeClient returns an initialized in-process mcp-go client on s, closed
// when the test ends.
func pipeClient(t testing.TB, s *Sidecar) *client.Client {
	t.Helper()
	c, closeFn, err := pipeClientErr(s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(closeFn)
	return c
}

func pipeClientErr(s *Sidecar) (*client.Client, func(), error) {
	ctx := context.Background()
	c, err := client.NewInProcessClient(s.MCPServer())
	if err != nil {
		return nil, nil, err
	}
	closeFn := func() { c.Close() }
	if err := c.Start(ctx); err != nil {
		closeFn()
		return nil, nil, err
	}
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-11-25"
	req.Params.ClientInfo = mcp.Implementation{Name: "sidecar-test", Version: "0"}
	if _, err := c.Initialize(ctx, req); err != nil {
		closeFn()
		return nil, nil, err
	}
	return c, closeFn, nil
}
