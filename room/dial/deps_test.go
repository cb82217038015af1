package dial

import (
	"os/exec"
	"strings"
	"testing"
)

// The point of this package: `pullcept sidecar` and `pullcept hook` start
// without net/http's and crypto/tls's initialisation (package doc). The
// tests may use both; the package may not.
func TestLinksNoHTTPNorTLS(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "pullcept/room/dial").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for line := range strings.Lines(string(out)) {
		path, std, _ := strings.Cut(strings.TrimSpace(line), " ")
		n++
		switch {
		case path == "net/http" || strings.HasPrefix(path, "net/http/") || path == "crypto/tls" || strings.HasPrefix(path, "crypto/tls/"):
			t.Errorf("pullcept/room/dial links %s", path)
		case path == "pullcept/room/dial":
		case std != "true":
			t.Errorf("pullcept/room/dial links %s: only the standard library is allowed", path)
		}
	}
	if n < 10 {
		t.Fatalf("go list printed %d packages: not the dependency list\n%s", n, out)
	}
}
