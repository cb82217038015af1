package tui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"pullcept/app"
	"pullcept/room/wire"
)

// needsFake is a Backend with a needs-you list.
type needsFake struct {
	Backend
	items   []app.NeedItem
	answers []string // "id answer screen"
	records map[string][]app.AnswerRecord
	seen    []string // "screen topic upTo"
}

func (f *needsFake) NeedsList() []app.NeedItem { return f.items }
func (f *needsFake) AnswerNeed(id, answer, screen string) (app.AnswerResult, error) {
	f.answers = append(f.answers, id+" "+answer+" "+screen)
	for i, it := range f.items {
		if it.ID == id {
			f.items = append(f.items[:i:i], f.items[i+1:]...)
		}
	}
	return app.AnswerResult{Done: true, Via: "hook", Note: "answered " + answer}, nil
}
func (f *needsFake) NeedAnswers(topic string) ([]app.AnswerRecord, error) {
	return f.records[topic], nil
}
func (f *needsFake) SeenPosts(screen, topic, upTo string) {
	f.seen = append(f.seen, screen+" "+topic+" "+upTo)
}

// TestNeedsListKeys: prefix ! lists the items newest first with topic,
// seat, since, tool and input (made visible: no escape reaches the
// terminal); j/k move; an answer key answers the selected item with this
// screen's name; a key the item does not offer answers nothing; h shows
// the topic's answered items; Enter jumps to the item's topic; Esc closes.
func TestNeedsListKeys(t *testing.T) {
	var nf *needsFake
	hs := newHarness(t, nil, 120, 30, func(o *Options) {
		nf = &needsFake{Backend: o.App}
		o.App, o.Screen = nf, "terminal 7"
	})
	other, _ := hs.m.app.NewTopic()
	if err := hs.m.app.EnsureOpen(other); err != nil {
		t.Fatal(err)
	}
	if _, err := hs.m.app.Post(other, "first", ""); err != nil {
		t.Fatal(err)
	}
	if err := hs.m.app.Rename(other, "elsewhere"); err != nil {
		t.Fatal(err)
	}
	hs.run(hs.m.loadTopics())
	since := time.Date(2026, 5, 1, 12, 10, 0, 0, time.UTC)
	nf.items = []app.NeedItem{
		{ID: "n2", Kind: app.NeedQuestion, Topic: other, Account: "cc", Name: "Cc", Since: since, Text: "Which colour?", Answers: []app.NeedAnswer{{ID: "1", Key: "1", Label: "Red"}, {ID: "2", Key: "2", Label: "Blue"}}},
		{ID: "n1", Kind: app.NeedPermission, Topic: other, Account: "cc", Name: "Cc", Since: since.Add(-time.Minute), Tool: "Bash", Input: "touch x\x1b[2J",
			Answers: []app.NeedAnswer{{ID: "yes", Key: "y", Label: "yes"}, {ID: "no", Key: "n", Label: "no"}}},
	}
	hs.prefix('!', "!")
	scr := hs.screen()
	for _, want := range []string{"Needs you — ", "▶ question — Cc in “elsewhere” since 12:10:00", "Which colour?  [1 Red · 2 Blue]", "permission — Cc in “elsewhere” since 12:09:00", "Bash: touch x␛[2J  [y yes · n no]"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("the list lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(hs.m.View().Content, "\x1b[2J") {
		t.Fatal("an escape sequence from a tool's input reached the terminal")
	}
	hs.send(tea.KeyPressMsg{Code: 'y', Text: "y"}) // the question offers no y
	if len(nf.answers) != 0 || !strings.Contains(hs.m.status, "y is not an answer of this item (1 Red · 2 Blue)") {
		t.Fatalf("y on a question: %v %q", nf.answers, hs.m.status)
	}
	hs.send(tea.KeyPressMsg{Code: 'j', Text: "j"})
	if !strings.Contains(hs.screen(), "▶ permission — Cc") {
		t.Fatalf("j did not select the next item:\n%s", hs.screen())
	}
	hs.send(tea.KeyPressMsg{Code: 'k', Text: "k"})
	hs.send(tea.KeyPressMsg{Code: '2', Text: "2"})
	if len(nf.answers) != 1 || nf.answers[0] != "n2 2 terminal 7" || hs.m.status != "answered 2" {
		t.Fatalf("2 on the question: %v %q", nf.answers, hs.m.status)
	}
	hs.send(appEventMsg{app.Event{Kind: app.EventNeedsList}})
	if scr := hs.screen(); strings.Contains(scr, "question —") || !strings.Contains(scr, "▶ permission — Cc") {
		t.Fatalf("the answered item stayed, or the selection was lost:\n%s", scr)
	}
	nf.records = map[string][]app.AnswerRecord{other: {{At: since, Who: "you", Screen: "terminal 7", Name: "Cc", Kind: app.NeedPermission, Tool: "Bash", Input: "ls", Answer: "yes", Label: "yes", Via: "hook", Done: true}}}
	hs.send(tea.KeyPressMsg{Code: 'h', Text: "h"})
	if scr := hs.screen(); !strings.Contains(scr, "Answered in “elsewhere”") || !strings.Contains(scr, "Cc · permission · yes") || !strings.Contains(scr, "Bash: ls  — you from terminal 7, hook") {
		t.Fatalf("h:\n%s", scr)
	}
	hs.send(tea.KeyPressMsg{Code: 'h', Text: "h"})
	hs.send(tea.KeyPressMsg{Code: tea.KeyEnter})
	if hs.m.topic != other || hs.m.nl.open {
		t.Fatalf("Enter did not jump to the item's topic: %s (open %v)", hs.m.topic, hs.m.nl.open)
	}
	hs.prefix('!', "!")
	hs.send(tea.KeyPressMsg{Code: tea.KeyEscape})
	if hs.m.nl.open {
		t.Fatal("Esc did not close the list")
	}
}

// TestNeedsListSeenReported: the screen tells the app it showed the topic
// on screen at its newest post — once per post, not while scrolled up.
func TestNeedsListSeenReported(t *testing.T) {
	var nf *needsFake
	hs := newHarness(t, nil, 100, 30, func(o *Options) {
		nf = &needsFake{Backend: o.App}
		o.App, o.Screen = nf, "terminal 3"
	})
	lin := hs.eng.NewConn()
	if err := hs.eng.Hello(lin, wire.Hello{Type: "hello", Name: "Lin", Room: hs.m.topic}); err != nil {
		t.Fatal(err)
	}
	if _, err := hs.eng.PostFromConn(lin, wire.PostFrame{MessageID: "m1", Content: "@you look"}); err != nil {
		t.Fatal(err)
	}
	hs.pump()
	want := "terminal 3 " + hs.m.topic + " m1"
	if len(nf.seen) != 1 || nf.seen[0] != want {
		t.Fatalf("seen reports: %q, want [%q]", nf.seen, want)
	}
	hs.send(tea.KeyPressMsg{Code: 'x', Text: "x"}) // another update: no second report
	if len(nf.seen) != 1 {
		t.Fatalf("reported again: %q", nf.seen)
	}
}
