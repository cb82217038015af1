package app

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"pullcept/dirs"
	"pullcept/room/wire"
)

var (
	fakeOnce sync.Once
	fakeBin  string
	fakeErr  error
)

// fakeBridge builds the scripted bridge of mcpserv's tests once.
func fakeBridge(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "app-fakebridge-")
		if err != nil {
			fakeErr = err
			return
		}
		fakeBin = filepath.Join(dir, "fakebridge")
		if out, err := exec.Command("go", "build", "-o", fakeBin, "../mcpserv/testdata/fakebridge").CombinedOutput(); err != nil {
			fakeErr = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeBin
}

type mcpHome struct {
	d   dirs.Dirs
	dir string // short: Unix sockets
}

func newMCPHome(t *testing.T, config string, servers ...string) mcpHome {
	t.Helper()
	dir, err := os.MkdirTemp("", "mcpapp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	d, _ := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": dir}[k] })
	h := mcpHome{d: d, dir: dir}
	var entries []string
	for _, s := range servers {
		entries = append(entries, fmt.Sprintf(`%q: {"command": %q, "env": {"FAKEBRIDGE_CTL": %q}}`, s, fakeBridge(t), h.ctl(s)))
	}
	os.WriteFile(filepath.Join(dir, "mcp-servers.json"), []byte("{\n  \"mcpServers\": {"+strings.Join(entries, ",\n")+"}\n}\n"), 0o600)
	os.WriteFile(d.ConfigFile(), []byte(config), 0o600)
	return h
}

func (h mcpHome) ctl(name string) string { return filepath.Join(h.dir, name+".sock") }

