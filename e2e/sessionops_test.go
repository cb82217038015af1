package e2e

// Session operations end to end (issue 18; spec 003 AI からのセッション操作):
// seats of `pullcept serve` start, stop and restart each other through the
// sidecar's tools, proven by their launch's capability.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/fakemodel"
	"pullcept/room"
)

// opRecord is the part of a session record the tests read.
type opRecord struct {
	OperationID    string `json:"operation_id"`
	Action         string `json:"action"`
	AccountID      string `json:"account_id"`
	State          string `json:"state"`
	Error          string `json:"error"`
	PtyID          string `json:"pty_id"`
	StoppedPtyID   string `json:"stopped_pty_id"`
	Launched       string `json:"launched"`
	AcceptedAt     string `json:"accepted_at"`
	ProcessRunning *bool  `json:"process_running"`
	RoomConnected  *bool  `json:"room_connected"`
	RequestedBy    struct {
		AccountID string `json:"account_id"`
	} `json:"requested_by"`
}

// savedRecord reads one operation from session-operations.json and, while
// the server runs, the journal beside it (its newest line of an id wins).
func savedRecord(t *testing.T, phome, id string) opRecord {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(phome, "session-operations.json"))
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var f struct{ Operations []opRecord }
	if len(data) > 0 {
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
	}
	journal, _ := os.ReadFile(filepath.Join(phome, "session-operations.journal"))
	for _, line := range strings.Split(string(journal), "\n") {
		var r opRecord
		if json.Unmarshal([]byte(line), &r) == nil && r.OperationID != "" {
			f.Operations = append(f.Operations, r)
		}
	}
	for i := len(f.Operations) - 1; i >= 0; i-- {
		if r := f.Operations[i]; r.OperationID == id {
			return r
		}
	}
	t.Fatalf("no record of %s in session-operations.json:\n%s\njournal:\n%s", id, data, journal)
	return opRecord{}
}

// seatRuns lists the "running" seat events of account in topic that
// started a process (they carry argv), oldest first.
func seatRuns(s *serve, topic, account string) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for _, l := range s.lines {
		if l["event"] == "seat" && l["topic"] == topic && l["account"] == account && l["state"] == "running" && l["argv"] != nil {
			out = append(out, l)
		}
	}
	return out
}

