// Package wire holds the room protocol: the JSON frames exchanged between the
// room socket and `pullcept sidecar`, the post shape they share with the topic
// log, and the tag line typed into a CLI's terminal before every post.
//
// Spec: 003 "部屋プロトコル（アプリ ⇔ サイドカー）" and "発言は端末へ入る".
package wire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ProtocolVersion is sent in hello. Bump it when a frame changes shape in a
// way the other side must notice (the spec's history: 11 = session
// operations and state queries, #415; 12 = post_result carries the seat's
// usage, so say_to_room needs no usage request).
const ProtocolVersion = 12

// UsageWait bounds the wait a post's answer may add for the seat's usage
// (spec 003 #385: 追加の待ちは最大1.5秒): the room's read of it after the
// outcome, or the sidecar's usage request when no answer brought it.
var UsageWait = 1500 * time.Millisecond

// Frame types.
const (
	TypeHello         = "hello"
	TypePost          = "post"
	TypePostResult    = "post_result"
	TypeHistory       = "history"
	TypeHistoryResult = "history_result"
	TypeUsage         = "usage"
	TypeUsageResult   = "usage_result"
	TypeIdentity      = "identity"
	TypeError         = "error"
)

// Roles written in the tag line. RoleAdmin only ever comes from the TUI.
const (
	RoleAdmin   = "admin"
	RoleMCP     = "mcp"
	RoleApp     = "app"
	RoleUnknown = "unknown"
)

// MaxFrameBytes is the largest frame the room reads; a bigger one is refused
// with an error frame and the connection is kept.
const MaxFrameBytes = 1 << 20

// HistoryDefault and HistoryMax bound read_room_history pages.
const (
	HistoryDefault = 50
	HistoryMax     = 200
)

// Hello is a participant's introduction. Hue and AccountID are omitted when
// not declared, so the room can tell "no colour chosen" from a default.
// Name is the calling name (what the room calls it, spec 003 ニックネームと
// 元の名前); FullName the account's name when it differs.
type Hello struct {
	Type      string `json:"type"`
	Protocol  int    `json:"protocol"`
	Name      string `json:"name"`
	FullName  string `json:"full_name,omitempty"`
	Room      string `json:"room,omitempty"`
	Hue       *int   `json:"hue,omitempty"`
	AccountID string `json:"account_id,omitempty"`
}

// Identity tells a seated connection the names the room calls it by now:
// after every hello it seats, and whenever its account is renamed. FullName
// is omitted when it equals Name.
type Identity struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	FullName string `json:"full_name,omitempty"`
}

// PostFrame is a post sent by a sidecar. It carries no speaker: the room
// stamps that from the connection.
type PostFrame struct {
	Type      string   `json:"type"`
	MessageID string   `json:"message_id"`
	Content   string   `json:"content"`
	To        []string `json:"to,omitempty"`
	TS        string   `json:"ts,omitempty"`
	LastSeen  string   `json:"last_seen,omitempty"`
}

// Post is a post as the room keeps it: the log line fields in the log's
// order, plus the declared hue of the seat that said it (never logged).
type Post struct {
	MessageID string   `json:"message_id"`
	Speaker   string   `json:"speaker"`
	FullName  string   `json:"full_name,omitempty"`
	Account   string   `json:"account,omitempty"`
	FromApp   bool     `json:"from_app,omitempty"`
	Content   string   `json:"content"`
	To        []string `json:"to,omitempty"`
	TS        string   `json:"ts"`
	Hue       *int     `json:"hue,omitempty"`
}

// PostResult answers a post, to the connection that sent it only.
// Error is set when the post was not judged at all (no room, a body that
// is only mentions, a malformed post); Missed when the floor refused it.
// Usage is the seat's usage as a usage request answers it (without type
// and request_id), read after the outcome was decided (spec 003 #385);
// its error says why it could not be read.
type PostResult struct {
	Type      string       `json:"type"`
	MessageID string       `json:"message_id"`
	Delivered bool         `json:"delivered"`
	Missed    []Post       `json:"missed,omitempty"`
	Error     string       `json:"error,omitempty"`
	Usage     *UsageResult `json:"usage,omitempty"`
	// LoopHeld is the room's budget of agent posts per post of the person
	// when this delivered post went past it and is held, not typed.
	LoopHeld int `json:"loop_held,omitempty"`
}

// HistoryFrame asks for a page of the caller's topic, oldest first.
type HistoryFrame struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Limit     int    `json:"limit,omitempty"`
	Before    string `json:"before,omitempty"`
}

// HistoryResult answers a history request.
type HistoryResult struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
	Posts     []Post `json:"posts,omitempty"`
	HasMore   bool   `json:"has_more"`
	Error     string `json:"error,omitempty"`
}

// UsageFrame asks for the caller's own usage figures.
type UsageFrame struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
}

// Window is one rate-limit window as reported by a CLI; in a usage
// result, with when the app received it.
type Window struct {
	UsedPercentage float64 `json:"used_percentage"`
	ResetsAt       string  `json:"resets_at,omitempty"`
	ReceivedAt     string  `json:"received_at,omitempty"`
}

