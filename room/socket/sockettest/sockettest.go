// Package sockettest runs the real room socket for other packages' tests
// (the socket's clients: seat/hook): a store in a temporary
// folder, an engine with one open topic, and hooks that take one seat's
// secret.
package sockettest

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"pullcept/room"
	"pullcept/room/socket"
	"pullcept/topicstore"
)

// The seat whose hook calls Hooks takes.
const (
	Account = "acc"
	Secret  = "s1"
)

// Hooks takes hook calls with Secret for Account and records each as
// "TOPIC/ACCOUNT/EVENT BODY" on Events.
type Hooks struct{ Events chan string }

func (h *Hooks) CheckHook(topic, account, secret string) error {
	if account != Account || secret != Secret {
		return errors.New("not this seat's secret")
	}
	return nil
}

func (h *Hooks) Activity(_ context.Context, topic, account, event string, body []byte) error {
	h.Events <- topic + "/" + account + "/" + event + " " + string(body)
	return nil
}

// Start runs a room socket taking token, closed when the test ends, and
// returns it with its hooks and its open topic.
func Start(t testing.TB, token string) (*socket.Server, *Hooks, string) {
	t.Helper()
	store, err := topicstore.Open(filepath.Join(t.TempDir(), "logs"))
	if err != nil {
		t.Fatal(err)
	}
	e := room.New(room.Config{Log: store, PersonName: "Master"})
	topic := topicstore.NewID()
	if _, err := e.Open(topic); err != nil {
		t.Fatal(err)
	}
	srv, err := socket.Listen(e, token, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	h := &Hooks{Events: make(chan string, 4)}
	srv.SetHooks(h)
	return srv, h, topic
}
