// Package dirs resolves where Pullcept keeps its files: PULLCEPT_HOME puts
// everything under one folder (flat), else the XDG base directories.
package dirs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// Dirs are the resolved folders.
type Dirs struct {
	Data    string // logs/main/... and session-operations.json live here
	Config  string // config.json, mcp-servers.json
	State   string // the app's own log, the server's stderr and lock
	Runtime string // per-launch MCP configs (0700)
}

// Resolve reads PULLCEPT_HOME, XDG_* and HOME through getenv.
func Resolve(getenv func(string) string) (Dirs, error) {
	if h := getenv("PULLCEPT_HOME"); h != "" {
		h, err := filepath.Abs(h)
		if err != nil {
			return Dirs{}, fmt.Errorf("PULLCEPT_HOME: %w", err)
		}
		return Dirs{Data: h, Config: h, State: filepath.Join(h, "state"), Runtime: filepath.Join(h, "run")}, nil
	}
	home := getenv("HOME")
	xdg := func(key, fallback string) (string, error) {
		if v := getenv(key); filepath.IsAbs(v) {
			return filepath.Join(v, "pullcept"), nil
		}
		if home == "" {
			return "", errors.New("neither " + key + " nor HOME is set (set PULLCEPT_HOME to choose a folder)")
		}
		return filepath.Join(home, fallback, "pullcept"), nil
	}
	var d Dirs
	var err error
	if d.Data, err = xdg("XDG_DATA_HOME", ".local/share"); err != nil {
		return Dirs{}, err
	}
	if d.Config, err = xdg("XDG_CONFIG_HOME", ".config"); err != nil {
		return Dirs{}, err
	}
	if d.State, err = xdg("XDG_STATE_HOME", ".local/state"); err != nil {
		return Dirs{}, err
	}
	if v := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(v) {
		d.Runtime = filepath.Join(v, "pullcept")
	} else {
		d.Runtime = filepath.Join(os.TempDir(), "pullcept-"+strconv.Itoa(os.Getuid()))
	}
	return d, nil
}

// Logs is the folder of the topic store: logs/main.
func (d Dirs) Logs() string { return filepath.Join(d.Data, "logs", "main") }

// Attachments is the folder of the files attached to posts, one folder a
// topic: logs/main/attachments.
func (d Dirs) Attachments() string { return filepath.Join(d.Logs(), "attachments") }

// ConfigFile is the accounts file.
func (d Dirs) ConfigFile() string { return filepath.Join(d.Config, "config.json") }

// Ensure creates the folders the run writes to, private to the user.
func (d Dirs) Ensure() error {
	for _, p := range []string{d.Data, d.Config, d.State, d.Runtime} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", p, err)
		}
	}
	// The runtime folder holds tokens: it must not be readable by others
	// even if it existed before.
	if err := os.Chmod(d.Runtime, 0o700); err != nil {
		return fmt.Errorf("chmod %s: %w", d.Runtime, err)
	}
	return nil
}
