package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ReadableByOthers is the reason a file that holds secrets (env values)
// must be fixed, when others may read it; "" when only its owner may (or
// it cannot be read at all: the reading says so).
func ReadableByOthers(path string) string {
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm()&0o077 == 0 {
		return ""
	}
	return fmt.Sprintf("holds env values but is readable by others (mode %04o); run chmod 600 on it", info.Mode().Perm())
}

// ErrText is err's text without the path that os errors repeat (the
// caller names the file itself).
func ErrText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