// TestSessionOpsScriptedAgentRestartsAnother: a scripted agent (the
// official MCP SDK client launching `pullcept sidecar` from its seat's
// registration, its environment passed on) lists the sessions, restarts
// the other seat through control_account_session, follows
// account_session_status until the new launch sits in the room, and asks
// again with the same id. The other seat resumes its conversation in a new
// PTY; one app notice by names reaches the room; the record is on disk;
// no capability is in any file of the home, any argv or serve's output.
func TestSessionOpsScriptedAgentRestartsAnother(t *testing.T) {
	t.Parallel()
	_, prefix := nodeSDK(t)
	agent := filepath.Join(repoRoot(t), "e2e", "testdata", "sessionops_agent.mjs")
	phome, cwd, out := t.TempDir(), t.TempDir(), t.TempDir()
	cfg := fmt.Sprintf(`{"accounts":[`+
		`{"id":"lin","name":"Lin","kind":"cli","dir":%q,"command":"node %s restarter {mcp_config}"},`+
		`{"id":"lay","name":"Lay","kind":"cli","dir":%q,"command":"node %s idle {mcp_config} --session {session_id}","resume":"node %s idle {mcp_config} --resume {session_id}"}]}`,
		cwd, agent, cwd, agent, agent)
	if err := os.WriteFile(filepath.Join(phome, "config.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	const opID = "e2e-restart-lay-01"
	s := startServeEnv(t, phome, append(os.Environ(), "SDK_PREFIX="+prefix, "AGENT_OUT="+out, "TARGET=lay", "OP_ID="+opID))
	topic := s.topic()

	first := s.do(map[string]any{"cmd": "start", "topic": topic, "account": "lay"})
	res, _ := first["result"].(map[string]any)
	sid, _ := res["session_id"].(string)
	if sid == "" {
		t.Fatalf("start lay: %v", first)
	}
	s.wait(func(m map[string]any) bool {
		return m["event"] == "roster" && m["topic"] == topic && hasParticipant(m, "Lay")
	})
	if r := s.do(map[string]any{"cmd": "start", "topic": topic, "account": "lin"}); r["event"] != "start" {
		t.Fatalf("start lin: %v", r)
	}

	said := s.wait(func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		c, _ := p["content"].(string)
		return m["event"] == "post" && m["topic"] == topic && p["speaker"] == "Lin" && strings.HasPrefix(c, "RESULT ")
	})
	var got struct {
		Control, Final, Again opRecord
		Expected              string
		Errors                []string
	}
	content := said["post"].(map[string]any)["content"].(string)
	if err := json.Unmarshal([]byte(strings.TrimPrefix(content, "RESULT ")), &got); err != nil || len(got.Errors) > 0 {
		t.Fatalf("the agent's result %q: %v", content, err)
	}
	f := got.Final
	if f.State != "process_started" || f.Launched != "resume" || f.StoppedPtyID != got.Expected || f.PtyID == "" || f.PtyID == got.Expected ||
		f.RequestedBy.AccountID != "lin" || f.ProcessRunning == nil || !*f.ProcessRunning || f.RoomConnected == nil || !*f.RoomConnected {
		t.Fatalf("the final record: %+v", f)
	}
	if got.Again.AcceptedAt != got.Control.AcceptedAt || got.Again.PtyID != f.PtyID {
		t.Fatalf("asking again with the same id: %+v, first %+v", got.Again, got.Control)
	}

	// Lay resumed its conversation, in a second launch only.
	runs := seatRuns(s, topic, "lay")
	if len(runs) != 2 || runs[1]["resumed_from"] != sid || !slices.Contains(toStrings(runs[1]["argv"]), "--resume") {
		t.Fatalf("lay's launches: %v", runs)
	}
	notice := "Lin が Lay を再起動しました（成功）" + room.NoReply + "\noperation_id: " + opID
	isNotice := func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && m["topic"] == topic && m["role"] == "app" && p["content"] == notice && p["speaker"] == room.AppName && p["from_app"] == true
	}
	if n := s.count(isNotice); n != 1 {
		t.Fatalf("%d notices %q", n, notice)
	}
	if r := savedRecord(t, phome, opID); r.State != "process_started" || r.PtyID != f.PtyID || r.ProcessRunning != nil {
		t.Fatalf("the saved record: %+v", r)
	}

	// The capabilities: one per launch, none anywhere but the CLIs' env.
	caps, _ := filepath.Glob(filepath.Join(out, "capability-*"))
	secrets := map[string]bool{}
	for _, p := range caps {
		b, _ := os.ReadFile(p)
		if len(b) < 32 {
			t.Fatalf("%s: no capability in the agent's environment", p)
		}
		secrets[string(b)] = true
	}
	if len(caps) != 3 || len(secrets) != 3 {
		t.Fatalf("capabilities: %d files, %d distinct (want 3 launches)", len(caps), len(secrets))
	}
	s.mu.Lock()
	raw := strings.Join(s.raw, "\n")
	s.mu.Unlock()
	for secret := range secrets {
		if strings.Contains(raw, secret) {
			t.Fatal("a capability is in serve's output")
		}
		filepath.WalkDir(phome, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secret) {
				t.Errorf("a capability is in %s", p)
			}
			return nil
		})
		procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
		for _, p := range procs {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), secret) {
				t.Errorf("a capability is in the argv of %s", p)
			}
		}
	}
}

// selfRestarter is the scripted model of a Claude seat that restarts
// itself when the person asks: list_account_sessions, then
// control_account_session on its own pty_id. Other posts: roomAgent.
func selfRestarter(opID string) fakemodel.Behaviour {
	base := roomAgent(nil)
	return func(r fakemodel.Request) fakemodel.Reply {
		tag, body, ok := fakemodel.ParseTagged(r.LastUserTurn())
		if !ok || tag.Role != "admin" || !strings.Contains(body, "restart yourself") {
			return base(r)
		}
		if len(r.ResultsFor("control_account_session")) > 0 {
			return fakemodel.Say("restarted")
		}
		if res := r.ResultsFor("list_account_sessions"); len(res) > 0 {
			var l struct {
				You struct {
					AccountID string `json:"account_id"`
					TopicID   string `json:"topic_id"`
					PtyID     string `json:"pty_id"`
				} `json:"you"`
			}
			if err := json.Unmarshal([]byte(res[len(res)-1].Output), &l); err != nil {
				return fakemodel.Say("the list was not JSON: " + res[len(res)-1].Output)
			}
			return fakemodel.Call("control_account_session", map[string]any{"operation_id": opID, "action": "restart",
				"account_id": l.You.AccountID, "topic_id": l.You.TopicID, "expected_pty_id": l.You.PtyID})
		}
		return fakemodel.Call("list_account_sessions", map[string]any{})
	}
}

