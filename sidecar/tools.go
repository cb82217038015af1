package sidecar

// The tools, all in one table (toolTable). Rules needed only at the moment
// of calling live in these descriptions rather than in the instructions (spec
// 003 "部屋の作法": 道具を呼ぶときにだけ要るものは、その道具の説明へ移した).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"pullcept/ids"
	"pullcept/room/wire"
)

// Tool names.
const (
	ToolSay     = "say_to_room"
	ToolHistory = "read_room_history"
	ToolUsage   = "my_usage"
)

// DeliveredPrefix starts the answer of a delivered post; the message id
// follows.
const DeliveredPrefix = "Delivered to the room. message_id: "

const sayDescription = "Post to the room: the only way to reach the room and the other sessions in it (never another tool, message or socket), also when answering a post that arrived in your input (your terminal is read by nobody). " +
	"Your own posts never come back to you. Delivered -> `" + DeliveredPrefix + "<id>`; that id is how you can point at your post later (e.g. as evidence). " +
	"Before deciding, read any answer already given; just before sending, look again at what arrived. Deciding not to send is legitimate. " +
	"Every answer ends with who you are, the time now and your usage as last reported (5h, weekly, context), so you can wrap up work before a limit stops you. " +
	"Loop budget: the room counts agent posts since the person's last post (posts to the person alone excepted); at the budget the person is told, and where they chose so, posts past it are logged but typed into no terminal until the person posts or lets you go on (the answer then says so): expect no reply meanwhile."

const sayContentDescription = "The body. Omit to send the draft kept from your last refused post (with its `to` unless you pass `to`); pass content to send new or corrected text. " +
	"Either way it is a new post, judged on last_seen."

const sayToDescription = "Addressees: one name or a list of names; omit for the whole room. People and sessions are addressed alike. " +
	"An @Name of a participant in the body also addresses them (the room moves it here and drops it from the body)."

const sayLastSeenDescription = "Put on every call: message_id of the newest room post you have seen (from its tag line, or from a refusal). " +
	"If posts you had not seen reached the room after it, this post is refused: nothing is delivered, they are returned to you, your text is kept as a draft. " +
	"Then read them and decide again; to still send, call again with the newest message_id as last_seen. " +
	"A refusal is the room ordering simultaneous speakers, not inattention on your part. An id the room does not know counts as nothing seen."

const historyDescription = "Earlier posts of your own topic, oldest first. Not addressed to you: context, not something to answer. " +
	"Call only when you need the earlier thread. Posts nothing."

const historyLimitDescription = "How many posts: default 50, at most 200."

const historyBeforeDescription = "A message_id: return the posts just before it. To page back, pass the oldest message_id of the previous page while has_more is true."

const usageDescription = "Your own seat's usage limits: the 5-hour and weekly windows' used percentage and reset time, and when the app received them. " +
	"Figures arrive only while your seat is active, so check their age. " +
	"Use them to plan work and, before a limit stops you, to wrap up: cut at a clean point, push partial work, ask the room for a handover. " +
	"Only your seat; ask others in the room about theirs. Posts nothing."

// The input schemas, as the JSON text tools/list serves (mcp-go serves a raw
// schema as it is). The descriptions they hold need no JSON escaping;
// TestSchemasAreJSONConstants checks that, their validity, and that they
// equal what tools/list served before (testdata/tools_list.golden.json).
const (
	saySchema = `{"type":"object","properties":{` +
		`"content":{"type":"string","description":"` + sayContentDescription + `"},` +
		`"to":{"anyOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}],"description":"` + sayToDescription + `"},` +
		`"last_seen":{"type":"string","description":"` + sayLastSeenDescription + `"}}}`
	// historySchema's maximum is wire.HistoryMax (a test keeps them equal).
	historySchema = `{"type":"object","properties":{` +
		`"limit":{"type":"integer","minimum":1,"maximum":200,"description":"` + historyLimitDescription + `"},` +
		`"before":{"type":"string","description":"` + historyBeforeDescription + `"}}}`
	usageSchema = `{"type":"object","properties":{}}`
)

