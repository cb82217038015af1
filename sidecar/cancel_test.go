package sidecar

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room/wire"
)

// A client's notifications/cancelled over stdio ends the call it names: a
// post the room never answers comes back at once as cancelled (with no more
// waiting for the room), while the connection goes on answering.
func TestCancelledCallEndsOverStdio(t *testing.T) {
	t.Parallel()
	posted := make(chan struct{}, 1)
	f := newFakeRoom(t, func(c *websocket.Conn, frame map[string]any) {
		if frame["type"] == wire.TypePost {
			posted <- struct{}{} // and no answer, ever
		}
	})
	s := New(Options{Env: envOf(baseEnv(f.url())), Log: io.Discard, AnswerTimeout: 10 * time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	s.Start(ctx)
	t.Cleanup(func() { cancel(); s.Close() })
	recv(t, f.hellos, "hello")

	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, toServer, fromServer); fromServer.Close() }()
	lines := make(chan map[string]any, 16)
	go func() {
		sc := bufio.NewScanner(toClient)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				lines <- m
			}
		}
	}()
	send := func(line string) {
		t.Helper()
		if _, err := fmt.Fprintln(fromClient, line); err != nil {
			t.Fatal(err)
		}
	}
	answer := func(id float64) map[string]any {
		t.Helper()
		deadline := time.After(30 * time.Second)
		for {
			select {
			case m := <-lines:
				if m["id"] == id {
					return m
				}
			case <-deadline:
				t.Fatalf("no answer for id %v", id)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	answer(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say_to_room","arguments":{"content":"hello"}}}`)
	recv(t, posted, "the post frame")
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the person pressed Esc"}}`)
	res, _ := answer(2)["result"].(map[string]any)
	if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "Cancelled before the room answered") {
		t.Fatalf("the cancelled call answered %v", res)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := answer(3); m["result"] == nil {
		t.Fatalf("ping after the cancellation: %v", m)
	}
	fromClient.Close()
	if err := <-served; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