func (h mcpHome) start(t *testing.T) *App {
	t.Helper()
	a, err := Start(context.Background(), Options{Dirs: h.d, PersonName: "Master", ExePath: "/bin/false", MCP: MCPOptions{BridgeDirs: []string{}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	return a
}

func (h mcpHome) cue(t *testing.T, name string, c any) {
	t.Helper()
	conn, err := net.Dial("unix", h.ctl(name))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	b, _ := json.Marshal(c)
	conn.Write(append(b, '\n'))
	if line, err := bufio.NewReader(conn).ReadString('\n'); err != nil || line != "ok\n" {
		t.Fatalf("cue: %q %v", line, err)
	}
}

func pushCue(content, id string) map[string]any {
	return map[string]any{"push": map[string]any{"content": content, "meta": map[string]any{"chat_id": "github", "message_id": id, "user": "alice", "ts": "2026-10-14T00:00:00.000Z"}}}
}

// waitMCP waits for cond over the servers, woken by EventMCP.
func waitMCP(t *testing.T, a *App, sub *Subscription, what string, cond func([]MCPServer) bool) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond(a.MCPServers()) {
		select {
		case <-sub.C:
		case <-deadline:
			t.Fatalf("timed out: %s; servers %+v", what, a.MCPServers())
		}
	}
}

func stateOf(ss []MCPServer, name string) string {
	for _, s := range ss {
		if s.Name == name {
			return s.State
		}
	}
	return ""
}

// A push goes to every room with an AI session seated, one post each with
// its own id, as the server's account (its name and colour from
// config.json), role mcp, mentions and floor untouched; a room with only
// the person gets nothing, and with no session anywhere it is posted
// nowhere and said so in the server's log.
func TestMCPNoticeToSeatedRooms(t *testing.T) {
	h := newMCPHome(t, `{"accounts":[{"id":"mcp-hooks","name":"Hooks","kind":"mcp","hue":200}]}`, "hooks", "other")
	a := h.start(t)
	sub := a.Subscribe()
	defer sub.Close()
	waitMCP(t, a, sub, "both running", func(ss []MCPServer) bool {
		return stateOf(ss, "hooks") == "running" && stateOf(ss, "other") == "running"
	})
	// The missing account was made; the present one kept its name and hue.
	if acc, ok := a.account("mcp-other"); !ok || acc.Name != "other" || acc.Kind != "mcp" || acc.Hue != nil {
		t.Fatalf("mcp-other = %+v %v", acc, ok)
	}
	if acc, _ := a.account("mcp-hooks"); acc.Name != "Hooks" || acc.Hue == nil || *acc.Hue != 200 {
		t.Fatalf("mcp-hooks = %+v", acc)
	}
	var topics [3]string
	for i := range topics {
		topics[i], _ = a.NewTopic()
		if err := a.EnsureOpen(topics[i]); err != nil {
			t.Fatal(err)
		}
	}
	joinAsSidecar(t, a, sub, topics[0], "lin", "Lin")
	joinAsSidecar(t, a, sub, topics[2], "lay", "Lay")

	h.cue(t, "hooks", pushCue("[issue_comment] acme/web\naction: edited\n#1 @Lin look\nby alice\nhttps://github.com/acme/web/issues/1", "ev-1"))
	h.cue(t, "hooks", pushCue("[push] acme/web\nby bob", "ev-2"))
	got := map[string][]RoomEvent{}
	for len(got[topics[0]]) < 2 || len(got[topics[2]]) < 2 {
		ev := next(t, sub)
		if ev.Kind == EventRoom && ev.Room.Kind == RoomPost {
			got[ev.Room.Topic] = append(got[ev.Room.Topic], ev.Room)
		}
	}
	if len(got[topics[1]]) != 0 {
		t.Fatalf("a room without a session got %+v", got[topics[1]])
	}
	p0, p2 := got[topics[0]][0], got[topics[2]][0]
	want := "[issue_comment] acme/web\naction: edited\n#1 @Lin look\nby alice\n" + "If this is your own operation, mark it processed now: event_id=ev-1\nhttps://github.com/acme/web/issues/1"
	for _, p := range []RoomEvent{p0, p2} {
		if p.Post.Content != want || p.Post.Speaker != "Hooks" || p.Post.Account != "mcp-hooks" || p.Role != wire.RoleMCP || len(p.Post.To) != 0 || p.Post.Hue == nil || *p.Post.Hue != 200 {
			t.Fatalf("post = %+v role %s", p.Post, p.Role)
		}
	}
	if p0.Post.MessageID == p2.Post.MessageID {
		t.Fatal("one message id in two rooms")
	}
	if page, _ := a.Page(topics[1], 10, ""); len(page.Posts) != 0 {
		t.Fatalf("the person-only room's log has %+v", page.Posts)
	}
	// A rename applies from the next notice.
	if _, err := a.SetNickname("mcp-hooks", "Webhooks"); err != nil {
		t.Fatal(err)
	}
	h.cue(t, "hooks", pushCue("[push] acme/web\nby carol", "ev-3"))
	for {
		ev := next(t, sub)
		if ev.Kind == EventRoom && ev.Room.Kind == RoomPost && strings.Contains(ev.Room.Post.Content, "ev-3") {
			if ev.Room.Post.Speaker != "Webhooks" {
				t.Fatalf("speaker %q after the rename", ev.Room.Post.Speaker)
			}
			break
		}
	}
}

func TestMCPNoticeNowhere(t *testing.T) {
	h := newMCPHome(t, `{"accounts":[]}`, "hooks")
	a := h.start(t)
	sub := a.Subscribe()
	defer sub.Close()
	waitMCP(t, a, sub, "running", func(ss []MCPServer) bool { return stateOf(ss, "hooks") == "running" })
	topic, _ := a.NewTopic()
	a.EnsureOpen(topic)
	h.cue(t, "hooks", pushCue("[push] acme/web\nby bob", "ev-9"))
	waitMCP(t, a, sub, "the posted-nowhere line", func([]MCPServer) bool {
		for _, l := range a.MCPLog("hooks") {
			if strings.Contains(l.Text, "event ev-9: no room has an AI session") {
				return true
			}
		}
		return false
	})
	// A session seated later is not given it.
	joinAsSidecar(t, a, sub, topic, "lin", "Lin")
	if page, _ := a.Page(topic, 10, ""); len(page.Posts) != 0 {
		t.Fatalf("replayed: %+v", page.Posts)
	}
}

// Create writes only its entry, then the account, then starts it; delete
// takes out only its entry, stops it, then the account.
func TestMCPCreateDelete(t *testing.T) {
	h := newMCPHome(t, `{"accounts":[]}`)
	hand := "{\n  \"note\": \"hand-written\",\n  \"mcpServers\": {\n    \"kept\": {\"command\": \"/nonexistent/kept\"}\n  }\n}\n"
	path := filepath.Join(h.dir, "mcp-servers.json")
	os.WriteFile(path, []byte(hand), 0o600)
	a := h.start(t)
	sub := a.Subscribe()
	defer sub.Close()
	waitMCP(t, a, sub, "kept failed", func(ss []MCPServer) bool { return stateOf(ss, "kept") == "failed" })
	form, errs := ParseMCPForm(a.MCPFormText(MCPForm{Name: "Web Hooks", Command: fakeBridge(t), Env: map[string]string{"FAKEBRIDGE_CTL": h.ctl("Web-Hooks")}}))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	name, err := a.CreateMCPServer(form)
	if err != nil || name != "Web-Hooks" {
		t.Fatal(name, err)
	}
	waitMCP(t, a, sub, "running", func(ss []MCPServer) bool { return stateOf(ss, "Web-Hooks") == "running" })
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), "{\n  \"note\": \"hand-written\",\n  \"mcpServers\": {\n    \"kept\": {\"command\": \"/nonexistent/kept\"},\n    \"Web-Hooks\": {") {
		t.Fatalf("the file:\n%s", b)
	}
	if acc, ok := a.account("mcp-Web-Hooks"); !ok || acc.Name != "Web Hooks" || acc.Kind != "mcp" {
		t.Fatalf("account %+v %v", acc, ok)
	}
	if err := a.DeleteMCPServer("Web-Hooks"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != hand {
		t.Fatalf("after delete:\n%s", b)
	}
	if _, ok := a.account("mcp-Web-Hooks"); ok {
		t.Fatal("the account stayed")
	}
	if stateOf(a.MCPServers(), "Web-Hooks") != "" {
		t.Fatalf("still listed: %+v", a.MCPServers())
	}
	if _, ok := a.account("mcp-kept"); !ok {
		t.Fatal("the other server's account went")
	}
}
