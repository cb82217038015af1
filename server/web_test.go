package server

import (
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/attach"
)

// TestExitWhenIdleKeepsAnOpenBrowser: a background server with no terminal
// and no seat stays up while a browser has the page open, past the idle
// grace, and ends once the browser has gone for the grace.
func TestExitWhenIdleKeepsAnOpenBrowser(t *testing.T) {
	t.Parallel()
	f := startServer(t, setup{exitWhenIdle: true, idleGrace: 400 * time.Millisecond})
	c, _ := f.dial(attach.Hello{Mode: attach.ModeWeb})
	out, _, exit := untilExit(t, c)
	m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+)/#token=([0-9a-f]{64})`).FindStringSubmatch(out)
	if exit.Code != 0 || m == nil {
		t.Fatalf("web: %q %+v", out, exit)
	}
	base, token := m[1], m[2]
	jar, _ := cookiejar.New(nil)
	req, _ := http.NewRequest("POST", base+"/login", strings.NewReader(`{"token":"`+token+`"}`))
	req.Header.Set("Origin", base)
	res, err := (&http.Client{Jar: jar}).Do(req)
	if err != nil || res.StatusCode != http.StatusNoContent {
		t.Fatalf("login: %v %v", res, err)
	}
	res.Body.Close()
	ws, _, err := (&websocket.Dialer{Jar: jar}).Dial("ws"+strings.TrimPrefix(base, "http")+"/ws", http.Header{"Origin": {base}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ready, err := ws.ReadMessage(); err != nil || !strings.Contains(string(ready), `"event":"ready"`) {
		t.Fatalf("first line %s %v", ready, err)
	}
	time.Sleep(1200 * time.Millisecond) // three graces: nothing to await for "did not end"
	if !f.running() {
		t.Fatalf("the server ended with a browser open: %q", f.reason)
	}
	ws.Close()
	if got := f.served(); got != "no terminal attached and no session running" {
		t.Fatalf("Serve returned %q", got)
	}
}
