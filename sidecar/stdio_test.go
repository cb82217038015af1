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

// stdioPeer is a raw client of s's MCP over stdio (Serve on a pipe pair):
// lines sent as written, each line read back as a message.
type stdioPeer struct {
	t     *testing.T
	in    io.WriteCloser
	lines chan map[string]any
	done  chan error
}

func serveStdio(t *testing.T, ctx context.Context, s *Sidecar) *stdioPeer {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	p := &stdioPeer{t: t, in: fromClient, lines: make(chan map[string]any, 64), done: make(chan error, 1)}
	go func() { p.done <- s.Serve(ctx, toServer, fromServer); fromServer.Close() }()
	go func() {
		sc := bufio.NewScanner(toClient)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				p.lines <- m
			}
		}
	}()
	return p
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := fmt.Fprintln(p.in, line); err != nil {
		p.t.Fatal(err)
	}
}

// await is the first message that ok takes, waiting up to 30 s.
func (p *stdioPeer) await(what string, ok func(map[string]any) bool) map[string]any {
	p.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case m := <-p.lines:
			if ok(m) {
				return m
			}
		case <-deadline:
			p.t.Fatalf("no %s", what)
		}
	}
}

func (p *stdioPeer) answer(id any) map[string]any {
	p.t.Helper()
	return p.await(fmt.Sprintf("answer for id %v", id), func(m map[string]any) bool { return m["id"] == id })
}

// end closes the client's side and waits for Serve.
func (p *stdioPeer) end() {
	p.t.Helper()
	p.in.Close()
	if err := <-p.done; err != nil {
		p.t.Fatalf("Serve: %v", err)
	}
}

const stdioInit = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

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

	p := serveStdio(t, ctx, s)
	p.send(stdioInit)
	p.answer(float64(1))
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"say_to_room","arguments":{"content":"hello"}}}`)
	recv(t, posted, "the post frame")
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"the person pressed Esc"}}`)
	res, _ := p.answer(float64(2))["result"].(map[string]any)
	if res == nil || res["isError"] != true || !strings.Contains(fmt.Sprint(res["content"]), "Cancelled before the room answered") {
		t.Fatalf("the cancelled call answered %v", res)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if m := p.answer(float64(3)); m["result"] == nil {
		t.Fatalf("ping after the cancellation: %v", m)
	}
	p.end()
}

// A rename while seated sends notifications/tools/list_changed over stdio,
// to a client of the initialize handshake and to a 2026-07-28 client that
// subscribed to it (subscriptions/listen, as the newest Claude Code does),
// and tools/list then carries the new names. Not parallel: mcp-go's stdio
// transport has one notification queue per process.
func TestRenameSendsListChangedOverStdio(t *testing.T) {
	for _, era := range []string{"initialize", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			s := New(Options{Env: envOf(map[string]string{EnvAgentName: "Lin"}), Log: io.Discard})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			p := serveStdio(t, ctx, s)
			const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
			list := `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`
			if era == "initialize" {
				p.send(stdioInit)
				p.answer(float64(1))
				p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			} else {
				p.send(`{"jsonrpc":"2.0","id":"listen","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
				p.await("the subscription's acknowledgement", func(m map[string]any) bool { return m["method"] == "notifications/subscriptions/acknowledged" })
				list = `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{` + meta + `}}`
			}
			s.identify(wire.Identity{Name: "Luna", FullName: "Claude Lin"})
			p.await("notifications/tools/list_changed", func(m map[string]any) bool { return m["method"] == "notifications/tools/list_changed" })
			p.send(list)
			if got := fmt.Sprint(p.answer(float64(3))["result"]); !strings.Contains(got, "The room calls you Luna (your full name Claude Lin is not an address).") {
				t.Fatalf("tools/list after the rename: %s", got)
			}
			p.end()
		})
	}
}
