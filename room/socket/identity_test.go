package socket

import (
	"net"
	"slices"
	"sync"
	"testing"

	"github.com/gorilla/websocket"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// savedNames is a mutable Config.AccountNames, as config.json is.
type savedNames struct {
	mu    sync.Mutex
	names map[string][2]string
}

func (s *savedNames) get(account string) (string, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.names[account]
	return n[0], n[1], ok
}

func (s *savedNames) set(account, name, full string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names[account] = [2]string{name, full}
}

// A seat of a configured account is called by its saved names whatever its
// hello said, is told them, and a rename reaches it, its roster and its
// posts while its connection and floor position stay.
func TestRenameKeepsConnectionAndFloor(t *testing.T) {
	t.Parallel()
	store, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	saved := &savedNames{names: map[string][2]string{"acc-lin": {"Lin", "Claude Lin"}}}
	e := room.New(room.Config{Log: store, PersonName: "Master", AccountNames: saved.get})
	topic, other := topicstore.NewID(), topicstore.NewID()
	for _, tp := range []string{topic, other} {
		if _, err := e.Open(tp); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(e, "tok", nil, ln, defaultLimits)
	t.Cleanup(func() { srv.Close() })
	v := &env{e: e, store: store, srv: srv, topic: topic}

	seatAs := func(topic string) *websocket.Conn {
		c, _, err := v.dial(t, "tok")
		if err != nil {
			t.Fatal(err)
		}
		send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Claude (launch name)", Room: topic, AccountID: "acc-lin"})
		typ, f := recv(t, c)
		if id, ok := f.(*wire.Identity); typ != wire.TypeIdentity || !ok || *id != (wire.Identity{Type: wire.TypeIdentity, Name: "Lin", FullName: "Claude Lin"}) {
			t.Fatalf("identity after hello: %s %+v, want the saved names", typ, f)
		}
		return c
	}
	lin, linElsewhere := seatAs(topic), seatAs(other)
	lay := v.join(t, "Lay", topic)

	send(t, lay, wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: "before the rename"})
	if _, r := recv(t, lay); !r.(*wire.PostResult).Delivered {
		t.Fatalf("m1: %+v", r)
	}

	sub := e.Subscribe()
	defer sub.Close()
	saved.set("acc-lin", "Luna", "Claude Lin")
	ids, err := e.Rename("acc-lin")
	if err != nil || len(ids) != 2 {
		t.Fatalf("Rename: %v %v, want both seats of the account", ids, err)
	}
	srv.TellIdentity(ids...)
	for _, c := range []*websocket.Conn{lin, linElsewhere} {
		typ, f := recv(t, c)
		if id, ok := f.(*wire.Identity); typ != wire.TypeIdentity || !ok || id.Name != "Luna" || id.FullName != "Claude Lin" {
			t.Fatalf("identity after the rename: %s %+v", typ, f)
		}
	}
	for _, tp := range []string{topic, other} {
		var names []string
		for _, p := range e.Roster(tp) {
			names = append(names, p.Name)
		}
		if !slices.Contains(names, "Luna") || slices.Contains(names, "Lin") {
			t.Errorf("roster of %s after the rename: %q", tp, names)
		}
	}

	// The floor position survives: m1 was the newest before the rename.
	send(t, lin, wire.PostFrame{Type: wire.TypePost, MessageID: "m2", Content: "after", LastSeen: "m1"})
	_, r := recv(t, lin)
	pr := r.(*wire.PostResult)
	if !pr.Delivered {
		t.Fatalf("a post seen up to the rename was refused: %+v", pr)
	}
	page, err := store.Page(topic, 10, "")
	if err != nil || len(page.Posts) != 2 {
		t.Fatalf("log: %+v %v", page, err)
	}
	if p := page.Posts[1]; p.Speaker != "Luna" || p.FullName != "Claude Lin" {
		t.Errorf("the renamed seat's post logged as %q / %q, want Luna / Claude Lin", p.Speaker, p.FullName)
	}
	if p := page.Posts[0]; p.Speaker != "Lay" || p.FullName != "" {
		t.Errorf("an earlier post changed: %+v", p)
	}

	// A saved name that is the person's renames nothing.
	saved.set("acc-lin", "master", "Claude Lin")
	if ids, err := e.Rename("acc-lin"); err == nil || len(ids) != 0 {
		t.Fatalf("rename to the person's name: %v %v", ids, err)
	}
	var names []string
	for _, p := range e.Roster(topic) {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, "Luna") {
		t.Errorf("a refused rename changed the roster: %q", names)
	}
}
