package control

import (
	"context"
	"testing"

	"pullcept/app"
	"pullcept/dirs"
	"pullcept/seat"
)

// FuzzHandle: any control line gets exactly one answer with an "event",
// and an error line names its reason; no input makes serve panic.
func FuzzHandle(f *testing.F) {
	for _, s := range []string{`{"cmd":"topics"}`, `{"cmd":"post","topic":"t1","content":"hi"}`, `{"cmd":"open","topic":"../x"}`,
		`{"cmd":"rename","topic":"t1","name":""}`, `{"cmd":"delete","topic":"t1"}`, `{"cmd":"start"}`, `{`, `[]`, `{"cmd":5}`} {
		f.Add([]byte(s))
	}
	home := f.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		f.Fatal(err)
	}
	a, err := app.Start(context.Background(), app.Options{Dirs: d, Accounts: []seat.Account{}, ExePath: "/bin/false"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(a.Close)
	cur, err := a.NewTopic()
	if err != nil {
		f.Fatal(err)
	}
	srv := &Server{App: a, current: cur}
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
