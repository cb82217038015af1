package control

import (
	"context"
	"path/filepath"
	"testing"

	"pullcept/room"
	"pullcept/topicstore"
)

// FuzzHandle: any control line gets exactly one answer with an "event",
// and an error line names its reason; no input makes serve panic.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{`{"cmd":"topics"}`, `{"cmd":"post","topic":"t1","content":"hi"}`, `{"cmd":"open","topic":"../x"}`,
		`{"cmd":"rename","topic":"t1","name":""}`, `{"cmd":"delete","topic":"t1"}`, `{"cmd":"start"}`, `{`, `[]`, `{"cmd":5}`} {
		f.Add([]byte(s))
	}
	store, err := topicstore.Open(filepath.Join(f.TempDir(), "logs", "main"))
	if err != nil {
		f.Fatal(err)
	}
	e := room.New(room.Config{Log: store})
	srv := &Server{Engine: e, Store: store, current: "t1"}
	if _, err := e.Open("t1"); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		res := srv.handle(context.Background(), data)
		ev, _ := res["event"].(string)
		if ev == "" {
			t.Fatalf("answer without an event: %v", res)
		}
		if ev == "error" {
			if msg, _ := res["error"].(string); msg == "" {
				t.Fatalf("error without a reason: %v", res)
			}
		}
	})
}
