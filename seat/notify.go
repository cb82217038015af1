package seat

// The "notify" settings of config.json: how the screen tells the person
// that something needs them (issue "Seats know what their CLI is doing",
// needs-you signals). Each signal is marked on the topic row and the
// participants row, and may ring the outer terminal:
//
//	"notify": {"permission": "bell", "mention": "bell", "unanswered": "mark"}
//
// Values: "off" (nothing), "mark" (rows only), "bell" (BEL), "desktop"
// (OSC 9 and OSC 777 notifications, for terminals that show them),
// "both" (BEL and desktop).

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Notify says how each needs-you signal is told.
type Notify struct {
	// Permission: a seat waits for the person (permission prompt,
	// question, elicitation).
	Permission string `json:"permission,omitempty"`
	// Mention: a post addressed to the person while another topic is on
	// screen or the room is scrolled up.
	Mention string `json:"mention,omitempty"`
	// Unanswered: an addressed seat ended its turn without having posted
	// since the post was typed into it.
	Unanswered string `json:"unanswered,omitempty"`
	// AgentLoop: a topic's agents reached the budget of agent posts per
	// post of the person (config.json "agent_posts_per_person_post").
	AgentLoop string `json:"agent_loop,omitempty"`
}

// The ways of telling.
const (
	NotifyOff     = "off"
	NotifyMark    = "mark"
	NotifyBell    = "bell"
	NotifyDesktop = "desktop"
	NotifyBoth    = "both"
)

var notifyValues = []string{NotifyOff, NotifyMark, NotifyBell, NotifyDesktop, NotifyBoth}

// DefaultNotify rings the bell for permission waits, mentions and agents
// at the loop budget (each further agent turn is paid for), and marks
// unanswered turns.
var DefaultNotify = Notify{Permission: NotifyBell, Mention: NotifyBell, Unanswered: NotifyMark, AgentLoop: NotifyBell}

// Rings reports whether a way rings the bell; Desktop whether it sends a
// desktop notification; Marks whether it marks the rows.
func Rings(way string) bool   { return way == NotifyBell || way == NotifyBoth }
func Desktop(way string) bool { return way == NotifyDesktop || way == NotifyBoth }
func Marks(way string) bool   { return way != NotifyOff }

// parseNotify reads the "notify" object over the defaults; a bad value is
// reported and the default kept.
func parseNotify(raw json.RawMessage, file string) (Notify, []error) {
	n := DefaultNotify
	if len(raw) == 0 {
		return n, nil
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return n, []error{&ConfigError{File: file, Index: -1, Field: "notify", Reason: "not an object: " + err.Error()}}
	}
	var errs []error
	for k, v := range m {
		s, _ := v.(string)
		var dst *string
		switch k {
		case "permission":
			dst = &n.Permission
		case "mention":
			dst = &n.Mention
		case "unanswered":
			dst = &n.Unanswered
		case "agent_loop":
			dst = &n.AgentLoop
		default:
			errs = append(errs, &ConfigError{File: file, Index: -1, Field: "notify." + k, Reason: "unknown (want permission, mention, unanswered or agent_loop)"})
			continue
		}
		if !slices.Contains(notifyValues, s) {
			errs = append(errs, &ConfigError{File: file, Index: -1, Field: "notify." + k, Reason: fmt.Sprintf("%v is not one of %s", v, strings.Join(notifyValues, ", "))})
			continue
		}
		*dst = s
	}
	return n, errs
}

// How reopening a topic treats the sessions recorded in it
// (config.json "reopen_seats").
const (
	ReopenAuto = "auto" // start them (resumed where possible)
	ReopenAsk  = "ask"  // ask the person first
	ReopenOff  = "off"  // leave them; start by hand
)

// parseReopen reads "reopen_seats" (default auto).
func parseReopen(raw json.RawMessage, file string) (string, []error) {
	if len(raw) == 0 {
		return ReopenAuto, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil || (v != ReopenAuto && v != ReopenAsk && v != ReopenOff) {
		return ReopenAuto, []error{&ConfigError{File: file, Index: -1, Field: "reopen_seats", Reason: fmt.Sprintf("%s is not one of auto, ask, off", raw)}}
	}
	return v, nil
}

// The loop budget (config.json "agent_posts_per_person_post", "agent_loop";
// issue 36, docs/decisions.md "Agents that talk in circles").
const (
	// DefaultAgentPostsPerPersonPost: twelve agent posts is six exchanges
	// between two agents or four rounds of a ring of three — past what a
	// hand-off or a question and its answer take, short of the dozens a
	// politeness loop makes in two minutes.
	DefaultAgentPostsPerPersonPost = 12
	// AgentLoopTell only tells the person (the default: the spec delivers
	// every post); AgentLoopHold also holds agent posts past the budget.
	AgentLoopTell = "tell"
	AgentLoopHold = "hold"
)

// parseLoop reads "agent_posts_per_person_post" (a count, 0 = off) and
// "agent_loop" (tell or hold); a bad value is reported and the default kept.
func parseLoop(budget, mode json.RawMessage, file string) (int, string, []error) {
	n, m := DefaultAgentPostsPerPersonPost, AgentLoopTell
	var errs []error
	if len(budget) > 0 {
		var v int
		if err := json.Unmarshal(budget, &v); err != nil || v < 0 {
			errs = append(errs, &ConfigError{File: file, Index: -1, Field: "agent_posts_per_person_post", Reason: fmt.Sprintf("%s is not a count (0 counts nothing)", budget)})
		} else {
			n = v
		}
	}
	if len(mode) > 0 {
		var v string
		if err := json.Unmarshal(mode, &v); err != nil || (v != AgentLoopTell && v != AgentLoopHold) {
			errs = append(errs, &ConfigError{File: file, Index: -1, Field: "agent_loop", Reason: fmt.Sprintf("%s is not one of tell, hold", mode)})
		} else {
			m = v
		}
	}
	return n, m, errs
}

// MinHibernate is the shortest "hibernate_after" taken: a seat stopped
// seconds after it went quiet would wake at nearly every post.
const MinHibernate = time.Second

// parseHibernate reads "hibernate_after": a Go duration ("20m"), or "off"
// (the default: seats never sleep; docs/decisions.md "Sleeping seats").
func parseHibernate(raw json.RawMessage, file string) (time.Duration, []error) {
	if len(raw) == 0 {
		return 0, nil
	}
	var v string
	if err := json.Unmarshal(raw, &v); err == nil {
		if v == "off" || v == "" {
			return 0, nil
		}
		if d, err := time.ParseDuration(v); err == nil && d >= MinHibernate {
			return d, nil
		}
	}
	return 0, []error{&ConfigError{File: file, Index: -1, Field: "hibernate_after", Reason: fmt.Sprintf("%s is not \"off\" or a duration of at least 1s such as \"20m\"; seats do not sleep", raw)}}
}

// parsePushURL reads "push_url" (issue 37, off by default): an http or
// https address that each new needs-you item is POSTed to.
func parsePushURL(raw json.RawMessage, file string) (string, []error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var v string
	err := json.Unmarshal(raw, &v)
	if err == nil && v == "" {
		return "", nil
	}
	if err == nil {
		u, perr := url.Parse(v)
		if perr == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return v, nil
		}
	}
	return "", []error{&ConfigError{File: file, Index: -1, Field: "push_url", Reason: "not an http:// or https:// address (push is off)"}}
}
