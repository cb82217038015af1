package mcpserv

import (
	"io"
	"strings"
	"testing"
)

// The client reads the JSON lines, in order; a line that is not JSON or is
// past the limit is skipped and said; the end closes done.
func TestStdoutLines(t *testing.T) {
	var said []string
	in := "{\"a\":1}\r\nnot json\n\n" + `{"long":"` + strings.Repeat("x", 100) + `"}` + "\n[2]\n{\"last\":true}"
	s := newStdoutLines(strings.NewReader(in), func(why string) { said = append(said, why) })
	s.limit = 64
	got, err := io.ReadAll(s)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"a\":1}\n[2]\n{\"last\":true}\n"; string(got) != want {
		t.Errorf("read %q, want %q", got, want)
	}
	if len(said) != 2 || !strings.Contains(said[0], `not JSON was skipped: "not json"`) || !strings.Contains(said[1], "longer than 64 bytes") {
		t.Errorf("said %q", said)
	}
	select {
	case <-s.done:
	default:
		t.Error("done is not closed at the end")
	}
}
