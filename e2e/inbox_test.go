package e2e

// Seats cannot go around the room (issue 34, point 2; spec 003 「届く経路は
// 一本である」, 「返信ツールは say_to_room 1 本に限定する」): with the newest
// Claude Code, two seats on one HOME are offered neither ListAgents nor
// SendMessage, and a line written to a seat's inbox socket (from outside,
// from the seat's own Bash, or with priority "now" during a permission
// prompt) starts no turn and answers no prompt; room posts still arrive.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/e2e/fakemodel"
	"pullcept/ids"
)

// crossSessionTools are Claude Code's tools to list and message the
// person's other Claude sessions.
var crossSessionTools = []string{"ListAgents", "SendMessage"}

// offersCrossSession names the cross-session tools r offers, loaded or
// deferred behind ToolSearch (named in the <available-deferred-tools> text).
func offersCrossSession(r fakemodel.Request) []string {
	var out []string
	for _, name := range crossSessionTools {
		if r.Offers(name) || deferredTools(r)[name] {
			out = append(out, name)
		}
	}
	return out
}

// deferredTools are the names a request lists as deferred tools: 2.1.332
// names them one per line in a text ("The following deferred tools are now
// available via ToolSearch. … before calling them:\nCronCreate\n…\n\n").
func deferredTools(r fakemodel.Request) map[string]bool {
	var body any
	_ = json.Unmarshal(r.Body, &body)
	out := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			_, after, ok := strings.Cut(x, "deferred tools are now available via ToolSearch")
			if !ok {
				return
			}
			_, list, _ := strings.Cut(after, ":\n")
			list, _, _ = strings.Cut(list, "\n\n")
			for _, l := range strings.Split(list, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					out[l] = true
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(body)
	return out
}

// claudeSession is one ~/.claude/sessions/<pid>.json.
type claudeSession struct {
	PID       int    `json:"pid"`
	SessionID string `json:"sessionId"`
	Kind      string `json:"kind"`
	Socket    string `json:"messagingSocketPath"`
}

// claudeSessionOf waits for the session file of Claude session id under
// home.
func claudeSessionOf(t *testing.T, home, id string) claudeSession {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		files, _ := filepath.Glob(filepath.Join(home, ".claude", "sessions", "*.json"))
		for _, f := range files {
			var s claudeSession
			if b, err := os.ReadFile(f); err == nil && json.Unmarshal(b, &s) == nil && s.SessionID == id {
				return s
			}
		}
		time.Sleep(100 * time.Millisecond) // the CLI writes the file at start; nothing announces it
	}
	t.Fatalf("no session file for %s under %s", id, home)
	return claudeSession{}
}

// inboxReplies is a socket next to a seat's inbox socket that receives the
// CLI's receipts (control frames naming orig_msg_id) for lines sent with
// from "uds:<its path>".
type inboxReplies struct {
	path string
	mu   sync.Mutex
	got  map[string]map[string]any // orig_msg_id -> frame
}

func listenReplies(t *testing.T, dir string) *inboxReplies {
	t.Helper()
	r := &inboxReplies{path: filepath.Join(dir, fmt.Sprintf("pullcept-e2e-%d-%s.sock", os.Getpid(), ids.Random()[:8])), got: map[string]map[string]any{}}
	l, err := net.Listen("unix", r.path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close(); os.Remove(r.path) })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					var m map[string]any
					if json.Unmarshal(sc.Bytes(), &m) == nil {
						id, _ := m["orig_msg_id"].(string)
						r.mu.Lock()
						r.got[id] = m
						r.mu.Unlock()
					}
				}
			}()
		}
	}()
	return r
}

// line is an inbox user frame carrying text, its receipts sent here.
func (r *inboxReplies) line(t *testing.T, text, priority string) (id string, frame []byte) {
	t.Helper()
	id = ids.Random()
	frame, _ = json.Marshal(map[string]any{"type": "user", "msgV": 1, "msg_id": id, "from": "uds:" + r.path, "priority": priority,
		"message": map[string]any{"role": "user", "content": text}})
	return id, frame
}

// awaitRefused waits for the receipt refusing msg id; it fails the test if
// the model was given marker first.
func (r *inboxReplies) awaitRefused(t *testing.T, m *fakemodel.Server, id, marker string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if n := modelGot(m, marker); n > 0 {
			t.Fatalf("a cross-session message (%s) reached the model: %d requests carry it", marker, n)
		}
		r.mu.Lock()
		f := r.got[id]
		r.mu.Unlock()
		if f != nil {
			if f["status_detail"] != "refused" {
				t.Fatalf("receipt for %s: %v, want refused", marker, f)
			}
			return
		}
		time.Sleep(50 * time.Millisecond) // the receipt comes on a connection of the CLI's own
	}
	t.Fatalf("no receipt for %s within 30 s", marker)
}

