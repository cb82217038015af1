package server

import (
	"os"
	"strings"
	"testing"

	"pullcept/attach"
)

// Relisten makes a deleted socket file again, and the server answers
// there; asked while its own socket is still in place it changes nothing
// (a new listener would drop the connections waiting on the old one).
// After the end it makes none.
func TestRelisten(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{})
	if err := os.Remove(f.sock); err != nil {
		t.Fatal(err)
	}
	if _, err := attach.Dial(f.sock); !attach.NoServer(err) {
		t.Fatalf("dial with the socket deleted: %v", err)
	}
	if err := f.srv.Relisten(); err != nil {
		t.Fatal(err)
	}
	if out := f.ls(); !strings.Contains(out, "socket "+f.sock) {
		t.Fatalf("ls after Relisten: %q", out)
	}
	before := socketIno(f.sock)
	if err := f.srv.Relisten(); err != nil || socketIno(f.sock) != before {
		t.Fatalf("Relisten over its own socket made a new one: %v", err)
	}
	if out := f.ls(); !strings.Contains(out, "socket "+f.sock) {
		t.Fatalf("ls after a second Relisten: %q", out)
	}

	f.cancel()
	<-f.done
	if err := f.srv.Relisten(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(f.sock); !os.IsNotExist(err) {
		t.Fatalf("a socket after the end: %v", err)
	}
}
