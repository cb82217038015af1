package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/clihome"
)

func TestServeHeadlessLifecycle(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	s := startServe(t, home)
	cur := s.topic()
	if _, err := os.Stat(filepath.Join(home, "logs", "main", cur+".jsonl")); !os.IsNotExist(err) {
		t.Fatal("the start topic must have no file before its first post")
	}
	res := s.do(map[string]any{"cmd": "post", "topic": cur, "content": "Plan the release\n\x1b[31mdetails"})
	if res["delivered"] != true {
		t.Fatalf("%v", res)
	}
	ev := s.wait(func(m map[string]any) bool { return m["event"] == "post" })
	if ev["role"] != "admin" || ev["own"] != true {
		t.Fatalf("post event %v", ev)
	}
	topics := s.do(map[string]any{"cmd": "topics"})["topics"].([]any)
	if len(topics) != 1 || topics[0].(map[string]any)["name"] != "Plan the release" {
		t.Fatalf("topics %v", topics)
	}
	if r := s.do(map[string]any{"cmd": "nonsense"}); r["event"] != "error" {
		t.Fatalf("%v", r)
	}
	if _, err := s.in.Write([]byte("{broken\n")); err != nil {
		t.Fatal(err)
	}
	s.wait(func(m map[string]any) bool {
		return m["event"] == "error" && strings.Contains(m["error"].(string), "bad JSON")
	})

	// pullcept topics reads the same store with no instance needed, and
	// never prints a post's escape sequence raw.
	out := run(t, home, "topics", "show", cur)
	if strings.Contains(out, "\x1b") || !strings.Contains(out, "␛[31mdetails") {
		t.Fatalf("topics show printed %q", out)
	}
	out = run(t, home, "topics", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["id"] != cur {
		t.Fatalf("topics list --json: %q %v", out, err)
	}

	del := s.do(map[string]any{"cmd": "delete", "topic": cur})
	if del["event"] != "deleted" || del["current"] == cur {
		t.Fatalf("%v", del)
	}
	if out := run(t, home, "topics", "list"); !strings.Contains(out, "no topics") {
		t.Fatalf("after delete: %q", out)
	}
}

func TestTopicsCommandSurvivesBrokenLines(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	dir := filepath.Join(home, "logs", "main")
	os.MkdirAll(dir, 0o700)
	id := "0193aaaa-0000-7000-8000-000000000001"
	body := `{"message_id":"a","speaker":"Lin","content":"first","to":"Lay","ts":"2026-10-01T00:00:00Z"}` + "\n" +
		"garbage line\n" +
		`{"message_id":"b","speaker":"Lay","content":"second","ts":"2026-10-01T00:01:00Z"}` + "\n" +
		`{"message_id":"c","speaker":"Li`
	os.WriteFile(filepath.Join(dir, id+".jsonl"), []byte(body), 0o600)
	out := run(t, home, "topics", "show", id, "--json")
	var got struct {
		Posts []struct {
			MessageID string   `json:"message_id"`
			To        []string `json:"to"`
		}
		Skipped int
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err, out)
	}
	if len(got.Posts) != 2 || got.Skipped != 2 || got.Posts[0].To[0] != "Lay" {
		t.Fatalf("%+v", got)
	}
	if out := run(t, home, "topics", "list"); !strings.Contains(out, "first") {
		t.Fatalf("an unindexed log must be listed, named from its first post: %q", out)
	}
}

func run(t *testing.T, home string, args ...string) string {
	t.Helper()
	cmd := exec.Command(pullceptBin, args...)
	cmd.Env = append(os.Environ(), "PULLCEPT_HOME="+home)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pullcept %v: %v\n%s", args, err, stderr.String())
	}
	return string(out)
}

// TestSidecarWithTypeScriptSDKAgainstServe drives `pullcept sidecar`
// with the official TypeScript MCP SDK client against a real `pullcept
// serve`: tools and schemas, instructions length, post, floor refusal,
// draft resend, history pages, topics not crossing.
func TestSidecarWithTypeScriptSDKAgainstServe(t *testing.T) {
	t.Parallel()
	node, prefix := nodeSDK(t)
	s := startServe(t, t.TempDir())
	topic := s.topic()
	last := ""
	for _, body := range []string{"h1", "h2", "h3"} {
		r := s.do(map[string]any{"cmd": "post", "topic": topic, "content": body, "last_seen": last})
		if r["delivered"] != true {
			t.Fatalf("%v", r)
		}
		last = r["message_id"].(string)
	}
	other := s.do(map[string]any{"cmd": "new"})["topic"].(string)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(repoRoot(t), "sidecar", "testdata", "sdk_client.mjs"))
	cmd.Env = append(os.Environ(), "SDK_PREFIX="+prefix, "SIDECAR_BIN="+pullceptBin,
		"ROOM_URL="+s.url(), "ROOM_TOKEN="+s.token(), "TOPIC="+topic, "OTHER_TOPIC="+other, "LIMIT=1792")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var got struct{ Posted, Resent string }
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &got); err != nil || got.Posted == "" || got.Resent == "" {
		t.Fatalf("node output %q: %v", stdout.String(), err)
	}
	// serve saw both SDK posts in the first topic, and the other topic's
	// post only there.
	for _, id := range []string{got.Posted, got.Resent} {
		ev := s.wait(func(m map[string]any) bool {
			p, _ := m["post"].(map[string]any)
			return m["event"] == "post" && p["message_id"] == id
		})
		if ev["topic"] != topic {
			t.Fatalf("post %s went to %v", id, ev["topic"])
		}
	}
	if n := s.count(func(m map[string]any) bool { return m["event"] == "post" && m["topic"] == other }); n != 1 {
		t.Fatalf("%d posts in the other topic, want 1", n)
	}
}

// TestClaudeSeesTheSidecarConnected registers `pullcept sidecar` in a
// throwaway HOME and asks the real Claude Code CLI for its MCP servers.
func TestClaudeSeesTheSidecarConnected(t *testing.T) {
	t.Parallel()
	bins := newestBins(t)
	s := startServe(t, t.TempDir())
	cwd := t.TempDir()
	h := clihome.New(t, clihome.Options{BaseURL: "http://127.0.0.1:9", Cwd: cwd})
	server := map[string]any{"type": "stdio", "command": pullceptBin, "args": []string{"sidecar"}, "env": map[string]string{
		"PULLCEPT_ROOM_URL": s.url(), "PULLCEPT_ROOM_TOKEN": s.token(), "PULLCEPT_AGENT_NAME": "Lin", "PULLCEPT_ROOM_ID": s.topic(),
	}}
	b, _ := json.Marshal(server)
	claude := func(args ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, bins.Claude, args...)
		cmd.Env, cmd.Dir = h.Env, cwd
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("claude %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	claude("mcp", "add-json", "--scope", "user", "room", string(b))
	out := claude("mcp", "list")
	if !strings.Contains(out, "room:") || !strings.Contains(out, "Connected") {
		t.Fatalf("claude mcp list:\n%s", out)
	}
	// The sidecar took a seat in the room while Claude checked it.
	s.wait(func(m map[string]any) bool {
		ps, _ := m["participants"].([]any)
		for _, p := range ps {
			if p.(map[string]any)["name"] == "Lin" {
				return m["event"] == "roster"
			}
		}
		return false
	})
}