// send writes frame as one line to the inbox socket at path.
func sendInbox(t *testing.T, path string, frame []byte) {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write(append(frame, '\n')); err != nil {
		t.Fatal(err)
	}
}

// modelGot counts the requests that gave the model text as input: in a
// user turn, or in the CLI's framing of a cross-session message (the
// Bash call that sends it carries it too, as the model's own words).
func modelGot(m *fakemodel.Server, text string) int {
	n := 0
	for _, r := range m.Requests() {
		got := strings.Contains(string(r.Body), "session sent a message")
		for _, turn := range r.UserTurns {
			got = got || strings.Contains(turn, text)
		}
		if got {
			n++
		}
	}
	return n
}

// inboxSender is the Bash command that writes each line of lines (JSON
// strings) to the socket at the same index (a "$VAR" is read from the
// environment).
func inboxSender(sockets []string, lines [][]byte) string {
	args, _ := json.Marshal(map[string]any{"sockets": sockets, "lines": toStringSlice(lines)})
	script := `const a=JSON.parse(process.argv[1]);let n=a.sockets.length;a.sockets.forEach((s,i)=>{if(s.startsWith("$"))s=process.env[s.slice(1)]||"";const c=require("net").connect(s,()=>c.end(a.lines[i]+"\n"));c.on("error",e=>{console.log("send "+i+": "+e.message)});c.on("close",()=>{if(--n===0)console.log("sent")})})`
	return "node -e '" + script + "' '" + string(args) + "'"
}

func toStringSlice(b [][]byte) []string {
	out := make([]string, len(b))
	for i, x := range b {
		out[i] = string(x)
	}
	return out
}

