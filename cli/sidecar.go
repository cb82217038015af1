package cli

import (
	"context"
	"io"
	"os"
	"sync"

	"pullcept/sidecar"
)

// runSidecar is `pullcept sidecar`: the room's MCP server on stdio. A
// SIGINT, SIGTERM or SIGHUP ends it as the end of stdin does (the room
// connection closed, exit status 0) once it has written its first answer,
// initialize's: the signal handler's thread (OnStopSignal) starts after the
// CLI has what it waits for. A signal before that ends the process, which
// has nothing to undo yet.
func runSidecar(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := &afterFirstWrite{w: stdout, then: func() func() {
		sctx, stop := OnStopSignal(ctx)
		context.AfterFunc(sctx, cancel)
		return stop
	}}
	defer out.finish()
	return sidecar.Run(ctx, stdin, out, os.Getenv, stderr)
}

// afterFirstWrite is w, running then once after the first Write has
// returned, inside that Write call: any later Write, so any later answer
// the CLI reads, comes after then.
type afterFirstWrite struct {
	w    io.Writer
	once sync.Once
	then func() (undo func())
	undo func()
}

func (a *afterFirstWrite) Write(p []byte) (int, error) {
	n, err := a.w.Write(p)
	a.once.Do(func() { a.undo = a.then() })
	return n, err
}

// finish undoes then if it ran, and keeps it from running later.
func (a *afterFirstWrite) finish() {
	a.once.Do(func() {})
	if a.undo != nil {
		a.undo()
	}
}
