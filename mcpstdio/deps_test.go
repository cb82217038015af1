package mcpstdio

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksOnlyTheStandardLibrary: the package is the sidecar's MCP server
// so that the sidecar need not link net/http (0.5 ms of start-up alone,
// docs/performance.md) or a JSON-schema library. Tests may use mcp-go; the
// package may not.
func TestLinksOnlyTheStandardLibrary(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "pullcept/mcpstdio").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, std, _ := strings.Cut(line, " ")
		n++
		switch {
		case pkg == "net/http" || strings.HasPrefix(pkg, "net/http/") || pkg == "crypto/tls":
			t.Errorf("pullcept/mcpstdio links %s", pkg)
		case std != "true" && !strings.HasPrefix(pkg, "pullcept/"):
			t.Errorf("pullcept/mcpstdio links %s, outside the standard library and pullcept", pkg)
		}
	}
	if n < 10 { // encoding/json alone brings more: the list was not read
		t.Fatalf("go list gave %d packages:\n%s", n, out)
	}
}
