package sidecar

// The in-package tests' MCP client: mcp-go's real client on a pipe pair to
// the sidecar's own mcpstdio server, so they go through the protocol.

import (
	"context"
	"io"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// pipeClient serves s on a pipe pair and returns an initialized mcp-go
// client on it, closed (and the serving ended) when the test ends.
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
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		s.Serve(ctx, toServer, fromServer)
		fromServer.Close()
	}()
	c := client.NewClient(transport.NewIO(toClient, fromClient, nil))
	closeFn := func() { c.Close(); <-served; cancel() }
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
