package e2e

// The person's environment (issue 31, point 7): the server was started by
// one terminal, and the person's shell in another has another PATH. A seat
// started from the second finds its CLI on that terminal's PATH, `accounts
// add` checks the PATH of the terminal that ran it, and an account added
// while the screens are open (none at first: the first run) appears on
// them at once.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServerSeatEnvIsTheClients(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[]}`)
	cliDir := t.TempDir()
	script := "#!/bin/sh\necho \"FAKECLI READY lang=$LANG\"\nexec cat\n"
	if err := os.WriteFile(filepath.Join(cliDir, "fakecli"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	path := os.Getenv("PATH")
	// A starts the server; its PATH has no fakecli.
	a := startTUI(t, phome, serverEnv(t), 120, 35, nil)
	a.waitText("say something to the room", "no accounts:")
	// B's shell has it, and another locale.
	b := startTUI(t, phome, []string{"PATH=" + cliDir + ":" + path, "HOME=" + t.TempDir(), "LANG=C.UTF-8", "LC_ALL=C.UTF-8"}, 120, 35, nil)
	b.waitText("say something to the room", "no accounts:")

	add := func(env []string, id string) string {
		t.Helper()
		res := pullceptCmd(t, phome, env, "accounts", "add", "--kind", "cli", "--id", id, "--name", id, "--command", "fakecli")
		if res.code != 0 {
			t.Fatalf("accounts add %s: exit %d\n%s%s", id, res.code, res.out, res.err)
		}
		return res.out
	}
	if out := add([]string{"PATH=" + cliDir + ":" + path}, "Fake"); strings.Contains(out, "not found") {
		t.Errorf("accounts add from a shell whose PATH has the command warned:\n%s", out)
	}
	if out := add([]string{"PATH=" + path}, "Other"); !strings.Contains(out, "fakecli is not found on PATH") {
		t.Errorf("accounts add from a shell whose PATH lacks the command did not warn:\n%s", out)
	}
	// Both screens show the accounts at once.
	for _, r := range []*tuiRun{a, b} {
		r.waitFor("the added accounts in the participants", func(scr string) bool {
			p := participantsText(scr)
			return strings.Contains(p, "Fake") && strings.Contains(p, "Other") && !strings.Contains(scr, "no accounts:")
		})
	}
	// B starts Fake: found on B's PATH, with B's locale.
	b.prefix("a")
	b.keys("j")
	b.keys("s")
	b.waitText("Fake · cli · running", "FAKECLI READY lang=C.UTF-8")
}