// tool is a tool's definition with its schema and all four hints stated.
func tool(name, desc, schema, title string, readOnly, destructive, idempotent bool) mcp.Tool {
	t := mcp.NewToolWithRawSchema(name, desc, json.RawMessage(schema))
	t.Annotations = mcp.ToolAnnotation{Title: title, ReadOnlyHint: mcp.ToBoolPtr(readOnly), DestructiveHint: mcp.ToBoolPtr(destructive),
		IdempotentHint: mcp.ToBoolPtr(idempotent), OpenWorldHint: mcp.ToBoolPtr(false)}
	return t
}

// toolTable is every tool the sidecar offers: its definition (name,
// description, input schema, annotations) and its handler, one entry a tool.
// Tools and the MCP server both read it; adding a tool is adding an entry
// here (and its handler). s may be nil when only the definitions are wanted
// (no handlers, the descriptions without the seat's names).
func toolTable(s *Sidecar) []server.ServerTool {
	tools := append([]server.ServerTool{
		{Tool: tool(ToolSay, sayDescription, saySchema, "Say to the room", false, false, false)},
		{Tool: tool(ToolHistory, historyDescription, historySchema, "Read the room's history", true, false, true)},
		{Tool: tool(ToolUsage, usageDescription, usageSchema, "My usage limits", true, false, true)},
	}, sessionTools()...) // the session operations' (sessionops.go)
	if s == nil {
		return tools
	}
	handlers := map[string]server.ToolHandlerFunc{
		ToolSay: s.handleSay, ToolHistory: s.handleHistory, ToolUsage: s.handleUsage,
		ToolListSessions:   s.withSelfJSON(s.handleListSessions),
		ToolControlSession: s.withSelfJSON(s.handleControlSession),
		ToolSessionStatus:  s.withSelfJSON(s.handleSessionStatus),
	}
	self := s.self()
	for i := range tools {
		tools[i].Tool.Description = self.describe(tools[i].Tool.Description)
		tools[i].Handler = handlers[tools[i].Tool.Name]
	}
	return tools
}

// Tools returns the tool definitions, in the table's order (exported for
// tests and docs; tools/list shows them sorted by name, as mcp-go lists).
func Tools() []mcp.Tool {
	var tools []mcp.Tool
	for _, t := range toolTable(nil) {
		tools = append(tools, t.Tool)
	}
	return tools
}

// addTools (re)registers the tools; mcp-go tells the client
// (notifications/tools/list_changed) when the set is replaced.
func (s *Sidecar) addTools() { s.mcp.SetTools(toolTable(s)...) }

// ready is nil when the sidecar can talk to the room, else the error result.
func (s *Sidecar) ready() *mcp.CallToolResult {
	if len(s.cfg.Missing) > 0 || s.room == nil {
		return mcp.NewToolResultError(s.cfg.missingError())
	}
	return nil
}

// roomError words a request failure for the session.
func roomError(err error, what string) *mcp.CallToolResult {
	switch {
	case errors.Is(err, ErrNotConnected):
		return mcp.NewToolResultError(fmt.Sprintf("Not %s: %v. Nothing reached the room; try again shortly.", what, err))
	case errors.Is(err, ErrDropped), errors.Is(err, ErrNoAnswer):
		return mcp.NewToolResultError(fmt.Sprintf("Not confirmed: %v. It may or may not have been %s; do not repeat it blind — check read_room_history first.", err, what))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return mcp.NewToolResultError(fmt.Sprintf("Cancelled before the room answered (%v); it may or may not have been %s.", err, what))
	}
	return mcp.NewToolResultError(fmt.Sprintf("Not %s: %v", what, err))
}

