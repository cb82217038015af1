package fakemodel_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/fakemodel"
)

func rawPost(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

const codexHi = `{"model":"fake-model","stream":true,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}]}`

// SetHeaders puts Codex's rate-limit headers on every answer; a
// UsageLimitReached reply is a 429 with Codex's usage-limit body and its
// own headers; FailNext fails exactly the next request.
func TestRateLimitHeadersAndFailures(t *testing.T) {
	reset := time.Unix(1796133953, 0)
	limit := false
	srv := fakemodel.Start(t, func(r fakemodel.Request) fakemodel.Reply {
		if limit {
			return fakemodel.UsageLimitReached(
				&fakemodel.RateWindow{UsedPercent: 100, WindowMinutes: fakemodel.FiveHourMinutes, ResetAt: reset},
				&fakemodel.RateWindow{UsedPercent: 12, WindowMinutes: fakemodel.SevenDayMinutes, ResetAt: reset.Add(time.Hour)})
		}
		return fakemodel.Say("hello")
	})
	srv.SetHeaders(fakemodel.CodexRateLimitHeaders(
		&fakemodel.RateWindow{UsedPercent: 42.5, WindowMinutes: fakemodel.FiveHourMinutes, ResetAt: reset}, nil))

	resp, body := rawPost(t, srv.URL+"/v1/responses", codexHi)
	if resp.StatusCode != 200 || !strings.Contains(body, "response.completed") {
		t.Fatalf("%s %s", resp.Status, body)
	}
	for k, want := range map[string]string{"X-Codex-Primary-Used-Percent": "42.5", "X-Codex-Primary-Window-Minutes": "300",
		"X-Codex-Primary-Reset-At": "1796133953", "X-Codex-Secondary-Used-Percent": "", "Content-Type": "text/event-stream"} {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}

	limit = true
	resp, body = rawPost(t, srv.URL+"/v1/responses", codexHi)
	var e struct {
		Error struct {
			Type     string `json:"type"`
			ResetsAt int64  `json:"resets_at"`
		} `json:"error"`
	}
	if resp.StatusCode != 429 || json.Unmarshal([]byte(body), &e) != nil || e.Error.Type != "usage_limit_reached" || e.Error.ResetsAt != reset.Unix() {
		t.Fatalf("%s %s", resp.Status, body)
	}
	if resp.Header.Get("X-Codex-Primary-Used-Percent") != "100" || resp.Header.Get("X-Codex-Secondary-Used-Percent") != "12" {
		t.Errorf("429 headers: %v", resp.Header)
	}

	limit = false
	srv.FailNext(fakemodel.Failure{Status: 503, Body: `{"error":{"type":"overloaded"}}`})
	if resp, body := rawPost(t, srv.URL+"/v1/responses", codexHi); resp.StatusCode != 503 || !strings.Contains(body, "overloaded") {
		t.Fatalf("FailNext: %s %s", resp.Status, body)
	}
	if resp, _ := rawPost(t, srv.URL+"/v1/responses", codexHi); resp.StatusCode != 200 {
		t.Fatalf("after FailNext: %s", resp.Status)
	}
	reqs := srv.Requests()
	var failed []int
	for _, r := range reqs {
		if r.Reply.Fail != nil {
			failed = append(failed, r.Reply.Fail.Status)
		}
	}
	if len(reqs) != 4 || len(failed) != 2 || failed[0] != 429 || failed[1] != 503 {
		t.Fatalf("recorded %d requests, failures %v", len(reqs), failed)
	}
}
