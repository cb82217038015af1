package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// waitLine polls a file (a seat's record of what was typed into it; a file
// has no event) until a line contains every one of want, and returns it.
func waitLine(t *testing.T, path string, want ...string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		for _, l := range strings.Split(string(data), "\n") {
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(l, w)
			}
			if ok {
				return l
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never had a line with %q; it has:\n%s", filepath.Base(path), want, data)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestNamesThroughServe: nicknames and full names end to end (issue 15;
// spec 003 ニックネームと元の名前). Two PTY seats (namecli.sh records every
// line typed into them) and two scripted agents (the official MCP SDK
// client) in one topic of a real `pullcept serve`: the tag each receiver
// sees (from/full_name, and you/your_full_name for addressed posts),
// full_name in history and in a refusal's missed posts, and renames while
// seated (control `nickname`) reaching every roster, the sidecar's tools and
// results, and the tags typed afterwards.
func TestNamesThroughServe(t *testing.T) {
	t.Parallel()
	node, prefix := nodeSDK(t)
	home, logs := t.TempDir(), t.TempDir()
	script := strconv.Quote(filepath.Join(repoRoot(t), "e2e", "testdata", "namecli.sh"))
	linLog, layLog := filepath.Join(logs, "lin.log"), filepath.Join(logs, "lay.log")
	acct := func(id, name, nick, log string) string {
		a := `{"id":"` + id + `","kind":"cli","name":"` + name + `","command":` + script
		if nick != "" {
			a += `,"nickname":"` + nick + `"`
		}
		return a + `,"env":{"NAMECLI_LOG":` + strconv.Quote(log) + `}}`
	}
	cfg := `{"accounts":[` + acct("lin", "Claude Lin", "Lin", linLog) + `,` + acct("lay", "Lay", "", layLog) + `,` +
		acct("kay", "Claude Kay", "Kay", "/dev/null") + `,` + acct("eta", "Codex Eta", "Eta", "/dev/null") + `]}`
	if err := os.WriteFile(filepath.Join(home, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, home)
	topic := s.topic()
	for _, a := range []string{"lin", "lay"} {
		if r := s.do(map[string]any{"cmd": "start", "topic": topic, "account": a}); r["event"] != "start" {
			t.Fatalf("start %s: %v", a, r)
		}
	}
	s.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, "Lin") && hasParticipant(m, "Lay")
	})

	// The person addresses Lin: each terminal's tag names its own receiver.
	r := s.do(map[string]any{"cmd": "post", "topic": topic, "content": "@Lin hello"})
	if r["delivered"] != true {
		t.Fatalf("%v", r)
	}
	first := r["message_id"].(string)
	waitLine(t, linLog, `"message_id":"`+first+`"`, `"to":["Lin"],"you":"Lin","your_full_name":"Claude Lin"}`)
	waitLine(t, layLog, `"message_id":"`+first+`"`, `"to":["Lin"],"you":"Lay","your_full_name":"Lay"}`)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(repoRoot(t), "e2e", "testdata", "names_client.mjs"))
	cmd.Env = append(os.Environ(), "SDK_PREFIX="+prefix, "SIDECAR_BIN="+pullceptBin,
		"ROOM_URL="+s.url(), "ROOM_TOKEN="+s.token(), "TOPIC="+topic, "LAST="+first)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Wait() }()
	out := bufio.NewScanner(stdout)
	phase := func() map[string]string {
		t.Helper()
		if !out.Scan() {
			cancel()
			cmd.Wait()
			t.Fatalf("node ended: %v\nstderr:\n%s", out.Err(), stderr.String())
		}
		var m map[string]any
		if err := json.Unmarshal(out.Bytes(), &m); err != nil {
			t.Fatalf("node printed %q", out.Text())
		}
		got := map[string]string{}
		for k, v := range m {
			if s, ok := v.(string); ok {
				got[k] = s
			}
		}
		return got
	}
	phase() // both agents' sidecars started
	s.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, "Kay") && hasParticipant(m, "Eta")
	})
	if _, err := stdin.Write([]byte("go\n")); err != nil {
		t.Fatal(err)
	}
	kayID := phase()["kay"]
	// Kay's post, as typed into Lin (addressed) and Lay (a receiver not named).
	waitLine(t, linLog, `"from":"Kay","full_name":"Claude Kay","message_id":"`+kayID+`"`, `"you":"Lin","your_full_name":"Claude Lin"}`)
	waitLine(t, layLog, `"from":"Kay","full_name":"Claude Kay","message_id":"`+kayID+`"`, `"you":"Lay"`)
	ev := s.wait(func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && p["message_id"] == kayID
	})
	if p := ev["post"].(map[string]any); p["speaker"] != "Kay" || p["full_name"] != "Claude Kay" {
		t.Errorf("Kay's post: %v", p)
	}

	// Rename Eta while seated; the roster changes, the sidecar is told.
	if r := s.do(map[string]any{"cmd": "nickname", "account": "eta", "nickname": "Etta"}); r["name"] != "Etta" {
		t.Fatalf("nickname: %v", r)
	}
	s.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, "Etta") && !hasParticipant(m, "Eta")
	})
	if _, err := stdin.Write([]byte("renamed\n")); err != nil {
		t.Fatal(err)
	}
	ettaID := phase()["etta"]
	ev = s.wait(func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && p["message_id"] == ettaID
	})
	if p := ev["post"].(map[string]any); p["speaker"] != "Etta" || p["full_name"] != "Codex Eta" {
		t.Errorf("Etta's post: %v", p)
	}
	waitLine(t, layLog, `"from":"Etta","full_name":"Codex Eta","message_id":"`+ettaID+`"`, `"to":["Lay"],"you":"Lay"`)

	// Rename a PTY seat: the tags typed into it from now on say so.
	if r := s.do(map[string]any{"cmd": "nickname", "account": "lin", "nickname": "Lino"}); r["name"] != "Lino" {
		t.Fatalf("nickname: %v", r)
	}
	s.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, "Lino")
	})
	r = s.do(map[string]any{"cmd": "post", "topic": topic, "content": "@Lino again", "last_seen": ettaID})
	if r["delivered"] != true {
		t.Fatalf("%v", r)
	}
	waitLine(t, linLog, `"message_id":"`+r["message_id"].(string)+`"`, `"to":["Lino"],"you":"Lino","your_full_name":"Claude Lin"}`)
	// Old posts keep the names they were said under in the log.
	for _, l := range strings.Split(topicLines(t, home, topic), "\n") {
		if strings.Contains(l, `"message_id":"`+first+`"`) && !strings.Contains(l, `"to":["Lin"]`) {
			t.Errorf("the rename rewrote an old post's addressees: %s", l)
		}
		if strings.Contains(l, `"message_id":"`+kayID+`"`) && (!strings.Contains(l, `"speaker":"Kay","full_name":"Claude Kay"`) || !strings.Contains(l, `"to":["Lin"]`)) {
			t.Errorf("Kay's post logged without its names: %s", l)
		}
	}
}

// topicLines is a topic's log file.
func topicLines(t *testing.T, home, topic string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(home, "logs", "main", topic+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
