package socket

import (
	"fmt"
	"net"
	"strings"
	"testing"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// A flood of bad hellos with 100 KB names, room ids and account ids writes
// a bounded number of bytes to the app log: each outside field is cut, and
// each kind of refusal is logged once per interval with a count. Before,
// every hello wrote its fields whole (the log grew 286 MB in 3 s).
func TestHelloFloodLogIsBounded(t *testing.T) {
	t.Parallel()
	sink, log := newLogSink()
	v := newEnvWith(t, defaultLimits, log)
	big := strings.Repeat("n", 100<<10)
	const conns, each = 8, 25
	sent := 0
	for range conns {
		c, _, err := v.dial(t, v.srv.Token())
		if err != nil {
			t.Fatal(err)
		}
		for i := range each {
			h := wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: big, Room: v.topic}
			switch i % 3 {
			case 1: // a short name, a 100 KB room id: no such room
				h.Name, h.Room = "x", big
			case 2: // a 100 KB account id
				h.Name, h.AccountID = "x", big
			}
			send(t, c, h)
			sent += len(big)
			typ, e := recv(t, c)
			if typ != wire.TypeError {
				t.Fatalf("hello %d: %s", i, typ)
			}
			if msg := e.(*wire.ErrorFrame).Error; len(msg) > 1100 {
				t.Fatalf("error frame of %d bytes", len(msg))
			}
		}
	}
	logged := len(sink.String())
	t.Logf("%d bad hellos (%d bytes of fields) logged %d bytes", conns*each, sent, logged)
	if logged > 8<<10 {
		t.Fatalf("the log got %d bytes from %d bad hellos", logged, conns*each)
	}
	line := sink.await(t, "hello not seated")
	if !strings.Contains(line, "more bytes") || !strings.Contains(line, "refused_since_last_line=1") {
		t.Fatalf("line: %q", line)
	}
}

// A hello with a name over 64 characters gets an error frame saying so,
// and the connection may try again with a shorter one.
func TestHelloNameTooLong(t *testing.T) {
	t.Parallel()
	v := newEnv(t)
	c, _, err := v.dial(t, v.srv.Token())
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Repeat("x", 100<<10)
	send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: name, Room: v.topic})
	typ, e := recv(t, c)
	want := fmt.Sprintf("name is %d characters; the limit is 64", len(name))
	if typ != wire.TypeError || !strings.Contains(e.(*wire.ErrorFrame).Error, want) {
		t.Fatalf("%s %+v", typ, e)
	}
	send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: strings.Repeat("x", 64), Room: v.topic})
	if typ, _ := recv(t, c); typ != wire.TypeIdentity {
		t.Fatalf("the shorter hello answered %s, want identity", typ)
	}
	send(t, c, wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: "hi"})
	if _, r := recv(t, c); !r.(*wire.PostResult).Delivered {
		t.Fatalf("after a shorter hello: %+v", r)
	}
}

// The hello past a room's seat limit gets an error frame naming the limit;
// the connection is kept and seated once a place is free.
func TestHelloPastTheSeatLimit(t *testing.T) {
	t.Parallel()
	store, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	e := room.New(room.Config{Log: store, MaxSeats: 2})
	topic := topicstore.NewID()
	e.Open(topic)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := serve(e, "tok", nil, ln, defaultLimits)
	t.Cleanup(func() { srv.Close() })
	v := &env{e: e, store: store, srv: srv, topic: topic}
	sub := e.Subscribe()
	defer sub.Close()
	first := v.join(t, "a", topic)
	v.join(t, "b", topic)
	waitRoster(t, sub, 3)
	c := v.hello(t, "c", topic)
	typ, f := recv(t, c)
	if msg := f.(*wire.ErrorFrame).Error; typ != wire.TypeError || !strings.Contains(msg, "already seats 2 connections; the limit is 2 per room") {
		t.Fatalf("%s %+v", typ, f)
	}
	first.Close()
	waitRoster(t, sub, 2)
	send(t, c, wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "c", Room: topic})
	waitRoster(t, sub, 3)
}
