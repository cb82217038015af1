package cli

// The two binaries (docs/decisions.md "Two binaries"): `pullcept`, the
// front, and `pullcept-server`, which links the engine, the terminal
// emulator and the screens. Each finds the other beside itself, as built
// by `go build -o DIR/ . ./cmd/pullcept-server`; the server binary also
// answers every front command, so a missing front costs only start-up.

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
)

// Binary names.
const (
	FrontName  = "pullcept"
	ServerName = "pullcept-server"
)

// ServerBinary is the server binary: this one if it is, else the one
// beside this binary, else the one on PATH.
func ServerBinary() (string, error) {
	exe, err := os.Executable()
	if err == nil {
		if filepath.Base(exe) == ServerName {
			return exe, nil
		}
		if p := filepath.Join(filepath.Dir(exe), ServerName); executable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(ServerName); err == nil {
		return p, nil
	}
	where := "this binary"
	if exe != "" {
		where = filepath.Dir(exe)
	}
	return "", fmt.Errorf("%s is not beside %s nor on PATH: build both binaries (go build -o DIR/ . ./cmd/%s)", ServerName, where, ServerName)
}

// FrontBinary is the front binary the seats launch as sidecar and hooks:
// the one beside this binary, else this binary itself (the server binary
// runs every front command too, only slower to start).
func FrontBinary() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	if p := filepath.Join(filepath.Dir(exe), FrontName); p != exe && executable(p) {
		return p, nil
	}
	return exe, nil
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode().Perm()&0o111 != 0
}

// ExecServer is the front's Engine: this process becomes the server
// binary with the same command line.
func ExecServer(_ context.Context, cmd string, args []string, _ io.Reader, _, _ io.Writer) error {
	p, err := ServerBinary()
	if err != nil {
		return err
	}
	argv := append([]string{p, cmd}, args...)
	return fmt.Errorf("run %s: %w", p, syscall.Exec(p, argv, os.Environ()))
}
