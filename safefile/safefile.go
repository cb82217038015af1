// Package safefile writes a file whole or not at all: a temporary file in
// the same folder (mode 0600: these files hold secrets — accounts' and MCP
// servers' env, operation records), synced, then renamed over the path
// (Replace) or hard-linked to it only if it is absent (Create), and the
// folder synced. A reader never sees half a file; a crash leaves the old
// one.
package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Replace writes data to path, replacing what is there.
func Replace(path string, data []byte) error {
	tmp, err := temp(path, data)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	syncDir(path)
	return nil
}

// Create writes data to path only if path does not exist yet, so a file
// someone wrote meanwhile is never replaced; created is false when it was
// already there.
func Create(path string, data []byte) (created bool, err error) {
	tmp, err := temp(path, data)
	if err != nil {
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	defer os.Remove(tmp)
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return false, nil
		}
		return false, fmt.Errorf("create %s: %w", path, err)
	}
	syncDir(path)
	return true, nil
}

// temp writes data to a synced 0600 temporary file beside path (its folder
// made 0700 if missing) and returns its name.
func temp(path string, data []byte) (string, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	err = f.Chmod(0o600)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	return tmp, nil
}

// syncDir makes the rename or link itself durable.
func syncDir(path string) {
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
}
