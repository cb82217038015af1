package e2e

// Local MCP servers and webhook notices in the TUI (issue 17): the real
// pullcept in tmux, a scripted github-webhook-mcp bridge
// (mcpserv/testdata/fakebridge) cued over its Unix socket, a cli seat in
// the room (testdata/askcli.sh). Notices fold by server until someone else
// speaks and open into each post; the participants' MCP section follows
// the server's state through a crash and a restart; a server created and
// deleted from the screen writes and removes only its entry; and no
// server outlives kill-server, not even one that ignores the end of its
// stdin, nor the child it left in its process group.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

func buildFakeBridge(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "fakebridge")
	build := exec.Command("go", "build", "-o", bin, "./mcpserv/testdata/fakebridge")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build fakebridge: %v\n%s", err, out)
	}
	return bin
}

// bridgeCue sends one cue to the fake bridge listening at ctl.
func bridgeCue(t *testing.T, ctl string, c any) {
	t.Helper()
	conn, err := net.Dial("unix", ctl)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	b, _ := json.Marshal(c)
	conn.Write(append(b, '\n'))
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil && !strings.Contains(string(b), `"exit"`) || err == nil && line != "ok\n" {
		t.Fatalf("cue %s: %q %v", b, line, err)
	}
}

func bridgePush(content, id string) map[string]any {
	return map[string]any{"push": map[string]any{"content": content, "meta": map[string]any{"chat_id": "github", "message_id": id, "user": "alice", "ts": "2026-10-14T00:00:00.000Z"}}}
}

// roomColumn is the room pane's text: the second column of each row.
func roomColumn(scr string) string {
	var out []string
	for _, row := range strings.Split(scr, "\n") {
		if parts := strings.Split(row, "│"); len(parts) > 1 {
			out = append(out, parts[1])
		}
	}
	return strings.Join(out, "\n")
}

