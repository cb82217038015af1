package app

import (
	"context"
	"strings"
	"testing"
	"time"

	"pullcept/dirs"
	"pullcept/seat"
)

// TestDeliveryNotReceivedIsTold: a post typed into a seat whose CLI
// reports prompts, and not seen as one within the bound of the CLI being
// ready, is marked not received, the person is told on the status line
// (naming the seat and the post), and it is not typed again; the marks
// are kept for a screen that opens the topic later.
func TestDeliveryNotReceivedIsTold(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	d, err := dirs.Resolve(func(k string) string { return map[string]string{"PULLCEPT_HOME": home}[k] })
	if err != nil {
		t.Fatal(err)
	}
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty raw -echo; cat >/dev/null"}}
	a, err := Start(context.Background(), Options{Dirs: d, PersonName: "Master", ExePath: "/bin/false", StartPane: st.start,
		Accounts: []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, ReceiveBound: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.Close)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	hook := func(event, body string) {
		t.Helper()
		if err := a.seats.Activity(context.Background(), topic, "bot", event, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	// Its hooks report prompts (a cli account with hooks); a turn ends.
	hook("UserPromptSubmit", `{"prompt":"hello"}`)
	hook("Stop", `{}`)
	o, err := a.Post(topic, "@Bot are you there", "")
	if err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	var marks []string
	for {
		ev := next(t, sub)
		if ev.Kind == EventDelivery && ev.Delivery.MessageID == o.Post.MessageID {
			marks = append(marks, string(ev.Delivery.Mark))
		}
		if ev.Kind == EventNotice && strings.Contains(ev.Notice, "did not take") {
			if !strings.Contains(ev.Notice, "Bot did not take “are you there” as a prompt within 300ms") || !strings.Contains(ev.Notice, "not retyped") {
				t.Fatalf("the notice: %q", ev.Notice)
			}
			break
		}
	}
	if strings.Join(marks, " ") != "typed not_received" {
		t.Fatalf("marks %q, want typed then not received", marks)
	}
	if got := a.Deliveries(topic)[o.Post.MessageID]; len(got) != 1 || got[0].Mark != MarkNotReceived {
		t.Fatalf("the marks kept: %+v", got)
	}
	// Nothing is typed again: no further mark for the post.
	deadline := time.After(time.Second)
	for {
		select {
		case ev := <-sub.C:
			if ev.Kind == EventDelivery && ev.Delivery.MessageID == o.Post.MessageID {
				t.Fatalf("the post was marked again: %+v", ev.Delivery)
			}
			continue
		case <-deadline:
		}
		break
	}
	// A deleted topic keeps no marks.
	if err := a.Delete(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	if got := a.Deliveries(topic); len(got) != 0 {
		t.Fatalf("marks of a deleted topic: %+v", got)
	}
}
