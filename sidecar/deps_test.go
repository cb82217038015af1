package sidecar_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLinksNothingHeavy: every CLI session launches the sidecar, and what
// it links is start-up time (docs/performance.md "Start-up"): no MCP or
// JSON-schema library, no x/text, no spf13/cast and the templates it
// brought, no net/http or crypto/tls (0.5 ms alone), nothing outside std
// and pullcept but google/uuid. (Tests may link more: go list -deps reads
// the package, not its tests.)
func TestLinksNothingHeavy(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}}", "pullcept/sidecar").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	var deps []string
	std := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, isStd, _ := strings.Cut(line, " ")
		deps = append(deps, pkg)
		std[pkg] = isStd == "true"
	}
	if !slices.Contains(deps, "pullcept/mcpstdio") || !slices.Contains(deps, "encoding/json") {
		t.Fatalf("go list did not list the sidecar's packages:\n%s", out)
	}
	for _, pkg := range deps {
		switch {
		case strings.HasPrefix(pkg, "pullcept/"):
		case !std[pkg]:
			if pkg != "github.com/google/uuid" {
				t.Errorf("the sidecar links %s: no MCP, JSON-schema, x/text, cast or WebSocket library; only google/uuid outside std", pkg)
			}
		case pkg == "html/template" || pkg == "text/template",
			pkg == "net/http" || strings.HasPrefix(pkg, "net/http/"),
			pkg == "crypto/tls" || strings.HasPrefix(pkg, "crypto/tls/"):
			t.Errorf("the sidecar links %s", pkg)
		}
	}
}
