package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A file others may read is named with its mode; one only its owner may
// read, or one that is not there, is not.
func TestReadableByOthers(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.json")
	if why := ReadableByOthers(path); why != "" {
		t.Errorf("a missing file: %q", why)
	}
	if err := os.WriteFile(path, []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if why := ReadableByOthers(path); why != "" {
		t.Errorf("mode 0600: %q", why)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if why := ReadableByOthers(path); !strings.Contains(why, "mode 0644") || !strings.Contains(why, "chmod 600") {
		t.Errorf("mode 0644: %q", why)
	}
}

// ErrText drops the path an os error repeats.
func TestErrText(t *testing.T) {
	_, err := os.ReadFile(filepath.Join(t.TempDir(), "absent"))
	if got := ErrText(err); got != "no such file or directory" {
		t.Errorf("ErrText = %q", got)
	}
}
