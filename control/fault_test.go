package control

import (
	"bytes"
	"context"
	"io"
	"testing"

	"pullcept/app"
	"pullcept/dirs"
	"pullcept/seat"
)

// panicReader is a control client's input that fails.
type panicReader struct{}

func (panicReader) Read([]byte) (int, error) { panic("test: a fault in the control input") }

// A panic in one of Serve's goroutines (here its reader) is raised again
// in Serve's own, as a *Panic with the stack where it began: the server
// recovers it there and ends that control client only. Before, it ended
// the process.
func TestServeRaisesItsGoroutinesPanics(t *testing.T) {
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Start(context.Background(), app.Options{Dirs: d, PersonName: "Master", Accounts: []seat.Account{}, ExePath: "/bin/false"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	defer func() {
		p, ok := recover().(*Panic)
		if !ok || p.Value != "test: a fault in the control input" || !bytes.Contains(p.Stack, []byte("panicReader")) {
			t.Fatalf("recovered %+v", p)
		}
	}()
	_ = (&Server{App: a}).Serve(context.Background(), panicReader{}, io.Discard)
	t.Fatal("Serve returned")
}