func TestMCPTmux(t *testing.T) {
	t.Parallel()
	fake := buildFakeBridge(t)
	// Short: the bridge's Unix socket lives here.
	phome, err := os.MkdirTemp("", "mcpe2e")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(phome) })
	ctl := filepath.Join(phome, "hooks.sock")
	pidfile := filepath.Join(phome, "hooks.pid")
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "askcli.sh")
	writeConfig(t, phome, `{"accounts":[{"id":"ask","name":"Ask","kind":"cli","command":`+strconv.Quote(script)+`},`+
		`{"id":"mcp-hooks","name":"Hooks","kind":"mcp","hue":30}]}`)
	serversFile := filepath.Join(phome, "mcp-servers.json")
	hand := fmt.Sprintf("{\n  \"mcpServers\": {\n    \"hooks\": {\"command\": %q, \"env\": {\"FAKEBRIDGE_CTL\": %q, \"FAKEBRIDGE_PIDFILE\": %q, \"FAKEBRIDGE_IGNORE_EOF\": \"1\", \"FAKEBRIDGE_CHILD\": \"1\"}}\n  }\n}\n", fake, ctl, pidfile)
	os.WriteFile(serversFile, []byte(hand), 0o600)
	// The editor of "+": fills the new server's fields.
	editor := filepath.Join(phome, "fill.sh")
	ctl2 := filepath.Join(phome, "second.sock")
	os.WriteFile(editor, []byte("#!/bin/sh\n[ \"$1\" = -- ] && shift\nsed -i -e 's|^name = $|name = Second Hook|' -e 's|^command = $|command = "+fake+"|' -e 's|^\\[env\\]$|[env]\\nFAKEBRIDGE_CTL="+ctl2+"|' \"$1\"\n"), 0o755)
	r := startTUI(t, phome, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "EDITOR=" + editor}, 160, 40, func() {
		log, _ := os.ReadFile(serversFile)
		t.Logf("mcp-servers.json:\n%s", log)
	})
	hooksRunning := regexp.MustCompile(`● Hooks +running`)
	r.waitFor("the MCP section with Hooks running", func(scr string) bool {
		p := participantsText(scr)
		return strings.Contains(p, "\nMCP") && hooksRunning.MatchString(p)
	})
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitFor("Ask in the room", func(scr string) bool { return regexp.MustCompile(`● Ask +in room`).MatchString(scr) })

	// Three notices fold into one; the person's post ends the run.
	for i := 1; i <= 3; i++ {
		bridgeCue(t, ctl, bridgePush(fmt.Sprintf("[push] acme/web\nby bob %d", i), fmt.Sprintf("ev-%d", i)))
	}
	r.waitText("▸ Hooks 3 posts")
	// Typed into the seat under the mcp role, each with its own line.
	r.waitFor("the notices typed into Ask", func(scr string) bool {
		return strings.Contains(scr, `{"role":"mcp","from":"Hooks"`) && strings.Contains(scr, "GOT<by bob 3>") && strings.Contains(scr, "GOT<If this is your own operation, mark it processed now: event_id=")
	})
	r.prefix("i")
	r.text("between")
	r.keys("Enter")
	r.waitText("between")
	bridgeCue(t, ctl, bridgePush("[push] acme/web\nby bob 4", "ev-4"))
	scr := r.waitText("▸ Hooks 3 posts", "▸ Hooks 1 post")
	if strings.Contains(roomColumn(scr), "by bob 2") {
		t.Fatalf("a folded notice is shown:\n%s", scr)
	}
	// e in the room opens every fold: each notice is a post of its own.
	r.prefix("r")
	r.keys("e")
	r.waitFor("every notice shown", func(scr string) bool {
		room := roomColumn(scr)
		for _, s := range []string{"▾ Hooks 3 posts", "by bob 1", "by bob 2", "by bob 3", "▾ Hooks 1 post", "by bob 4", "If this is your own"} {
			if !strings.Contains(room, s) {
				return false
			}
		}
		return true
	})
	r.keys("e")
	r.waitText("▸ Hooks 3 posts")

	// A crash: ended, not restarted; R in the participants restarts it.
	bridgeCue(t, ctl, map[string]any{"exit": 3})
	r.waitFor("Hooks ended", func(scr string) bool {
		return regexp.MustCompile(`● Hooks +ended`).MatchString(participantsText(scr))
	})
	r.waitText("exit 3")
	r.prefix("a")
	r.keys("j", "j") // you, Ask, Hooks
	r.keys("R")
	r.waitFor("Hooks running again", func(scr string) bool { return hooksRunning.MatchString(participantsText(scr)) })

	// + creates a server from the fields the editor wrote: only its entry
	// is added to the file, its account speaks with the chosen name.
	r.keys("+")
	r.waitFor("Second Hook running", func(scr string) bool {
		return regexp.MustCompile(`● Second Ho(ok|…) +running`).MatchString(participantsText(scr))
	})
	after, _ := os.ReadFile(serversFile)
	if !strings.HasPrefix(string(after), strings.TrimSuffix(hand, "\n  }\n}\n")+",\n    \"Second-Hook\": {") {
		t.Fatalf("the file after +:\n%s", after)
	}
	cfg, _ := os.ReadFile(filepath.Join(phome, "config.json"))
	if !strings.Contains(string(cfg), `"id": "mcp-Second-Hook"`) || !strings.Contains(string(cfg), `"name": "Second Hook"`) {
		t.Fatalf("config.json:\n%s", cfg)
	}
	// D, y deletes it: the file is as it was.
	r.keys("j") // the new server's row
	r.keys("D")
	r.waitText("Delete the MCP server “Second Hook”?")
	r.keys("y")
	r.waitFor("Second Hook gone", func(scr string) bool { return !strings.Contains(participantsText(scr), "Second Hoo") })
	r.until("the file as it was", func() bool { b, _ := os.ReadFile(serversFile); return string(b) == hand })

	// kill-server ends the bridge, which ignores its stdin's end, and the
	// child it left in its group.
	var pids []int
	r.until("the bridge's pids", func() bool {
		b, err := os.ReadFile(pidfile)
		pids = nil
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			pids = append(pids, n)
		}
		return err == nil && len(pids) == 2
	})
	endServer(t, phome, []string{"PULLCEPT_HOME=" + phome})
	for _, pid := range pids {
		r.until(fmt.Sprintf("pid %d gone", pid), func() bool {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			return err != nil || strings.Contains(string(b), ") Z ") || syscall.Kill(pid, 0) != nil
		})
	}
}