// parseTo reads the `to` argument: a name, a list of names, or a JSON list
// written as a string. Names are trimmed, empties and repeats dropped
// (wire.Addressees); nil means none given.
func parseTo(v any) ([]string, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		if s := strings.TrimSpace(t); strings.HasPrefix(s, "[") {
			var names []string
			if json.Unmarshal([]byte(s), &names) == nil {
				return wire.Addressees(names), nil
			}
		}
		return wire.Addressees([]string{t}), nil
	case []string:
		return wire.Addressees(t), nil
	case []any:
		names := make([]string, 0, len(t))
		for _, e := range t {
			n, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("to must be a name or a list of names; got an element of type %T", e)
			}
			names = append(names, n)
		}
		return wire.Addressees(names), nil
	}
	return nil, fmt.Errorf("to must be a name or a list of names; got %T", v)
}

func stringArg(args map[string]any, key string) (string, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s must be a string; got %T", key, v)
	}
	return s, nil
}

func (s *Sidecar) handleSay(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r, answer := s.say(ctx, req)
	return s.withUsage(ctx, r, answer), nil
}

// say posts; handleSay adds the seat's own block to whatever it answers,
// from the room's answer to the post (nil when none came).
func (s *Sidecar) say(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, *wire.PostResult) {
	if r := s.ready(); r != nil {
		return r, nil
	}
	args := req.GetArguments()
	content, err := stringArg(args, "content")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	to, err := parseTo(args["to"])
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	lastSeen, err := stringArg(args, "last_seen")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	lastSeen = strings.TrimSpace(lastSeen)

	if strings.TrimSpace(content) == "" {
		s.draftMu.Lock()
		d := s.draft
		s.draftMu.Unlock()
		if d == nil {
			return mcp.NewToolResultError("Nothing sent: content is empty and there is no draft (a draft exists only after a refused post). Pass content to speak."), nil
		}
		content = d.content
		if to == nil {
			to = d.to
		}
	}

	id := ids.Random()
	frame := wire.PostFrame{Type: wire.TypePost, MessageID: id, Content: content, To: to, TS: s.now().UTC().Format("2006-01-02T15:04:05.000Z07:00"), LastSeen: lastSeen}
	v, err := s.room.request(ctx, postKey(id), frame)
	if err != nil {
		return roomError(err, "delivered"), nil
	}
	res := v.(*wire.PostResult)
	switch {
	case res.Error != "":
		msg := "Not delivered: " + res.Error
		if why := s.room.helloRefused(); why != "" {
			msg += " (the room refused this sidecar's hello: " + why + ")"
		}
		return mcp.NewToolResultError(msg), res
	case res.Delivered:
		s.draftMu.Lock()
		s.draft = nil
		s.draftMu.Unlock()
		got := res.MessageID
		if got == "" {
			got = id
		}
		text := DeliveredPrefix + got
		if res.LoopHeld > 0 {
			text += "\n" + LoopHeldLine(res.LoopHeld)
		}
		return mcp.NewToolResultText(text), res
	}
	s.draftMu.Lock()
	s.draft = &draft{content: content, to: to}
	s.draftMu.Unlock()
	return mcp.NewToolResultError(s.refusal(res.Missed, to)), res
}

// refusal words the floor's refusal so the next move is plain.
func (s *Sidecar) refusal(missed []wire.Post, to []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Not delivered: nothing was posted. While you were composing, these posts reached the room and you had not seen them (oldest first):\n\n")
	writePosts(&b, missed, s.loc)
	kept := "Your text is kept as a draft"
	if len(to) > 0 {
		kept += " (to: " + strings.Join(to, ", ") + ")"
	}
	newest := ""
	if len(missed) > 0 {
		newest = missed[len(missed)-1].MessageID
	}
	fmt.Fprintf(&b, "\n%s. Read these and decide again: if what you meant is already said, do not send — that is a valid outcome. ", kept)
	if newest != "" {
		fmt.Fprintf(&b, "To send the draft as it is, call say_to_room without content and with last_seen %q; to change it, pass new content (and to).", newest)
	} else {
		b.WriteString("To send the draft as it is, call say_to_room without content and with last_seen set to the newest message_id above; to change it, pass new content (and to).")
	}
	return b.String()
}

