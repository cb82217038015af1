package topicstore

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id   string
		want bool
	}{
		{"0190f5c2-7a3b-7c4d-8e5f-0123456789ab", true},
		{"a", true},
		{"A_z-09", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{".", false},
		{"..", false},
		{"../x", false},
		{"..\\x", false},
		{"a/b", false},
		{"/etc/passwd", false},
		{"a.jsonl", false},
		{"a b", false},
		{"a\x00", false},
		{"é", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestNewID(t *testing.T) {
	t.Parallel()
	ids := make([]string, 2000)
	for i := range ids {
		ids[i] = NewID()
	}
	for _, id := range ids {
		if !ValidID(id) || len(id) != 36 || id[14] != '7' || !strings.ContainsRune("89ab", rune(id[19])) {
			t.Fatalf("NewID() = %q: not a UUIDv7 text", id)
		}
	}
	if !slices.IsSorted(ids) {
		t.Fatal("NewID values do not sort in creation order")
	}
	if len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Fatal("NewID repeated a value")
	}
}

// TestBadIDRejectedEverywhere checks that no method touches the disk for an
// id ValidID rejects, so nothing can reach outside the directory.
func TestBadIDRejectedEverywhere(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "logs", "main")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	// A victim outside the directory that "../../victim" would reach.
	victim := filepath.Join(root, "victim.jsonl")
	if err := os.WriteFile(victim, []byte(`{"message_id":"m","speaker":"a","content":"c","ts":"t"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ops := map[string]func(id string) error{
		"Append":        func(id string) error { _, err := s.Append(id, Post{MessageID: "m"}); return err },
		"NoteFirstPost": func(id string) error { return s.NoteFirstPost(id, "hello") },
		"Get":           func(id string) error { _, err := s.Get(id); return err },
		"Rename":        func(id string) error { return s.Rename(id, "name") },
		"SetSession":    func(id string) error { return s.SetSession(id, "acct", "sid") },
		"DropSession":   func(id string) error { _, err := s.DropSession(id, "acct", ""); return err },
		"Delete":        func(id string) error { return s.Delete(id) },
		"HasPosts":      func(id string) error { _, err := s.HasPosts(id); return err },
		"Page":          func(id string) error { _, err := s.Page(id, 10, ""); return err },
		"ReadAll":       func(id string) error { _, _, err := s.ReadAll(id); return err },
		"AttachmentDir": func(id string) error { _, err := s.AttachmentDir(id); return err },
	}
	for _, id := range []string{"", "../../victim", "..", "a/b", "x.y", strings.Repeat("z", 65)} {
		for name, op := range ops {
			if err := op(id); !errors.Is(err, ErrBadID) {
				t.Errorf("%s(%q) error = %v, want ErrBadID", name, id, err)
			}
		}
	}
	if _, err := os.Stat(victim); err != nil {
		t.Fatalf("file outside the directory was touched: %v", err)
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 0 {
		t.Fatalf("bad ids left files in the directory: %v", ents)
	}
}
