package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"pullcept/seat/hook"
)

// statusLineTimeout bounds the person's own status-line command.
const statusLineTimeout = 2 * time.Second

// runHook is `pullcept hook EVENT`: a seat's CLI reports an event (its hook
// JSON on stdin) to the room, with the launch's secret from the
// environment (docs/hooks.md). It never decides anything for the CLI: it
// prints nothing for an activity event and always exits 0 when the room
// cannot be reached, so a hook never blocks the CLI. `pullcept hook status`
// is Claude's status line: it reports the payload and prints the person's
// own status line (PULLCEPT_STATUSLINE_COMMAND) or the room's.
func runHook(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) != 1 || args[0] == "" {
		return fmt.Errorf("usage: pullcept hook EVENT (the hook JSON on stdin; run by a seat's CLI)")
	}
	event := args[0]
	body, err := io.ReadAll(io.LimitReader(stdin, hook.MaxHookBody+1))
	if err != nil {
		return fmt.Errorf("hook %s: read stdin: %w", event, err)
	}
	if len(body) > hook.MaxHookBody {
		fmt.Fprintf(stderr, "pullcept hook %s: body over %d bytes, not sent\n", event, hook.MaxHookBody)
		body = nil
	}
	h, err := hook.HookTargetFromEnv(os.Getenv)
	if err == nil && body != nil {
		err = hook.PostHook(ctx, h, event, body)
	}
	if err != nil {
		fmt.Fprintf(stderr, "pullcept hook %s: %v\n", event, err)
	}
	if event == hook.HookStatus {
		fmt.Fprintln(stdout, statusLine(ctx, body))
	}
	return nil
}

// statusLine runs the person's own status-line command with the payload,
// or makes the room's line.
func statusLine(ctx context.Context, body []byte) string {
	cmdline := os.Getenv(hook.EnvStatusLine)
	if cmdline == "" {
		return hook.StatusLineText(body)
	}
	// A signal to the hook ends the person's command too (CommandContext
	// kills it) and the room's line is printed; elsewhere a hook has
	// nothing to undo and keeps the default action (OnStopSignal).
	ctx, stop := OnStopSignal(ctx)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, statusLineTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", cmdline)
	cmd.Stdin = bytes.NewReader(body)
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		return hook.StatusLineText(body)
	}
	return string(bytes.TrimRight(out, "\n"))
}
