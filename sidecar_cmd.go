package main

import (
	"context"
	"io"
	"os"

	"pullcept/sidecar"
)

// runSidecar is `pullcept sidecar`: the room's MCP server on stdio.
func runSidecar(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	return sidecar.Run(ctx, stdin, stdout, os.Getenv, stderr)
}
