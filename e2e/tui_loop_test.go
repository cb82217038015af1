package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestTUILoopBudget (issue 36): two scripted agents on the official MCP
// TypeScript SDK that always answer each other, in the TUI in tmux with
// "agent_loop": "hold" and a budget of 3: after the person's post the
// topic row is marked ↻, the status line says "Lin and Lay have exchanged
// 4 posts without you … 1 held", the bell rings; prefix g lets them go on
// until the next budget (the person's post is e2e/loop_test.go's).
func TestTUILoopBudget(t *testing.T) {
	t.Parallel()
	_, prefix := nodeSDK(t)
	script := filepath.Join(repoRoot(t), "e2e", "testdata", "loop_agent.mjs")
	phome, cwd := t.TempDir(), t.TempDir()
	acc := func(id, name, answer string) string {
		return fmt.Sprintf(`{"id":%q,"name":%q,"kind":"cli","dir":%q,"command":"node %s {mcp_config}","env":{"ANSWER":%q,"MAX":"20"}}`, id, name, cwd, script, answer)
	}
	writeConfig(t, phome, `{"accounts":[`+acc("lin", "Lin", "Master,Lay")+","+acc("lay", "Lay", "Lin")+`],"agent_posts_per_person_post":3,"agent_loop":"hold"}`)
	r := startTUI(t, phome, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8", "SDK_PREFIX=" + prefix}, 160, 40, nil)
	raw := filepath.Join(t.TempDir(), "raw")
	r.tmux("pipe-pane", "-o", "cat >> "+shellQuote(raw))
	r.waitText("say something to the room", "Participants", "Lin", "Lay")
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.keys("j")
	r.keys("s")
	r.waitFor("both agents in the room", func(scr string) bool {
		return regexp.MustCompile(`● Lin +in room`).MatchString(scr) && regexp.MustCompile(`● Lay +in room`).MatchString(scr)
	})

	r.prefix("i")
	r.text("begin")
	r.keys("Enter")
	r.waitText("Lin and Lay have exchanged 4 posts without you", "1 held; ctrl+b g lets them go on")
	r.waitFor("the ↻ mark on the topic row", func(scr string) bool { return strings.HasPrefix(topicRows(scr)[0], "↻") })
	r.until("the bell", func() bool {
		data, _ := os.ReadFile(raw)
		return strings.Contains(string(data), "\a")
	})

	r.prefix("g")
	r.waitText("go on for 3 more posts")
	r.waitText("Lin and Lay have exchanged 7 posts without you", "1 held")
}
