package room

import (
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"pullcept/room/wire"
)

// faultyTyper panics on its first delivery, as a bug in the seats would.
type faultyTyper struct{ armed atomic.Bool }

func (f *faultyTyper) Type(Delivery) {
	if f.armed.CompareAndSwap(true, false) {
		panic("test: a fault while the post is delivered")
	}
}

// A panic inside a post's delivery (under the room's lock: the person's
// post from a screen reaches it) leaves the room unlocked: the next post,
// from the person or a seat, goes through. Before, the room stayed locked
// for good and every later post hung.
func TestPostFaultLeavesTheRoomUnlocked(t *testing.T) {
	t.Parallel()
	ty := &faultyTyper{}
	ty.armed.Store(true)
	e := New(Config{Log: newMemLog(), Typer: ty, PersonName: "Master"})
	if _, err := e.Open(topicA); err != nil {
		t.Fatal(err)
	}
	func() {
		defer func() {
			if r := recover(); r == nil || !strings.Contains(r.(string), "test: a fault") {
				t.Errorf("the first post recovered %v", r)
			}
		}()
		_, _ = e.PostAsPerson(topicA, "first", "")
	}()
	done := make(chan error, 1)
	go func() {
		bot := e.NewConn()
		if err := e.Hello(bot, wire.Hello{Name: "Bot", Room: topicA}); err != nil {
			done <- err
			return
		}
		_, err := e.PostAsPerson(topicA, "second", "")
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the room stayed locked after a fault in a post")
	}
}