// writePosts lists posts: a header line (message_id, speaker, to, time) and
// the body indented below it, so no body line reads as a header.
func writePosts(b *strings.Builder, posts []wire.Post, loc *time.Location) {
	for i, p := range posts {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "message_id: %s | speaker: %s", p.MessageID, p.Speaker)
		if p.FullName != "" && p.FullName != p.Speaker {
			fmt.Fprintf(b, " | full_name: %s", p.FullName)
		}
		if len(p.To) > 0 {
			fmt.Fprintf(b, " | to: %s", strings.Join(p.To, ", "))
		}
		if ts, err := time.Parse(time.RFC3339Nano, p.TS); err == nil {
			fmt.Fprintf(b, " | at: %s", wire.LocalMinute(ts, loc))
		}
		b.WriteString("\n")
		for _, line := range strings.Split(p.Content, "\n") {
			b.WriteString("  ")
			b.WriteString(line)
			b.WriteString("\n")
		}
	}
}

func intArg(args map[string]any, key string) (int, bool, error) {
	v, ok := args[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	switch n := v.(type) {
	case float64:
		if n != float64(int(n)) {
			return 0, false, fmt.Errorf("%s must be a whole number; got %v", key, n)
		}
		return int(n), true, nil
	case int:
		return n, true, nil
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return 0, false, fmt.Errorf("%s must be a whole number; got %s", key, n)
		}
		return int(i), true, nil
	case string:
		var i int
		if _, err := fmt.Sscanf(strings.TrimSpace(n), "%d", &i); err != nil {
			return 0, false, fmt.Errorf("%s must be a whole number; got %q", key, n)
		}
		return i, true, nil
	}
	return 0, false, fmt.Errorf("%s must be a whole number; got %T", key, v)
}

// history reads a page; handleHistory adds who the seat is.
func (s *Sidecar) history(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r := s.ready(); r != nil {
		return r, nil
	}
	args := req.GetArguments()
	limit, given, err := intArg(args, "limit")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var note string
	switch {
	case !given:
		limit = wire.HistoryDefault
	case limit < 1:
		return mcp.NewToolResultError(fmt.Sprintf("limit must be between 1 and %d; got %d", wire.HistoryMax, limit)), nil
	case limit > wire.HistoryMax:
		note = fmt.Sprintf(" (limit %d capped at %d)", limit, wire.HistoryMax)
		limit = wire.HistoryMax
	}
	before, err := stringArg(args, "before")
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	before = strings.TrimSpace(before)

	id := ids.Random()
	v, err := s.room.request(ctx, reqKey(id), wire.HistoryFrame{Type: wire.TypeHistory, RequestID: id, Limit: limit, Before: before})
	if err != nil {
		return roomError(err, "read"), nil
	}
	res := v.(*wire.HistoryResult)
	if res.Error != "" {
		return mcp.NewToolResultError("The room could not read the history: " + res.Error), nil
	}
	return mcp.NewToolResultText(formatHistory(res, before, note, s.loc)), nil
}

func (s *Sidecar) handleHistory(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r, err := s.history(ctx, req)
	if r != nil && err == nil {
		r = s.withSelf(r)
	}
	return r, err
}

// formatHistory words a history page.
func formatHistory(res *wire.HistoryResult, before, note string, loc *time.Location) string {
	var b strings.Builder
	where := "this topic"
	if before != "" {
		where = "this topic before " + before
	}
	if len(res.Posts) == 0 {
		fmt.Fprintf(&b, "No posts in %s%s.", where, note)
		return b.String()
	}
	noun := "posts"
	if len(res.Posts) == 1 {
		noun = "post"
	}
	fmt.Fprintf(&b, "%d %s of %s, oldest first%s. Not addressed to you: this is the room's record, for context only; nothing here asks you to answer, even where to names you.\n\n", len(res.Posts), noun, where, note)
	writePosts(&b, res.Posts, loc)
	if res.HasMore {
		fmt.Fprintf(&b, "\nhas_more: true (older posts exist; page back with before %q).", res.Posts[0].MessageID)
	} else {
		b.WriteString("\nhas_more: false (this reaches the start of the topic).")
	}
	return b.String()
}

