package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReplaceAndCreate(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new") // made on the way
	p := filepath.Join(dir, "config.json")
	created, err := Create(p, []byte("first"))
	if err != nil || !created {
		t.Fatalf("Create on nothing: %v %v", created, err)
	}
	if created, err := Create(p, []byte("second")); err != nil || created {
		t.Fatalf("Create over a file: %v %v, want not created", created, err)
	}
	if b, _ := os.ReadFile(p); string(b) != "first" {
		t.Fatalf("Create replaced the file: %q", b)
	}
	if err := Replace(p, []byte("third")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); string(b) != "third" {
		t.Fatalf("after Replace: %q", b)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v %v, want 0600", fi.Mode().Perm(), err)
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Errorf("the folder made is %v, want 0700", di.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	// A path that cannot be written leaves nothing and says so.
	if err := Replace(filepath.Join(p, "under-a-file"), []byte("x")); err == nil {
		t.Error("Replace under a file: no error")
	}
}