// ContextUse is how much of its context window a seat's session uses.
type ContextUse struct {
	UsedPercentage float64 `json:"used_percentage"`
	ReceivedAt     string  `json:"received_at,omitempty"`
}

// UsageResult answers a usage request. A figure that was never reported is
// omitted; nothing received yet omits received_at too. Every figure has
// its own received time (spec 003 #385: 各値の受信時刻). As a post_result's
// usage it has no type and no request_id.
type UsageResult struct {
	Type            string      `json:"type,omitempty"`
	RequestID       string      `json:"request_id,omitempty"`
	FiveHour        *Window     `json:"five_hour,omitempty"`
	SevenDay        *Window     `json:"seven_day,omitempty"`
	Context         *ContextUse `json:"context,omitempty"`
	Model           string      `json:"model,omitempty"`
	Effort          string      `json:"effort,omitempty"`
	ModelReceivedAt string      `json:"model_received_at,omitempty"`
	ReceivedAt      string      `json:"received_at,omitempty"`
	Error           string      `json:"error,omitempty"`
}

// ErrorFrame reports a frame the room could not take (bad JSON, too big).
type ErrorFrame struct {
	Type      string `json:"type"`
	Error     string `json:"error"`
	RequestID string `json:"request_id,omitempty"`
	MessageID string `json:"message_id,omitempty"`
}

// ErrMalformed is returned by Decode for input that is not a frame.
var ErrMalformed = errors.New("malformed frame")

// Decode reads a frame's type and decodes it into the matching struct. An
// unknown type returns (type, nil, nil): callers ignore it.
func Decode(data []byte) (string, any, error) {
	var head struct {
		Type string `json:"type"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	var v any
	switch head.Type {
	case TypeHello:
		v = &Hello{}
	case TypePost:
		v = &PostFrame{}
	case TypePostResult:
		v = &PostResult{}
	case TypeHistory:
		v = &HistoryFrame{}
	case TypeHistoryResult:
		v = &HistoryResult{}
	case TypeUsage:
		v = &UsageFrame{}
	case TypeUsageResult:
		v = &UsageResult{}
	case TypeIdentity:
		v = &Identity{}
	case TypeSessionList:
		v = &SessionListFrame{}
	case TypeSessionStatus:
		v = &SessionStatusFrame{}
	case TypeSessionControl:
		v = &SessionControlFrame{}
	case TypeSessionResult:
		v = &SessionResult{}
	case TypeError:
		v = &ErrorFrame{}
	case "":
		return "", nil, fmt.Errorf("%w: no type", ErrMalformed)
	default:
		return head.Type, nil, nil
	}
	if err := json.Unmarshal(data, v); err != nil {
		return head.Type, nil, fmt.Errorf("%w: %s: %v", ErrMalformed, head.Type, err)
	}
	return head.Type, v, nil
}

// Addressees trims each name, drops empty names and repeats, keeping the
// first spelling. Nil when nothing remains (the whole room).
func Addressees(names []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	return out
}

// TagPrefix starts every tag line.
const TagPrefix = "[pullcept] "

// Tag is the JSON of the tag line, keys in the spec's order: role, from
// (and the speaker's full_name when it has one), message_id, at, to, then
// for an addressed post the receiver's current names (you, your_full_name;
// spec 003 ニックネームと元の名前).
type Tag struct {
	Role         string   `json:"role"`
	From         string   `json:"from"`
	FullName     string   `json:"full_name,omitempty"`
	MessageID    string   `json:"message_id"`
	At           string   `json:"at,omitempty"`
	To           []string `json:"to,omitempty"`
	You          string   `json:"you,omitempty"`
	YourFullName string   `json:"your_full_name,omitempty"`
}

// Receiver is the seat a tag is typed for: its current calling name and
// name.
type Receiver struct {
	Name     string
	FullName string
}

// TagLine renders the tag line (without newline) for a post with the given
// role, for no particular receiver. `at` is the post's ts in local time
// with offset, to the minute; omitted when ts does not parse. JSON string
// escaping keeps names from rewriting the tag.
func TagLine(role string, p Post, loc *time.Location) string {
	return TagLineFor(role, p, loc, nil)
}

// TagLineFor is TagLine typed into you's terminal: an addressed post (one
// with to) carries you and your_full_name; a room-wide post neither.
func TagLineFor(role string, p Post, loc *time.Location, you *Receiver) string {
	t := Tag{Role: role, From: p.Speaker, MessageID: p.MessageID, To: p.To}
	if p.FullName != p.Speaker {
		t.FullName = p.FullName
	}
	if ts, err := time.Parse(time.RFC3339Nano, p.TS); err == nil {
		t.At = LocalMinute(ts, loc)
	}
	if you != nil && len(p.To) > 0 && you.Name != "" {
		t.You = you.Name
		t.YourFullName = you.FullName
		if t.YourFullName == "" {
			t.YourFullName = you.Name
		}
	}
	b, _ := json.Marshal(t) // cannot fail: strings only
	return TagPrefix + string(b)
}

// LocalMinute formats t as local time with offset, seconds truncated:
// 2026-10-02T01:14+09:00.
func LocalMinute(t time.Time, loc *time.Location) string {
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc).Format("2006-01-02T15:04-07:00")
}
