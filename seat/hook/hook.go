// Package hook is the client side of a seat's hooks: where a launch's hook
// calls go (the target its environment names), the call itself, and the
// room's own status line. `pullcept hook EVENT` runs it at every hook a
// seat's CLI fires: one POST with net/http's client. Package seat, which
// writes the environment and the CLIs' hook settings, builds on it.
//
// The protocol (spec 003 "部屋プロトコル"): the room's one port answers
// POST /hooks/status/<topic>/<account> and
// /hooks/activity/<event>/<topic>/<account>, with the launch's own hook
// secret as the bearer token (docs/decisions.md "Seats know what their CLI
// is doing").
package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"pullcept/room/wire"
)

// The variables a seat's hooks read.
const (
	EnvHookURL     = "PULLCEPT_HOOK_URL"     // http://127.0.0.1:PORT/hooks
	EnvHookTopic   = "PULLCEPT_HOOK_TOPIC"   // the seat's topic
	EnvHookAccount = "PULLCEPT_HOOK_ACCOUNT" // the seat's account
	EnvHookSecret  = "PULLCEPT_HOOK_SECRET"  // this launch's secret
	// EnvStatusLine is the person's own Claude status-line command, run by
	// `pullcept hook status` so the person still sees it.
	EnvStatusLine = "PULLCEPT_STATUSLINE_COMMAND"
)

// EnvSeat names the seat a process runs in ("ACCOUNT in TOPIC") and
// EnvSeatHome its home's runtime folder: a pullcept run from a seat's
// shell on the same home does not act as the person (docs/decisions.md
// "Agents are not the person"). The launch sets them (seat), a pullcept
// command run in the seat reads them (cli).
const (
	EnvSeat     = "PULLCEPT_SEAT"
	EnvSeatHome = "PULLCEPT_SEAT_HOME"
)

// HookStatus is the hook event name of a status report (the status line).
const HookStatus = "status"

// MaxHookBody bounds what `pullcept hook` reads and sends (the room socket
// refuses more).
const MaxHookBody = 256 << 10

// hookCallTimeout bounds one hook call: the room answers at once, or after
// a post being typed has its \r (a few seconds at most).
const hookCallTimeout = 20 * time.Second

// maxRefusalText bounds the room's reason quoted in a refusal's error.
const maxRefusalText = 300

// HookTarget is where one launch's hooks report.
type HookTarget struct {
	// Base is the room port's hook base, http://127.0.0.1:PORT/hooks.
	Base    string
	Topic   string
	Account string
	Secret  string
}

// HookBase turns the room's WebSocket address into the hook base URL.
func HookBase(roomURL string) (string, error) {
	u, err := url.Parse(roomURL)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("room address %q: not a URL", roomURL)
	}
	return "http://" + u.Host + "/hooks", nil
}

// ActivityURL is the endpoint of one activity event.
func (h HookTarget) ActivityURL(event string) string {
	return h.Base + "/activity/" + url.PathEscape(event) + "/" + url.PathEscape(h.Topic) + "/" + url.PathEscape(h.Account)
}

// StatusURL is the endpoint of status reports.
func (h HookTarget) StatusURL() string {
	return h.Base + "/status/" + url.PathEscape(h.Topic) + "/" + url.PathEscape(h.Account)
}

// HookTargetFromEnv reads a hook's target from its environment.
func HookTargetFromEnv(getenv func(string) string) (HookTarget, error) {
	h := HookTarget{Base: getenv(EnvHookURL), Topic: getenv(EnvHookTopic), Account: getenv(EnvHookAccount), Secret: getenv(EnvHookSecret)}
	var missing []string
	for _, kv := range [][2]string{{EnvHookURL, h.Base}, {EnvHookTopic, h.Topic}, {EnvHookAccount, h.Account}, {EnvHookSecret, h.Secret}} {
		if kv[1] == "" {
			missing = append(missing, kv[0])
		}
	}
	if len(missing) > 0 {
		return HookTarget{}, fmt.Errorf("not run by a pullcept seat: %s not set", strings.Join(missing, ", "))
	}
	return h, nil
}

// PostHook sends one hook call (event HookStatus for a status report) with
// the launch's secret. A refusal is an error with the room's reason.
func PostHook(ctx context.Context, h HookTarget, event string, body []byte) error {
	u := h.StatusURL()
	if event != HookStatus {
		u = h.ActivityURL(event)
	}
	ctx, cancel := context.WithTimeout(ctx, hookCallTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("hook %s: %w", event, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+h.Secret)
	// One call per process: no connection kept, and no proxy (the room
	// listens on loopback).
	resp, err := (&http.Client{Transport: &http.Transport{DisableKeepAlives: true}}).Do(req)
	if err != nil {
		return fmt.Errorf("hook %s: %w", event, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxRefusalText))
		return fmt.Errorf("hook %s: the room answered %s: %s", event, resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}

// StatusLineText is the room's own status line for a Claude status-line
// payload: the model and the context used, from the fields Claude sends;
// a field not sent is left out.
func StatusLineText(body []byte) string {
	var v struct {
		Model struct {
			DisplayName string `json:"display_name"`
			ID          string `json:"id"`
		} `json:"model"`
		ContextWindow struct {
			UsedPercentage *float64 `json:"used_percentage"`
		} `json:"context_window"`
	}
	_ = json.Unmarshal(body, &v)
	parts := []string{"pullcept"}
	if m := firstNonEmpty(v.Model.DisplayName, v.Model.ID); m != "" {
		parts = append(parts, wire.OneLine(m)) // printed on Claude's screen: no control character
	}
	if p := v.ContextWindow.UsedPercentage; p != nil {
		parts = append(parts, fmt.Sprintf("ctx %.0f%%", *p))
	}
	return strings.Join(parts, " · ")
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
