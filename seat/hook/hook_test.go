package hook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"pullcept/room/socket/sockettest"
)

// PostHook against the room socket: an activity event and a status report
// taken, another seat's secret refused with the room's reason.
func TestPostHookToTheRoom(t *testing.T) {
	t.Parallel()
	srv, hooks, topic := sockettest.Start(t, "tok")
	base, err := HookBase(srv.URL())
	if err != nil || base != "http://"+srv.Addr()+"/hooks" {
		t.Fatalf("HookBase(%q) = %q, %v", srv.URL(), base, err)
	}
	h := HookTarget{Base: base, Topic: topic, Account: "acc", Secret: "s1"}
	if err := PostHook(context.Background(), h, "PreToolUse", []byte(`{"tool_name":"Bash"}`)); err != nil {
		t.Fatal(err)
	}
	if got, want := <-hooks.Events, topic+`/acc/PreToolUse {"tool_name":"Bash"}`; got != want {
		t.Fatalf("the room took %q, want %q", got, want)
	}
	if err := PostHook(context.Background(), h, HookStatus, []byte(`{"model":{"id":"m"}}`)); err != nil {
		t.Fatalf("a status report: %v", err)
	}
	select {
	case ev := <-hooks.Events:
		t.Fatalf("a status report went to Activity: %q", ev)
	default:
	}

	h.Secret = "s2"
	err = PostHook(context.Background(), h, "Stop", []byte(`{}`))
	if err == nil || err.Error() != "hook Stop: the room answered 403 Forbidden: hook refused: not this seat's secret" {
		t.Fatalf("another seat's secret: %v", err)
	}
}

// What the call sends: the escaped endpoint, the secret, JSON.
func TestPostHookRequest(t *testing.T) {
	t.Parallel()
	type seen struct{ path, auth, ctype, body string }
	got := make(chan seen, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b := make([]byte, 100)
		n, _ := r.Body.Read(b)
		got <- seen{r.URL.EscapedPath(), r.Header.Get("Authorization"), r.Header.Get("Content-Type"), string(b[:n])}
		if strings.Contains(r.URL.Path, "long") {
			http.Error(w, strings.Repeat("why ", 1000), http.StatusBadRequest)
		}
	}))
	t.Cleanup(srv.Close)
	h := HookTarget{Base: srv.URL + "/hooks", Topic: "t/1", Account: "a b", Secret: "sec"}
	if err := PostHook(context.Background(), h, "Pre/Tool", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if s, want := <-got, (seen{"/hooks/activity/Pre%2FTool/t%2F1/a%20b", "Bearer sec", "application/json", "{}"}); s != want {
		t.Fatalf("the server saw %+v, want %+v", s, want)
	}
	if err := PostHook(context.Background(), h, HookStatus, nil); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s.path != "/hooks/status/t%2F1/a%20b" {
		t.Fatalf("a status report went to %s", s.path)
	}
	err := PostHook(context.Background(), h, "long", nil)
	<-got
	if err == nil || !strings.HasPrefix(err.Error(), "hook long: the room answered 400 Bad Request: why why") || len(err.Error()) > 400 {
		t.Fatalf("a long refusal: %d bytes: %.100v", len(err.Error()), err)
	}
}

// A room that is not there is an error naming the call, at once.
func TestPostHookNoRoom(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	start := time.Now()
	err = PostHook(context.Background(), HookTarget{Base: "http://" + addr + "/hooks", Topic: "t", Account: "a", Secret: "s"}, "Stop", []byte("{}"))
	if err == nil || !strings.HasPrefix(err.Error(), "hook Stop: Post \"http://"+addr+"/hooks/activity/Stop/t/a\": ") {
		t.Fatalf("no room: %v", err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("took %v", took)
	}
}

func TestHookTargetFromEnv(t *testing.T) {
	t.Parallel()
	env := map[string]string{EnvHookURL: "http://127.0.0.1:1/hooks", EnvHookTopic: "t", EnvHookAccount: "a", EnvHookSecret: "s"}
	h, err := HookTargetFromEnv(func(k string) string { return env[k] })
	if err != nil || h != (HookTarget{Base: "http://127.0.0.1:1/hooks", Topic: "t", Account: "a", Secret: "s"}) {
		t.Fatalf("%+v %v", h, err)
	}
	delete(env, EnvHookTopic)
	delete(env, EnvHookSecret)
	_, err = HookTargetFromEnv(func(k string) string { return env[k] })
	if err == nil || err.Error() != "not run by a pullcept seat: PULLCEPT_HOOK_TOPIC, PULLCEPT_HOOK_SECRET not set" {
		t.Fatalf("missing variables: %v", err)
	}
	if _, err := HookBase("not a url"); err == nil {
		t.Fatal("HookBase took an address without a host")
	}
}

func TestStatusLineText(t *testing.T) {
	t.Parallel()
	for body, want := range map[string]string{
		`{"model":{"display_name":"Opus","id":"claude-opus"},"context_window":{"used_percentage":41.6}}`: "pullcept · Opus · ctx 42%",
		`{"model":{"id":"claude-opus"}}`:               "pullcept · claude-opus",
		`{"model":{"display_name":"a\u001b[31mb\nc"}}`: "pullcept · a␛[31mb⏎c",
		`not json`: "pullcept",
	} {
		if got := StatusLineText([]byte(body)); got != want {
			t.Errorf("StatusLineText(%s) = %q, want %q", body, got, want)
		}
	}
}
