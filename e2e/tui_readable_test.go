package e2e

// The screen at 80x24 as a new user meets it (issue 31 point 6): every
// config error is reachable. The real pullcept in tmux with two bad
// accounts in config.json and a bad server in mcp-servers.json: the status
// line counts the 3 errors and prefix ~ lists each one whole.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTUIConfigErrorsAllReachable(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[
  {"id":"one","name":"One","kind":"no-such-kind","command":"cat"},
  {"id":"two","name":"Two","kind":"cli","command":"cat","hue":"red"},
  {"id":"ok","name":"Fine","kind":"cli","command":"cat"}
]}`)
	if err := os.WriteFile(filepath.Join(phome, "mcp-servers.json"), []byte(`{"mcpServers":{"broken":{"args":["x"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startTUI(t, phome, serverEnv(t), 80, 24, nil)
	r.waitFor("the status line counting 3 config errors", func(scr string) bool {
		return strings.HasPrefix(statusLine(scr), "3 config errors — ctrl+b ~")
	})
	r.prefix("~")
	scr := r.waitText("Notices, oldest first")
	// The overlay wraps each notice at words: read it as one text.
	all := strings.Join(strings.Fields(strings.ReplaceAll(scr, "│", " ")), " ")
	for _, want := range []string{`accounts[0] (id "one")`, `accounts[1] (id "two")`, "mcpServers.broken.command: missing"} {
		if strings.Count(all, "config error:") != 3 || !strings.Contains(all, want) {
			t.Errorf("prefix ~ does not list %q (3 config errors):\n%s", want, scr)
		}
	}
	r.keys("Escape")
	r.waitFor("the notices closed", func(scr string) bool { return !strings.Contains(scr, "Notices, oldest first") })
}
