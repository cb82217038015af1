package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"pullcept/room/wire"
	"pullcept/seat"
	seathook "pullcept/seat/hook"
)

// hookTarget is the hook target of the newest launch the starter made.
func hookTarget(t *testing.T, st *fakeStarter) seathook.HookTarget {
	t.Helper()
	st.mu.Lock()
	env := st.specs[len(st.specs)-1].Env
	st.mu.Unlock()
	h, err := seathook.HookTargetFromEnv(func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// callHook posts one hook call as the CLI does and returns the room's
// answer (the call may wait for the person: run it in a goroutine).
func callHook(ctx context.Context, h seathook.HookTarget, event string, body any) (string, error) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.ActivityURL(event), bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	req.Header.Set("Authorization", "Bearer "+h.Secret)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	return string(out), err
}

// awaitItem polls the list for an item of kind in topic.
func awaitItem(t *testing.T, a *App, topic, kind string, ok func(NeedItem) bool) NeedItem {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; {
		for _, it := range a.NeedsList() {
			if it.Topic == topic && it.Kind == kind && (ok == nil || ok(it)) {
				return it
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s item in %s: %+v", kind, topic, a.NeedsList())
		}
		time.Sleep(5 * time.Millisecond) // the list is also told by events; polling keeps the test short
	}
}

func awaitGone(t *testing.T, a *App, id string) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); ; {
		found := false
		for _, it := range a.NeedsList() {
			found = found || it.ID == id
		}
		if !found {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("item %s is still listed: %+v", id, a.NeedsList())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestNeedsListClaudePermissionThroughHook: a Claude PermissionRequest
// opens an item with the tool and input from the hook's payload; the hook
// call is held until the person answers from a screen, and the answer is
// the hook's decision; the item leaves the list, the answer is in the
// topic's record of answers, which goes with the topic. A held call the
// CLI ends (the prompt answered in the pane) takes its item off the list.
func TestNeedsListClaudePermissionThroughHook(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty raw -echo; cat >/dev/null"}}
	a := newApp(t, []seat.Account{{ID: "cc", Name: "Cc", Kind: seat.KindClaudeCode}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	seatedPane(t, a, sub, topic, "cc", "Cc")
	h := hookTarget(t, st)

	req := map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": map[string]any{"command": "touch x", "description": "make x"},
		"permission_suggestions": []any{map[string]any{"type": "addRules", "rules": []any{map[string]any{"toolName": "Bash", "ruleContent": "touch x"}}, "behavior": "allow", "destination": "localSettings"}}}
	type reply struct {
		body string
		err  error
	}
	got := make(chan reply, 1)
	go func() { b, err := callHook(context.Background(), h, "PermissionRequest", req); got <- reply{b, err} }()
	it := awaitItem(t, a, topic, NeedPermission, func(it NeedItem) bool { return it.Tool == "Bash" })
	if it.Input != "touch x" || it.Via != "hook" || it.Account != "cc" || it.Name != "Cc" || len(it.Answers) != 3 {
		t.Fatalf("item: %+v", it)
	}
	// An older wait's end, told late (the event stream is behind the hook
	// call), leaves the open wait's item alone.
	a.noteNeedList(Need{Topic: topic, Account: "cc", Name: "Cc", Why: NeedPermission})
	select {
	case r := <-got:
		t.Fatalf("the hook call returned before the person answered: %+v", r)
	case <-time.After(200 * time.Millisecond):
	}
	if l := a.NeedsList(); len(l) != 1 || l[0].ID != it.ID {
		t.Fatalf("a late end of an older wait took the open one's item: %+v", l)
	}
	if _, err := a.AnswerNeed(it.ID, "maybe", "test-screen"); !errors.Is(err, ErrNoSuchReply) {
		t.Fatalf("an answer the item does not offer: %v", err)
	}
	res, err := a.AnswerNeed(it.ID, "always", "test-screen")
	if err != nil || !res.Done || res.Via != "hook" {
		t.Fatalf("answer: %+v %v", res, err)
	}
	r := <-got
	if r.err != nil || !strings.Contains(r.body, `"behavior":"allow"`) || !strings.Contains(r.body, `"updatedPermissions":[{`) || !strings.Contains(r.body, `"hookEventName":"PermissionRequest"`) {
		t.Fatalf("the hook's answer: %+v", r)
	}
	awaitGone(t, a, it.ID)
	if res, err := a.AnswerNeed(it.ID, "yes", "test-screen"); err != nil || res.Done || !strings.Contains(res.Note, "no longer waiting (answered (always)): nothing was sent") {
		t.Fatalf("a second answer: %+v %v", res, err)
	}
	if _, err := a.AnswerNeed("x-999", "yes", "test-screen"); !errors.Is(err, ErrNoNeed) {
		t.Fatalf("an unknown item: %v", err)
	}
	recs, err := a.NeedAnswers(topic)
	if err != nil || len(recs) != 2 || recs[1].Done || recs[1].Answer != "yes" {
		t.Fatalf("record (the answer, then the late one): %+v %v", recs, err)
	}
	if rc := recs[0]; rc.Who != "Master" || rc.Screen != "test-screen" || rc.Account != "cc" || rc.Tool != "Bash" || rc.Input != "touch x" || rc.Answer != "always" || rc.Via != "hook" || !rc.Done || rc.At.IsZero() {
		t.Fatalf("record: %+v", rc)
	}

	// A "no" is a deny with a message.
	s, _ := a.seats.Seat(topic, "cc")
	s.Activity.Apply(seat.HookEvent{Event: "Stop"})
	go func() { b, err := callHook(context.Background(), h, "PermissionRequest", req); got <- reply{b, err} }()
	it = awaitItem(t, a, topic, NeedPermission, func(n NeedItem) bool { return n.ID != it.ID && n.Via == "hook" })
	if res, err := a.AnswerNeed(it.ID, "no", "test-screen"); err != nil || !res.Done {
		t.Fatalf("no: %+v %v", res, err)
	}
	if r := <-got; !strings.Contains(r.body, `"behavior":"deny"`) {
		t.Fatalf("the hook's answer to no: %+v", r)
	}

	// The CLI ends the call (answered in the pane): the item leaves.
	s.Activity.Apply(seat.HookEvent{Event: "Stop"})
	ctx, cancel := context.WithCancel(context.Background())
	go func() { b, err := callHook(ctx, h, "PermissionRequest", req); got <- reply{b, err} }()
	it = awaitItem(t, a, topic, NeedPermission, func(n NeedItem) bool { return n.Via == "hook" })
	cancel()
	<-got
	awaitGone(t, a, it.ID)

	// The record goes with the topic.
	path, _ := a.store.AnswersFile(topic)
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the record outlived its topic: %v", err)
	}
}

// TestNeedsListAnswerTypedOnlyIntoTheSameWait: a Codex prompt is answered
// by typing its key into the pane, after checking the same wait is still
// open; a prompt answered in the pane meanwhile gets nothing typed, and
// the answer says so.
func TestNeedsListAnswerTypedOnlyIntoTheSameWait(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty raw -echo; echo ready; od -c"}}
	a := newApp(t, []seat.Account{{ID: "cx", Name: "Cx", Kind: seat.KindCodex}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	pane := seatedPane(t, a, sub, topic, "cx", "Cx")
	h := hookTarget(t, st)
	req := map[string]any{"hook_event_name": "PermissionRequest", "tool_name": "Bash", "tool_input": map[string]any{"command": "touch cx", "description": "why"}}
	if b, err := callHook(context.Background(), h, "PermissionRequest", req); err != nil || b != "{}" {
		t.Fatalf("a Codex PermissionRequest is answered at once (its prompt waits for it): %q %v", b, err)
	}
	it := awaitItem(t, a, topic, NeedPermission, func(n NeedItem) bool { return n.Tool == "Bash" })
	if it.Via != "keys" || it.Input != "touch cx" {
		t.Fatalf("item: %+v", it)
	}
	res, err := a.AnswerNeed(it.ID, "yes", "scr")
	if err != nil || res.Done || !strings.Contains(res.Note, "still opening") {
		t.Fatalf("an answer while the prompt opens: %+v %v", res, err)
	}
	time.Sleep(promptOpening) // the prompt's opening time, which the answer waits out
	if res, err = a.AnswerNeed(it.ID, "yes", "scr"); err != nil || !res.Done || res.Via != "keys" {
		t.Fatalf("answer: %+v %v", res, err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(pane.Render(), "y"); {
		if time.Now().After(deadline) {
			t.Fatalf("the answer key never reached the pane:\n%s", pane.Render())
		}
		time.Sleep(5 * time.Millisecond) // no event says a PTY printed
	}
	awaitGone(t, a, it.ID)

	// A new prompt, answered in the pane before the list's answer.
	s, _ := a.seats.Seat(topic, "cx")
	s.Activity.Apply(seat.HookEvent{Event: "PostToolUse", ToolName: "Bash"})
	if _, err := callHook(context.Background(), h, "PermissionRequest", req); err != nil {
		t.Fatal(err)
	}
	it = awaitItem(t, a, topic, NeedPermission, nil)
	time.Sleep(promptOpening)
	before := pane.Render()
	s.Activity.PersonKeys([]byte("\r")) // as the pane's key filter takes the person's Enter
	res, err = a.AnswerNeed(it.ID, "no", "scr")
	if err != nil || res.Done || !strings.Contains(res.Note, "nothing was") { // typed, or sent: the pane's answer may have taken the item off already
		t.Fatalf("an answer to a prompt answered in the pane: %+v %v", res, err)
	}
	time.Sleep(300 * time.Millisecond) // nothing is to come: give a wrong key time to show
	if after := pane.Render(); after != before {
		t.Fatalf("keys were typed:\n%s\n---\n%s", before, after)
	}
	awaitGone(t, a, it.ID)
	recs, _ := a.NeedAnswers(topic)
	if len(recs) != 2 || recs[1].Done || recs[1].Via != "" {
		t.Fatalf("records: %+v", recs)
	}
}

// TestNeedsListMentionsSeenAndBudget: a post to the person is an item until
// a screen says it showed it; a topic's loop budget (issue 36's NeedLoop
// signal) opens and closes its item; the list is newest first.
func TestNeedsListMentionsSeenAndBudget(t *testing.T) {
	t.Parallel()
	a := newApp(t, []seat.Account{}, nil)
	topic, _ := a.NewTopic()
	post := func(id string, to ...string) {
		a.noteMention(RoomEvent{Kind: RoomPost, Topic: topic, Post: wire.Post{MessageID: id, Speaker: "Bot", Content: "look\x1b[31m here", To: to, TS: time.Now().UTC().Format(time.RFC3339Nano)}})
	}
	post("m1", "Master")
	post("p2", "Other")
	post("m3", "Master")
	l := a.NeedsList()
	if len(l) != 2 || l[0].Post != "m3" || l[1].Post != "m1" || l[0].Kind != NeedMention || strings.Contains(l[0].Text, "\x1b") {
		t.Fatalf("list: %+v", l)
	}
	a.SeenPosts("tui", topic, "p2") // an older post, not a mention: changes nothing the list cannot order
	a.SeenPosts("tui", topic, "m1")
	if l := a.NeedsList(); len(l) != 1 || l[0].Post != "m3" {
		t.Fatalf("after seeing m1: %+v", l)
	}
	post("p4", "Other")
	a.SeenPosts("web", topic, "p4") // the newest post: everything before it is seen
	if l := a.NeedsList(); len(l) != 0 {
		t.Fatalf("after seeing the newest: %+v", l)
	}
	for i := range maxMentions + 3 { // bounded: the oldest leave
		post(fmt.Sprint("b", i), "Master")
	}
	if l := a.NeedsList(); len(l) != maxMentions || l[len(l)-1].Post != "b3" {
		t.Fatalf("%d mentions listed (want %d), the oldest %+v", len(l), maxMentions, l[len(l)-1])
	}
	a.SeenPosts("web", topic, fmt.Sprint("b", maxMentions+2))
	a.noteLoop(LoopState{Topic: topic, Count: 2, Budget: 2, Limit: 2})
	if l := a.NeedsList(); len(l) != 1 || l[0].Kind != NeedLoop || l[0].Account != "" || l[0].Text == "" {
		t.Fatalf("budget: %+v", l)
	}
	a.noteLoop(LoopState{Topic: topic})
	if l := a.NeedsList(); len(l) != 0 {
		t.Fatalf("budget over: %+v", l)
	}
}

// TestNeedsListSeatErrorAndLimit: a seat that ends by itself on a failure is
// an item until it runs again, a turn ended on an API error until the next; a seat stopped at its usage limit is one
// until the limit is over; a requested stop is none.
func TestNeedsListSeatErrorAndLimit(t *testing.T) {
	t.Parallel()
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "echo up; exit 3"}}
	a := newApp(t, []seat.Account{{ID: "cat", Name: "Cat", Kind: seat.KindCLI, Command: "cat"}}, st)
	topic, _ := a.NewTopic()
	if _, err := a.StartSeat(context.Background(), topic, "cat"); err != nil {
		t.Fatal(err)
	}
	it := awaitItem(t, a, topic, NeedError, nil)
	if it.Account != "cat" || !strings.Contains(it.Text, "exit 3") {
		t.Fatalf("error item: %+v", it)
	}
	st.mu.Lock()
	st.argv = []string{"/bin/sh", "-c", "echo up; exec sleep 60"}
	st.mu.Unlock()
	if _, err := a.RestartSeat(context.Background(), topic, "cat"); err != nil {
		t.Fatal(err)
	}
	awaitGone(t, a, it.ID)
	s, _ := a.seats.Seat(topic, "cat")
	// A turn ended on an API error (Claude's StopFailure), until the next.
	s.Activity.Apply(seat.HookEvent{Event: "UserPromptSubmit"})
	s.Activity.Apply(seat.HookEvent{Event: "StopFailure", Error: "overloaded"})
	fail := awaitItem(t, a, topic, NeedError, nil)
	if !strings.Contains(fail.Text, "API error: overloaded") {
		t.Fatalf("failure item: %+v", fail)
	}
	s.Activity.Apply(seat.HookEvent{Event: "UserPromptSubmit"})
	awaitGone(t, a, fail.ID)
	s.Activity.Apply(seat.HookEvent{Event: "Stop"})
	s.Activity.SetLimited(time.Time{})
	lim := awaitItem(t, a, topic, NeedLimited, nil)
	s.Activity.Unlimit()
	awaitGone(t, a, lim.ID)
	if err := a.StopSeat(topic, "cat", "test"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond) // a wrong item would come with the exit's event
	for _, it := range a.NeedsList() {
		if it.Kind == NeedError {
			t.Fatalf("a requested stop listed: %+v", it)
		}
	}
}
