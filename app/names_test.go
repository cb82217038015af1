package app

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/dirs"
	"pullcept/room/wire"
)

// identityOf reads frames from c until an identity frame.
func identityOf(t *testing.T, c *websocket.Conn) wire.Identity {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	defer c.SetReadDeadline(time.Time{})
	for {
		_, data, err := c.ReadMessage()
		if err != nil {
			t.Fatalf("waiting for an identity frame: %v", err)
		}
		if typ, v, err := wire.Decode(data); err == nil && typ == wire.TypeIdentity {
			return *v.(*wire.Identity)
		}
	}
}

func rosterNames(a *App, topic string) []string {
	var out []string
	for _, p := range a.engine.Roster(topic) {
		out = append(out, p.Name)
	}
	return out
}

// A rename — from SetNickname (the screen, control mode, `pullcept accounts
// nickname` through the server) or a hand edit of config.json — reaches
// every running seat of the account in every topic: its sidecar is told its
// identity and the rosters change.
func TestRenameReachesEverySeat(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	writeCfg := func(nick string) {
		entry := `{"id":"lin","kind":"cli","name":"Claude Lin","command":"/bin/true","hue":20` + nick + `}`
		if err := os.WriteFile(d.ConfigFile(), []byte(`{"keep":1,"accounts":[`+entry+`]}`), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeCfg("")
	a, err := Start(context.Background(), Options{Dirs: d, PersonName: "Master", ExePath: "/bin/false"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	var topics []string
	var conns []*websocket.Conn
	for range 2 {
		topic, err := a.NewTopic()
		if err != nil {
			t.Fatal(err)
		}
		if err := a.EnsureOpen(topic); err != nil {
			t.Fatal(err)
		}
		c, _, err := websocket.DefaultDialer.Dial(a.URL(), http.Header{"Authorization": {"Bearer " + a.Token()}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		if err := c.WriteJSON(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "stale launch name", Room: topic, AccountID: "lin"}); err != nil {
			t.Fatal(err)
		}
		if id := identityOf(t, c); id.Name != "Claude Lin" || id.FullName != "" {
			t.Fatalf("seated as %+v, want the saved name", id)
		}
		topics, conns = append(topics, topic), append(conns, c)
	}

	name, err := a.SetNickname("lin", "  Lin ")
	if err != nil || name != "Lin" {
		t.Fatalf("SetNickname: %q %v", name, err)
	}
	for i, c := range conns {
		if id := identityOf(t, c); id != (wire.Identity{Type: wire.TypeIdentity, Name: "Lin", FullName: "Claude Lin"}) {
			t.Errorf("topic %d: identity %+v after SetNickname", i, id)
		}
		if got := rosterNames(a, topics[i]); strings.Join(got, ",") != "Master,Lin" {
			t.Errorf("topic %d roster %q", i, got)
		}
	}
	data, _ := os.ReadFile(d.ConfigFile())
	if !strings.Contains(string(data), `"nickname": "Lin"`) || !strings.Contains(string(data), `"keep": 1`) || !strings.Contains(string(data), `"hue": 20`) {
		t.Errorf("config.json after SetNickname keeps the other keys and saves the nickname:\n%s", data)
	}

	// A hand edit: the running app picks it up by itself.
	writeCfg(`,"nickname":"Luna"`)
	for i, c := range conns {
		if id := identityOf(t, c); id.Name != "Luna" || id.FullName != "Claude Lin" {
			t.Errorf("topic %d: identity %+v after the hand edit", i, id)
		}
	}

	// Clearing the nickname: the room calls it by its name again.
	if name, err := a.SetNickname("lin", ""); err != nil || name != "Claude Lin" {
		t.Fatalf("clearing: %q %v", name, err)
	}
	if id := identityOf(t, conns[0]); id.Name != "Claude Lin" || id.FullName != "" {
		t.Errorf("identity %+v after clearing", id)
	}

	// Refused: the person's name and an unknown account; nothing written.
	before, _ := os.ReadFile(d.ConfigFile())
	if _, err := a.SetNickname("lin", "master"); err == nil || !strings.Contains(err.Error(), "person's name") {
		t.Errorf("the person's name: %v", err)
	}
	if _, err := a.SetNickname("nobody", "X"); err == nil {
		t.Error("an unknown account was renamed")
	}
	if after, _ := os.ReadFile(d.ConfigFile()); string(after) != string(before) {
		t.Errorf("a refused rename wrote config.json:\n%s", after)
	}
}
