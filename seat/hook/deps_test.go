package hook

import (
	"os/exec"
	"strings"
	"testing"
)

// `pullcept hook` runs at every hook a seat's CLI fires: this package links
// the standard library without net/http and crypto/tls, and of pullcept
// only room/dial and room/wire (package doc). The tests may link more.
func TestLinksLittle(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "pullcept/seat/hook").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	own := map[string]bool{"pullcept/seat/hook": true, "pullcept/room/dial": true, "pullcept/room/wire": true}
	n := 0
	for line := range strings.Lines(string(out)) {
		path, std, _ := strings.Cut(strings.TrimSpace(line), " ")
		n++
		switch {
		case path == "net/http" || strings.HasPrefix(path, "net/http/") || path == "crypto/tls" || strings.HasPrefix(path, "crypto/tls/"):
			t.Errorf("pullcept/seat/hook links %s", path)
		case own[path]:
			delete(own, path)
		case std != "true":
			t.Errorf("pullcept/seat/hook links %s: only the standard library, room/dial and room/wire are allowed", path)
		}
	}
	if n < 10 || len(own) > 0 {
		t.Fatalf("go list printed %d packages without %v: not the dependency list\n%s", n, own, out)
	}
}
