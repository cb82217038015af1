package dial

// Against the room socket itself (pullcept/room/socket), which the sidecar
// and the hooks talk to. sidecar/room_test.go runs the whole room client on
// it too.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"pullcept/room/socket/sockettest"
	"pullcept/room/wire"
)

func TestRoomSocket(t *testing.T) {
	t.Parallel()
	srv, hooks, topic := sockettest.Start(t, "tok-1")

	_, err := (&Dialer{Header: [][2]string{{"Authorization", "Bearer wrong"}}}).Dial(context.Background(), srv.URL())
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 401 || se.Status != "401 Unauthorized" {
		t.Fatalf("a wrong token: %v", err)
	}

	c := dialT(t, srv.URL(), [2]string{"Authorization", "Bearer tok-1"})
	hello, _ := json.Marshal(wire.Hello{Type: wire.TypeHello, Protocol: wire.ProtocolVersion, Name: "Lin", Room: topic})
	if err := c.WriteMessage(TextMessage, hello); err != nil {
		t.Fatal(err)
	}
	typ, v, err := wire.Decode([]byte(readText(t, c)))
	if err != nil || typ != wire.TypeIdentity || v.(*wire.Identity).Name != "Lin" {
		t.Fatalf("after hello: %s %+v %v", typ, v, err)
	}
	post, _ := json.Marshal(wire.PostFrame{Type: wire.TypePost, MessageID: "m1", Content: strings.Repeat("long post ", 10000)})
	if err := c.WriteMessage(TextMessage, post); err != nil {
		t.Fatal(err)
	}
	typ, v, err = wire.Decode([]byte(readText(t, c)))
	if err != nil || typ != wire.TypePostResult || v.(*wire.PostResult).MessageID != "m1" {
		t.Fatalf("after a post: %s %+v %v", typ, v, err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	base := "http://" + srv.Addr() + "/hooks/activity/Stop/" + topic + "/acc"
	resp, err := Post(ctx, base, [][2]string{{"Content-Type", "application/json"}, {"Authorization", "Bearer s1"}}, []byte(`{"a":1}`))
	if err != nil || resp.StatusCode != 200 || string(resp.Body) != "{}" {
		t.Fatalf("a hook call: %+v %v", resp, err)
	}
	if got := <-hooks.Events; got != topic+`/acc/Stop {"a":1}` {
		t.Fatalf("the room took %q", got)
	}
	resp, err = Post(ctx, base, [][2]string{{"Authorization", "Bearer s2"}}, []byte(`{}`))
	if err != nil || resp.StatusCode != 403 || !strings.Contains(string(resp.Body), "not this seat's secret") {
		t.Fatalf("a hook call with another secret: %+v %v", resp, err)
	}
}
