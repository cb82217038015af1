package web

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAssetsMatchSources: the committed build (web/dist, embedded) is
// web/build.sh's output for web/src: the page's own files byte for byte,
// xterm.js and its CSS at the version package-lock.json pins, as VENDOR
// records them — and, where `npm ci` has run in web/src (.ci/run does),
// the very files of that package.
func TestAssetsMatchSources(t *testing.T) {
	for _, f := range []string{"index.html", "app.js", "style.css"} {
		src, err := os.ReadFile(filepath.Join("src", f))
		if err != nil {
			t.Fatal(err)
		}
		built, err := dist.ReadFile("dist/" + f)
		if err != nil || !bytes.Equal(src, built) {
			t.Errorf("dist/%s differs from src/%s: run web/build.sh and commit web/dist", f, f)
		}
	}
	var lock struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	b, err := os.ReadFile("src/package-lock.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatal(err)
	}
	pinned := lock.Packages["node_modules/@xterm/xterm"].Version
	vendor, err := dist.ReadFile("dist/VENDOR")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(vendor)), "\n")
	if pinned == "" || lines[0] != "@xterm/xterm "+pinned {
		t.Errorf("dist/VENDOR says %q; package-lock.json pins @xterm/xterm %q: run web/build.sh", lines[0], pinned)
	}
	for _, l := range lines[1:] {
		sum, name, _ := strings.Cut(l, "  ")
		built, err := dist.ReadFile("dist/" + name)
		got := sha256.Sum256(built)
		if err != nil || hex.EncodeToString(got[:]) != sum {
			t.Errorf("dist/%s is not the file VENDOR records", name)
		}
		pkg := map[string]string{"xterm.js": "lib/xterm.js", "xterm.css": "css/xterm.css"}[name]
		orig, err := os.ReadFile(filepath.Join("src", "node_modules", "@xterm", "xterm", pkg))
		if err != nil {
			t.Logf("src/node_modules not installed (npm ci in web/src): dist/%s checked against VENDOR only", name)
			continue
		}
		if !bytes.Equal(orig, built) {
			t.Errorf("dist/%s differs from the installed @xterm/xterm's %s", name, pkg)
		}
	}
}
