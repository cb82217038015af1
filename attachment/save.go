package attachment

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// MaxCopies is how many numbered names Save tries before it gives up.
const MaxCopies = 10000

// Save writes src into dir (created, mode 0700, when missing) under
// Name(name), or the first of "name (2).ext", "name (3).ext", … not taken.
// Each name is created only if absent (O_EXCL), so two saves running at
// once never take the same name and no file is ever replaced. The file is
// mode 0600 and synced before Save returns its absolute path; a failed
// write removes the file it made.
func Save(dir, name string, src io.Reader) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("attachment: %w", err)
	}
	base := Name(name)
	for n := 1; n <= MaxCopies; n++ {
		path := filepath.Join(dir, Numbered(base, n))
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("attachment: %w", err)
		}
		_, err = io.Copy(f, src)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(path)
			return "", fmt.Errorf("attachment: save %s: %w", path, err)
		}
		return path, nil
	}
	return "", fmt.Errorf("attachment: %s: %d copies of %q exist already", dir, MaxCopies, base)
}
