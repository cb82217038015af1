package seat

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// LookPathIn finds a program on the PATH of the environment given, not on
// this process's; a name with a slash is taken as it is.
func TestLookPathIn(t *testing.T) {
	t.Parallel()
	dir, other := t.TempDir(), t.TempDir()
	prog := filepath.Join(dir, "tool")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "tool"), []byte("not executable"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(other, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  []string
		name string
		want string
	}{
		{[]string{"PATH=" + other + ":" + dir}, "tool", prog}, // a file that is not executable is passed over
		{[]string{"PATH=" + dir}, "./tool", "./tool"},
		{[]string{"PATH=" + other}, "sub", ""},
		{[]string{"PATH=" + other}, "tool", ""},
		{[]string{"PATH=relative:" + other}, "tool", ""},
		{nil, "tool", ""},
	} {
		got, err := LookPathIn(c.env, c.name)
		if got != c.want || (c.want == "") != errors.Is(err, exec.ErrNotFound) {
			t.Errorf("LookPathIn(%q, %q) = %q, %v; want %q", c.env, c.name, got, err, c.want)
		}
	}
}

// A start takes the environment its context carries, else the manager's
// source (the most recently active client), else the base as it is.
func TestManagerBaseEnv(t *testing.T) {
	t.Parallel()
	m := NewManager(ManagerOptions{BaseEnv: []string{"PATH=/srv/bin", "HOME=/h"}}, nil)
	swap := func(path string) EnvUpdate {
		return func(base []string) []string {
			out := slices.Clone(base)
			out[0] = "PATH=" + path
			return out
		}
	}
	if got := m.baseEnv(context.Background()); !slices.Equal(got, []string{"PATH=/srv/bin", "HOME=/h"}) {
		t.Errorf("no update: %q", got)
	}
	m.SetEnvSource(func() EnvUpdate { return nil })
	if got := m.baseEnv(context.Background()); got[0] != "PATH=/srv/bin" {
		t.Errorf("a source with no client: %q", got)
	}
	m.SetEnvSource(func() EnvUpdate { return swap("/latest") })
	if got := m.baseEnv(context.Background()); got[0] != "PATH=/latest" {
		t.Errorf("the source's: %q", got)
	}
	if got := m.baseEnv(WithEnv(context.Background(), swap("/starter"))); got[0] != "PATH=/starter" || m.o.BaseEnv[0] != "PATH=/srv/bin" {
		t.Errorf("the context's: %q (base now %q)", got, m.o.BaseEnv)
	}
	if got := ContextEnv(WithEnv(context.Background(), nil), []string{"A=1"}); !slices.Equal(got, []string{"A=1"}) {
		t.Errorf("a nil update: %q", got)
	}
}
