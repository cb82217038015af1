// Command cmd is a stand-in for the `pullcept` binary in the sidecar's
// tests: `cmd sidecar` runs sidecar.Run on the process's own stdio, the way
// `pullcept sidecar` does, so real MCP clients (mcp-go's stdio client, the
// TypeScript SDK) can spawn it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"pullcept/sidecar"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "sidecar" {
		fmt.Fprintln(os.Stderr, "usage: cmd sidecar")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := sidecar.Run(ctx, os.Stdin, os.Stdout, os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "pullcept sidecar:", err)
		os.Exit(1)
	}
}
