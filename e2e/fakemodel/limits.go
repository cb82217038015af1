package fakemodel

// Rate-limit headers and error answers, for the usage-and-limits tests.
// Codex 0.171.0 reads its rate-limit windows from x-codex-* headers on any
// answer (even with an API-key provider) and writes them to its rollout's
// token_count; a 429 whose body has error.type "usage_limit_reached" ends
// its turn at the usage limit (task_complete with codex_error_info
// "usage_limit_exceeded"). ../../shared/notes/cli-hooks.md §8 and §10,
// seat/testdata/codex_usage/README.md.

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// RateWindow is one of Codex's rate-limit windows as its headers carry it.
type RateWindow struct {
	UsedPercent   float64
	WindowMinutes int       // 300 for the 5-hour window, 10080 for the weekly one
	ResetAt       time.Time // sent as epoch seconds; zero: not sent
}

// Codex's window lengths.
const (
	FiveHourMinutes = 300
	SevenDayMinutes = 7 * 24 * 60
)

// CodexRateLimitHeaders are the headers that give Codex its primary and
// secondary windows (either may be nil): x-codex-primary-used-percent,
// x-codex-primary-window-minutes, x-codex-primary-reset-at and the same
// for secondary.
func CodexRateLimitHeaders(primary, secondary *RateWindow) http.Header {
	h := http.Header{}
	set := func(name string, w *RateWindow) {
		if w == nil {
			return
		}
		h.Set("x-codex-"+name+"-used-percent", strconv.FormatFloat(w.UsedPercent, 'f', -1, 64))
		h.Set("x-codex-"+name+"-window-minutes", strconv.Itoa(w.WindowMinutes))
		if !w.ResetAt.IsZero() {
			h.Set("x-codex-"+name+"-reset-at", strconv.FormatInt(w.ResetAt.Unix(), 10))
		}
	}
	set("primary", primary)
	set("secondary", secondary)
	return h
}

// Failure is an HTTP error answer given instead of a model reply.
type Failure struct {
	Status int
	Body   string      // sent as application/json
	Header http.Header // sent with it; each replaces the server's SetHeaders of that name
}

// Fail answers with f instead of a model reply.
func Fail(f Failure) Reply { return Reply{Fail: &f} }

// UsageLimitReached is the answer that stops Codex at its usage limit: HTTP
// 429 with {"error":{"type":"usage_limit_reached",…,"resets_at":…}} and the
// rate-limit headers of primary and secondary (the full one at 100). The
// body's resets_at is the later reset of the windows at 100 % or more.
func UsageLimitReached(primary, secondary *RateWindow) Reply {
	var reset time.Time
	for _, w := range []*RateWindow{primary, secondary} {
		if w != nil && w.UsedPercent >= 100 && w.ResetAt.After(reset) {
			reset = w.ResetAt
		}
	}
	e := map[string]any{"type": "usage_limit_reached", "message": "The usage limit has been reached", "plan_type": "plus"}
	if !reset.IsZero() {
		e["resets_at"] = reset.Unix()
		e["resets_in_seconds"] = max(int64(time.Until(reset)/time.Second), 0)
	}
	b, _ := json.Marshal(map[string]any{"error": e})
	return Fail(Failure{Status: http.StatusTooManyRequests, Body: string(b), Header: CodexRateLimitHeaders(primary, secondary)})
}

// SetHeaders sets headers that every later model answer carries (nil:
// none), e.g. CodexRateLimitHeaders.
func (s *Server) SetHeaders(h http.Header) {
	s.mu.Lock()
	s.headers = h.Clone()
	s.mu.Unlock()
}

// FailNext answers the next model request (not a side call) with f instead
// of asking the behaviour; that request is recorded with Reply.Fail set.
func (s *Server) FailNext(f Failure) {
	s.mu.Lock()
	s.failNext = &f
	s.mu.Unlock()
}

// writeFailure writes an error answer.
func writeFailure(w http.ResponseWriter, f *Failure) {
	for k, vs := range f.Header {
		w.Header()[k] = append([]string(nil), vs...) // over the server's own
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(f.Body)))
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
}