// TestRealClaudeSeatsCannotGoAroundTheRoom: two seats of the newest Claude
// on one HOME, the inbox socket left on by the account's env
// (CLAUDE_CODE_HARBOR_KITE=1, as GrowthBook or the person's environment
// could) so that the launch's settings alone are tested.
func TestRealClaudeSeatsCannotGoAroundTheRoom(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	bash := map[string]string{} // post body -> the Bash command it runs
	agent := func(r fakemodel.Request) fakemodel.Reply {
		tag, body, ok := fakemodel.ParseTagged(r.LastUserTurn())
		if !ok || tag.Role != "admin" {
			return fakemodel.Say("ok")
		}
		if len(r.ResultsFor(fakemodel.SayToRoom)) > 0 {
			return fakemodel.Say("done")
		}
		mu.Lock()
		cmd, isRun := bash[body]
		mu.Unlock()
		if isRun && len(r.ResultsFor("Bash")) == 0 {
			return fakemodel.Call("Bash", map[string]any{"command": cmd, "description": "Run the check"})
		}
		out := ""
		if res := r.ResultsFor("Bash"); len(res) > 0 {
			out = " / " + strings.TrimSpace(res[0].Output)
		}
		return fakemodel.Call(fakemodel.SayToRoom, map[string]any{"content": "ack from " + agentOf(r) + ": " + body + out, "last_seen": tag.MessageID})
	}
	c := newCLIRoomWith(t, agent, roomOptions{bins: newestBins(t), claudeEnv: map[string]string{"CLAUDE_CODE_HARBOR_KITE": "1"}})
	one := c.topic()
	two := c.do(map[string]any{"cmd": "new"})["topic"].(string)
	a := claudeSessionOf(t, c.home, c.startSeat(t, one, "claude", claudeName)["session_id"].(string))
	b := claudeSessionOf(t, c.home, c.startSeat(t, two, "claude", claudeName)["session_id"].(string))
	if a.Socket == "" || b.Socket == "" {
		t.Fatalf("the seats bound no inbox socket (%+v, %+v): this test needs 2.1.332's inbox on", a, b)
	}
	replies := listenReplies(t, filepath.Dir(a.Socket))

	// A room post reaches each seat, which answers in the room.
	c.post(t, one, "@"+claudeName+" hello one", "")
	c.waitPost(one, claudeName, "ack from Lin: hello one")
	c.post(t, two, "@"+claudeName+" hello two", "")
	c.waitPost(two, claudeName, "ack from Lin: hello two")

	// A line from outside, to an idle seat.
	id, frame := replies.line(t, "INBOX-OUTSIDE hello", "next")
	sendInbox(t, a.Socket, frame)
	replies.awaitRefused(t, c.model, id, "INBOX-OUTSIDE")

	// Priority "now" while a permission prompt is up: the prompt stays, and
	// the person's answer runs the command.
	marker := filepath.Join(c.cwd, "approved")
	mu.Lock()
	bash["run the check"] = "touch " + marker
	mu.Unlock()
	from := c.mark()
	c.post(t, one, "@"+claudeName+" run the check", c.lastPostID(one))
	c.waitActivity(t, from, one, "claude", func(a map[string]any) bool {
		return a["state"] == "waiting" && a["wait"] == "permission"
	})
	c.waitScreen(t, one, "claude", "Do you want to proceed?")
	id, frame = replies.line(t, "INBOX-NOW stop that", "now")
	sendInbox(t, a.Socket, frame)
	replies.awaitRefused(t, c.model, id, "INBOX-NOW")
	if !strings.Contains(c.screenOf(t, one, "claude"), "Do you want to proceed?") {
		t.Fatalf("the permission prompt went away after the \"now\" line:\n%s", c.screenOf(t, one, "claude"))
	}
	time.Sleep(200 * time.Millisecond) // 2.1.332 refuses a dialog's keys for 150 ms after painting it
	c.do(map[string]any{"cmd": "keys", "topic": one, "account": "claude", "keys": "\r"})
	c.waitPost(one, claudeName, "ack from Lin: run the check")
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the approved command did not run (the \"now\" line answered the prompt?): %v", err)
	}

	// From the seat's own Bash: to its own inbox and to the other seat's.
	own, ownFrame := replies.line(t, "INBOX-OWN-BASH hello", "next")
	other, otherFrame := replies.line(t, "INBOX-OTHER-SEAT hello", "next")
	mu.Lock()
	bash["send"] = inboxSender([]string{"$CLAUDE_CODE_MESSAGING_SOCKET", b.Socket}, [][]byte{ownFrame, otherFrame})
	mu.Unlock()
	from = c.mark()
	c.post(t, one, "@"+claudeName+" send", c.lastPostID(one))
	c.waitActivity(t, from, one, "claude", func(a map[string]any) bool {
		return a["state"] == "waiting" && a["wait"] == "permission"
	})
	c.waitScreen(t, one, "claude", "Do you want to proceed?")
	time.Sleep(200 * time.Millisecond) // as above
	c.do(map[string]any{"cmd": "keys", "topic": one, "account": "claude", "keys": "\r"})
	sent := c.waitPost(one, claudeName, "ack from Lin: send")
	if p := sent["post"].(map[string]any); !strings.Contains(p["content"].(string), "sent") {
		t.Fatalf("the seat's Bash did not send both lines: %v", p["content"])
	}
	// A line from a seat's descendant is dropped with no receipt to its
	// from address (measured): a refused line sent after it to each
	// socket, and a room post answered after that, say it has been dealt
	// with.
	for _, sock := range []string{a.Socket, b.Socket} {
		sync, syncFrame := replies.line(t, "INBOX-SYNC hello", "next")
		sendInbox(t, sock, syncFrame)
		replies.awaitRefused(t, c.model, sync, "INBOX-SYNC")
	}

	// Room posts still arrive after all that.
	c.post(t, one, "@"+claudeName+" still there?", c.lastPostID(one))
	c.waitPost(one, claudeName, "ack from Lin: still there?")
	c.post(t, two, "@"+claudeName+" still there?", c.lastPostID(two))
	c.waitPost(two, claudeName, "ack from Lin: still there?")
	for id, marker := range map[string]string{own: "INBOX-OWN-BASH", other: "INBOX-OTHER-SEAT"} {
		if n := modelGot(c.model, marker); n > 0 {
			t.Fatalf("the line from the seat's own Bash (%s) reached the model: %d requests carry it", marker, n)
		}
		replies.mu.Lock()
		f := replies.got[id]
		replies.mu.Unlock()
		if f != nil && f["status_detail"] != "refused" {
			t.Fatalf("receipt for %s: %v", marker, f)
		}
	}

	// Neither tool was offered to either seat's model.
	n, listed := 0, false
	for _, r := range c.model.Requests() {
		if r.API != fakemodel.Anthropic || r.Side {
			continue
		}
		n++
		listed = listed || len(deferredTools(r)) > 0
		if got := offersCrossSession(r); len(got) > 0 {
			t.Fatalf("the model was offered %v; tools %v, deferred %v", got, r.Tools, deferredTools(r))
		}
	}
	if n == 0 || !listed {
		t.Fatalf("%d Claude requests, deferred tools listed: %v (the check reads that list)", n, listed)
	}
}