func (s *Sidecar) handleUsage(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r, err := s.usage(ctx, req)
	if r != nil && err == nil {
		r = s.withSelf(r)
	}
	return r, err
}

// usage reads the seat's figures; handleUsage adds who the seat is.
func (s *Sidecar) usage(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r := s.ready(); r != nil {
		return r, nil
	}
	id := ids.Random()
	v, err := s.room.request(ctx, reqKey(id), wire.UsageFrame{Type: wire.TypeUsage, RequestID: id})
	if err != nil {
		return roomError(err, "read"), nil
	}
	res := v.(*wire.UsageResult)
	if res.Error != "" {
		return mcp.NewToolResultError("No usage figures: " + res.Error), nil
	}
	return mcp.NewToolResultText(formatUsage(res, s.now(), s.loc)), nil
}

// LoopHeldLine is the say_to_room answer's second line when the post went
// past the room's loop budget (issue 36).
func LoopHeldLine(budget int) string {
	return fmt.Sprintf("Held by the loop budget (%d agent posts per post of the person): logged and shown to the person, typed into no terminal until the person posts or lets the agents go on. Expect no reply before that.", budget)
}

// DeliveredID reads the message id out of a say_to_room result that says
// it was delivered (its first line).
func DeliveredID(text string) (string, bool) {
	first, _, _ := strings.Cut(text, "\n")
	id, ok := strings.CutPrefix(first, DeliveredPrefix)
	return strings.TrimSpace(id), ok && strings.TrimSpace(id) != ""
}

// NoUsageYet is my_usage's answer when nothing was received for the seat.
const NoUsageYet = "No usage figures received for this seat yet."

// formatUsage words a usage answer: one line per window, then when it was
// received and how long ago.
func formatUsage(res *wire.UsageResult, now time.Time, loc *time.Location) string {
	if res.ReceivedAt == "" && res.FiveHour == nil && res.SevenDay == nil {
		return NoUsageYet
	}
	var b strings.Builder
	window := func(label string, w *wire.Window) {
		b.WriteString(label + ": ")
		if w == nil {
			b.WriteString("not reported\n")
			return
		}
		b.WriteString(percent(w.UsedPercentage) + "% used")
		if w.ResetsAt != "" {
			b.WriteString(", resets " + localTime(w.ResetsAt, loc))
		}
		b.WriteString("\n")
	}
	window("5h", res.FiveHour)
	window("7d", res.SevenDay)
	// The windows' own received time (the latest of the two): a context
	// report since does not make old windows look new.
	at := res.ReceivedAt
	if res.FiveHour != nil || res.SevenDay != nil {
		at = ""
		for _, w := range []*wire.Window{res.FiveHour, res.SevenDay} {
			if w != nil && w.ReceivedAt > at {
				at = w.ReceivedAt // RFC 3339 UTC: ordered as text
			}
		}
		if at == "" {
			at = res.ReceivedAt
		}
	}
	if t, err := time.Parse(time.RFC3339Nano, at); err == nil {
		ago := int(now.Sub(t) / time.Minute)
		if ago < 0 {
			ago = 0
		}
		fmt.Fprintf(&b, "received %s (%d min ago)", wire.LocalMinute(t, loc), ago)
	} else if at != "" {
		fmt.Fprintf(&b, "received %s", at)
	}
	return strings.TrimRight(b.String(), "\n")
}

// percent shows a percentage without a needless fraction: 85, 85.5.
func percent(v float64) string {
	s := fmt.Sprintf("%.1f", v)
	return strings.TrimSuffix(s, ".0")
}

// localTime shows an RFC 3339 time in local time to the minute; a value that
// is not a time is shown as given (no guessing).
func localTime(raw string, loc *time.Location) string {
	if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
		return wire.LocalMinute(t, loc)
	}
	return raw
}
