package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// allowed lists, per package of this module, the other packages of the
// module it may import (docs/architecture.md, "Packages and who may import
// whom"). Packages not listed may import nothing of the module. main may
// import everything. Standard and third-party imports are checked by
// forbiddenOutside.
var allowed = map[string][]string{
	"room/wire":   {},
	"topicstore":  {},
	"dirs":        {},
	"attachment":  {},
	"room":        {"room/wire", "topicstore"},
	"room/socket": {"room", "room/wire", "topicstore"},
	"app":         {"attachment", "dirs", "room", "room/wire", "room/socket", "seat", "topicstore"},
	"control":     {"app"},
	"attach":      {},
	"server":      {"app", "attach", "control", "room/wire", "seat", "tui"},
	"seat":        {"room/wire", "topicstore"},
	"sidecar":     {"room/wire"},
	"tui":         {"app", "room/wire"},
	"e2e":         {"room/wire", "e2e/"},
}

// forbiddenOutside: third-party modules a package must not import (the room
// knows nothing of terminals, Bubble Tea or processes).
var forbiddenOutside = map[string][]string{
	"room":       {"charm.land/", "github.com/charmbracelet/", "github.com/creack/pty", "github.com/mark3labs/"},
	"room/wire":  {"github.com/", "charm.land/"},
	"topicstore": {"charm.land/", "github.com/charmbracelet/", "github.com/creack/pty", "github.com/gorilla/", "github.com/mark3labs/"},
	"sidecar":    {"charm.land/", "github.com/charmbracelet/", "github.com/creack/pty"},
	"attach":     {"charm.land/", "github.com/creack/pty", "github.com/gorilla/", "github.com/mark3labs/"},
}

func TestPackageDependencies(t *testing.T) {
	const module = "pullcept/"
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "third_party" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			return nil // main wires everything
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rule := pkg
		if strings.HasPrefix(pkg, "e2e/") {
			rule = "e2e"
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) {
				target := strings.TrimPrefix(p, module)
				if !permitted(allowed[rule], target) {
					t.Errorf("%s imports %s: not allowed by the package table", path, p)
				}
				continue
			}
			for _, bad := range forbiddenOutside[rule] {
				if strings.HasPrefix(p, bad) {
					t.Errorf("%s imports %s: forbidden for package %s", path, p, rule)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func permitted(list []string, target string) bool {
	for _, a := range list {
		if a == target || (strings.HasSuffix(a, "/") && strings.HasPrefix(target, a)) {
			return true
		}
	}
	return false
}

func TestDependencyRuleCatchesViolations(t *testing.T) {
	if permitted(allowed["room"], "seat") || permitted(allowed["room/wire"], "room") || !permitted(allowed["e2e"], "e2e/fakemodel") {
		t.Fatal("the table does not forbid what it should")
	}
}
