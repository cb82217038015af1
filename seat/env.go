package seat

// The person's environment for a seat (docs/decisions.md "A seat's
// environment is the person's"): the server was started by one terminal,
// and the person's shell in another may have another PATH, locale or ssh
// agent. The server hands each start the update of the client that asked
// for it (a context value), else of the most recently active client (the
// Manager's source); the update itself (which variables) is the attach
// package's, which this package does not know.

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// EnvUpdate turns the server's environment into the one a seat starts
// with (attach.ApplyPersonEnv with a client's variables). It must not
// change base.
type EnvUpdate func(base []string) []string

type envKey struct{}

// WithEnv is ctx carrying u: a seat started with it, and a command run with
// it (LookPathFor), see the environment of the client that asked.
func WithEnv(ctx context.Context, u EnvUpdate) context.Context {
	if u == nil {
		return ctx
	}
	return context.WithValue(ctx, envKey{}, u)
}

// ContextEnv is base as updated by ctx's EnvUpdate (base itself without).
func ContextEnv(ctx context.Context, base []string) []string {
	if u, ok := ctx.Value(envKey{}).(EnvUpdate); ok {
		return u(base)
	}
	return base
}

// envSource is a Manager's fallback update (SetEnvSource).
type envSource = atomic.Pointer[func() EnvUpdate]

// SetEnvSource names the update for a start whose context carries none (a
// session operation, a topic reopened): the server's most recently active
// client's. f returns nil when there is none.
func (m *Manager) SetEnvSource(f func() EnvUpdate) { m.envSrc.Store(&f) }

// baseEnv is the environment a start in ctx builds on.
func (m *Manager) baseEnv(ctx context.Context) []string {
	base := m.o.BaseEnv
	if base == nil {
		base = os.Environ()
	}
	if _, ok := ctx.Value(envKey{}).(EnvUpdate); ok {
		return ContextEnv(ctx, base)
	}
	if f := m.envSrc.Load(); f != nil {
		if u := (*f)(); u != nil {
			return u(base)
		}
	}
	return base
}

// LookPathIn finds name as a shell with env would: a name with a slash as
// it is, else in env's PATH (exec.LookPath reads this process's PATH, the
// server's, which is not the person's). Relative PATH entries are skipped,
// as exec.LookPath refuses them (exec.ErrDot).
func LookPathIn(env []string, name string) (string, error) {
	if strings.Contains(name, "/") {
		return name, nil
	}
	path := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path = v
		}
	}
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 && fi.Mode().Type()&fs.ModeType == 0 {
			return p, nil
		}
	}
	return "", &exec.Error{Name: name, Err: exec.ErrNotFound}
}

// LookPathFor is LookPathIn for the environment ctx carries (over this
// process's): `accounts add` run by the server checks the PATH of the
// terminal that ran it.
func LookPathFor(ctx context.Context) func(string) (string, error) {
	env := ContextEnv(ctx, os.Environ())
	return func(name string) (string, error) { return LookPathIn(env, name) }
}
