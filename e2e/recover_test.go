package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A corrupted index.json hides no topic: the next run rebuilds the index
// from the topic files, keeps the unreadable file aside, and says so.
func TestServeRebuildsACorruptIndex(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := startServe(t, home)
	cur := s.topic()
	if r := s.do(map[string]any{"cmd": "post", "topic": cur, "content": "Plan the release"}); r["delivered"] != true {
		t.Fatalf("%v", r)
	}
	s.stop()
	index := filepath.Join(home, "logs", "main", "index.json")
	if err := os.WriteFile(index, []byte(`{"topics": {"`+cur+`": {"name": "Plan the rel`), 0o600); err != nil {
		t.Fatal(err)
	}

	s2 := startServe(t, home)
	if n, _ := s2.Ready["notice"].(string); !strings.Contains(n, "index.json") {
		t.Fatalf("the ready line says nothing of the rebuilt index: %v", s2.Ready)
	}
	topics := s2.do(map[string]any{"cmd": "topics"})["topics"].([]any)
	if len(topics) != 1 || topics[0].(map[string]any)["id"] != cur {
		t.Fatalf("topics after the rebuild: %v", topics)
	}
	kept, _ := filepath.Glob(index + ".*")
	if len(kept) != 1 {
		t.Fatalf("the unreadable index was not kept aside: %v", kept)
	}
	if r := s2.do(map[string]any{"cmd": "open", "topic": cur}); len(r["posts"].([]any)) != 1 {
		t.Fatalf("open after the rebuild: %v", r)
	}
}