// TestSessionOpsRealClaudeRestartsItself: the real Claude Code CLI, asked
// by the person, restarts its own seat through the tools: the seat stops
// and comes back with --resume of the same conversation (the model sees
// the earlier turn again), the room gets 「Lin が自分を再起動しました（成功）」.
func TestSessionOpsRealClaudeRestartsItself(t *testing.T) {
	t.Parallel()
	const opID = "self-restart-01"
	c := newCLIRoom(t, selfRestarter(opID))
	topic := c.topic()
	first := c.startSeat(t, topic, "claude", claudeName)
	sid, _ := first["session_id"].(string)
	c.post(t, topic, "@"+claudeName+" remember the number 7", "")
	c.waitPost(topic, claudeName, "remember the number 7")
	waitFileHas(t, claudeTranscript(t, c.home, sid), "remember the number 7") // a restart resumes only a conversation on disk

	from := c.mark()
	c.post(t, topic, "@"+claudeName+" restart yourself", c.lastPostID(topic))
	notice := claudeName + " が自分を再起動しました（成功）" + room.NoReply + "\noperation_id: " + opID
	n := c.waitFrom(from, func(m map[string]any) bool {
		p, _ := m["post"].(map[string]any)
		return m["event"] == "post" && m["topic"] == topic && m["role"] == "app" && strings.HasSuffix(fmt.Sprint(p["content"]), "operation_id: "+opID)
	})
	if got := n["post"].(map[string]any)["content"]; got != notice {
		t.Fatalf("the notice = %q, want %q", got, notice)
	}
	// The new launch's seat event and the notice reach serve's output by
	// separate ways, in either order.
	c.waitFrom(from, func(m map[string]any) bool {
		return m["event"] == "seat" && m["topic"] == topic && m["account"] == "claude" && m["state"] == "running" && m["resumed_from"] != nil
	})
	runs := seatRuns(c.serve, topic, "claude")
	if len(runs) != 2 || runs[1]["resumed_from"] != sid || !slices.Contains(toStrings(runs[1]["argv"]), "--resume") {
		t.Fatalf("claude's launches: %v", runs)
	}
	if r := savedRecord(t, c.phome, opID); r.State != "process_started" || r.Launched != "resume" || r.RequestedBy.AccountID != "claude" || r.AccountID != "claude" {
		t.Fatalf("the saved record: %+v", r)
	}

	// The new session is the same conversation: it answers, and its model
	// request carries the turn from before the restart.
	c.waitRejoined(t, from, topic, claudeName)
	c.post(t, topic, "@"+claudeName+" what was the number?", c.lastPostID(topic))
	c.waitPost(topic, claudeName, "what was the number?")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := c.model.Wait(ctx, func(reqs []fakemodel.Request) bool {
		for _, r := range reqs {
			turns := strings.Join(r.UserTurns, "\n")
			if strings.Contains(turns, "what was the number?") && strings.Contains(turns, "remember the number 7") {
				return true
			}
		}
		return false
	}); err != nil {
		t.Fatal("the restarted session did not carry the conversation from before the restart")
	}
}

// waitRejoined waits, from line from on, for a roster of topic without
// name and then one with it again (a seat's sidecar left and its next
// launch's joined).
func (s *serve) waitRejoined(t *testing.T, from int, topic, name string) {
	t.Helper()
	left := false
	s.waitFrom(from, func(m map[string]any) bool {
		if m["event"] != "roster" || m["topic"] != topic {
			return false
		}
		if !hasParticipant(m, name) {
			left = true
			return false
		}
		return left
	})
}
