package sidecar

// The session operations' tools (spec 003 AI からのセッション操作, #415):
// list_account_sessions, control_account_session, account_session_status.
// Each answers one JSON object as text, with the room's field names
// (room/wire/sessionops.go), so a session reads it without guessing. The
// rules of their use are in their descriptions, not the instructions.
//
// Who may ask is proven by the launch's operation capability, which the
// CLI's environment carries (EnvOperationCapability) and this sidecar shows
// at the WebSocket handshake only (socket.CapabilityHeader): never in hello,
// a frame, a result or the log.

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"pullcept/ids"
	"pullcept/room/wire"
)

// EnvOperationCapability is the launch's operation capability (mirrors
// seat.EnvOperationCapability; a test keeps them equal).
const EnvOperationCapability = "PULLCEPT_OPERATION_CAPABILITY"

// CapabilityHeader carries the capability in the handshake (mirrors
// socket.CapabilityHeader).
const CapabilityHeader = "X-Pullcept-Operation-Capability"

// Tool names of the session operations.
const (
	ToolListSessions   = "list_account_sessions"
	ToolControlSession = "control_account_session"
	ToolSessionStatus  = "account_session_status"
)

// StateNotConfirmed is the state a control result reports when the room's
// answer did not arrive: the operation may be running; it is not cancelled.
const StateNotConfirmed = "not_confirmed"

const listSessionsDescription = "Read the seats you can operate on: configured accounts (account_id, name, kind, startable), open topics (topic_id, name) and each topic's sessions (account_id, pty_id, state, process_running, room_connected); you = your own account_id, topic_id, pty_id. " +
	"Take the ids for control_account_session from here, right before you call it. Never lists commands or environment. Posts nothing."

const controlSessionDescription = "Start, stop or restart a seat (yours or another's) in a topic. No person confirms it: do it only when the work calls for it. " +
	"operation_id: a unique id you choose (e.g. restart-luna-20261015-01); the same id with the same request never runs twice and returns the same record, another request needs a new id. " +
	"action \"start\" needs mode \"fresh\" (new conversation) or \"resume\" (the topic's recorded one); \"stop\"; \"restart\" needs expected_pty_id (the target's current pty_id) and no mode: it resumes the same conversation, and if it cannot (id unknown, transcript gone, no resume line) it fails and leaves the target running, never a fresh start. " +
	"The person and local MCP servers are not targets. " +
	"Answer: the operation's record, state accepted → running → process_started | stopped | failed. process_started = the process was made: check process_running and room_connected. " +
	"No answer (connection lost, 15 s wait) = not confirmed, not cancelled: ask account_session_status, or send the same request again, with the same operation_id; never a new id. " +
	"Restarting yourself ends this session; the answer may not reach you, your new session checks. The outcome is posted to your room for you; do not announce it."

const sessionStatusDescription = "Read an operation's record by operation_id, yours or another participant's: the request, requested_by, state (accepted, running, process_started, stopped, failed, interrupted = Pullcept ended before it finished; never run again), error, pty_id of the launch it started, and now process_running and room_connected of that launch. Posts nothing."

// The session tools' input schemas, JSON text constants as in tools.go.
const (
	listSessionsSchema   = `{"type":"object","properties":{}}`
	controlSessionSchema = `{"type":"object","properties":{` +
		`"operation_id":{"type":"string","description":"Your own unique id for this operation; reuse it to ask again."},` +
		`"action":{"type":"string","enum":["` + wire.ActionStart + `","` + wire.ActionStop + `","` + wire.ActionRestart + `"]},` +
		`"account_id":{"type":"string","description":"The target's account_id (list_account_sessions)."},` +
		`"topic_id":{"type":"string","description":"The topic the seat is in or starts in (list_account_sessions)."},` +
		`"mode":{"type":"string","enum":["` + wire.ModeFresh + `","` + wire.ModeResume + `"],"description":"start only: fresh or resume."},` +
		`"expected_pty_id":{"type":"string","description":"restart (and optionally stop): the target's current pty_id."}},` +
		`"required":["operation_id","action","account_id","topic_id"]}`
	sessionStatusSchema = `{"type":"object","properties":{"operation_id":{"type":"string","description":"The operation's id."}},"required":["operation_id"]}`
)

// sessionTools are the three tools' definitions, for the sidecar's tool
// table (which adds their handlers).
func sessionTools() []server.ServerTool {
	return []server.ServerTool{
		{Tool: tool(ToolListSessions, listSessionsDescription, listSessionsSchema, "List account sessions", true, false, true)},
		{Tool: tool(ToolControlSession, controlSessionDescription, controlSessionSchema, "Control an account session", false, true, true)},
		{Tool: tool(ToolSessionStatus, sessionStatusDescription, sessionStatusSchema, "Account session operation status", true, false, true)},
	}
}

// jsonResult is one JSON object as the tool's text.
func jsonResult(v any, isErr bool) *mcp.CallToolResult {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]string{"error": "the answer could not be written: " + err.Error()})
		isErr = true
	}
	if isErr {
		return mcp.NewToolResultError(string(b))
	}
	return mcp.NewToolResultText(string(b))
}

// jsonError is an error as one JSON object; fields add to it.
func jsonError(msg string, fields map[string]any) *mcp.CallToolResult {
	v := map[string]any{"error": msg}
	for k, f := range fields {
		v[k] = f
	}
	return jsonResult(v, true)
}

// opsReady is nil when the sidecar may ask, else the error result.
func (s *Sidecar) opsReady() *mcp.CallToolResult {
	if len(s.cfg.Missing) > 0 || s.room == nil {
		return jsonError(s.cfg.missingError(), nil)
	}
	if s.room.capability == "" {
		return jsonError("This session cannot operate on seats: it was not launched as a seat of this Pullcept app ("+EnvOperationCapability+" is not set). Nothing was sent.", nil)
	}
	return nil
}

// sessionRequest sends a session frame and waits for its session_result.
func (s *Sidecar) sessionRequest(ctx context.Context, frame map[string]any) (*wire.SessionResult, error) {
	id := ids.Random()
	frame["request_id"] = id
	v, err := s.room.request(ctx, reqKey(id), frame)
	if err != nil {
		return nil, err
	}
	res, ok := v.(*wire.SessionResult)
	if !ok {
		return nil, errors.New("the room answered with another frame")
	}
	return res, nil
}

// resultText answers a session_result: its result object, or its error.
func resultText(res *wire.SessionResult, fields map[string]any) *mcp.CallToolResult {
	if res.Error != "" || len(res.Result) == 0 {
		msg := res.Error
		if msg == "" {
			msg = "the room answered nothing"
		}
		return jsonError(msg, fields)
	}
	return mcp.NewToolResultText(string(res.Result))
}

func (s *Sidecar) handleListSessions(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r := s.opsReady(); r != nil {
		return r, nil
	}
	res, err := s.sessionRequest(ctx, map[string]any{"type": wire.TypeSessionList})
	if err != nil {
		return jsonError("Not read: "+err.Error()+". Nothing changed; try again.", nil), nil
	}
	return resultText(res, nil), nil
}

func (s *Sidecar) handleSessionStatus(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r := s.opsReady(); r != nil {
		return r, nil
	}
	id, err := stringArg(req.GetArguments(), "operation_id")
	if err != nil {
		return jsonError(err.Error(), nil), nil
	}
	id = strings.TrimSpace(id)
	if id == "" {
		return jsonError("operation_id is missing", nil), nil
	}
	res, err := s.sessionRequest(ctx, map[string]any{"type": wire.TypeSessionStatus, "operation_id": id})
	if err != nil {
		return jsonError("Not read: "+err.Error()+". Nothing changed; ask again with the same operation_id.", map[string]any{"operation_id": id}), nil
	}
	return resultText(res, map[string]any{"operation_id": id}), nil
}

func (s *Sidecar) handleControlSession(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if r := s.opsReady(); r != nil {
		return r, nil
	}
	args := req.GetArguments()
	var op wire.SessionOperation
	for key, dst := range map[string]*string{
		"operation_id": &op.OperationID, "action": &op.Action, "account_id": &op.AccountID,
		"topic_id": &op.TopicID, "mode": &op.Mode, "expected_pty_id": &op.ExpectedPtyID,
	} {
		v, err := stringArg(args, key)
		if err != nil {
			return jsonError(err.Error()+"; nothing was sent", nil), nil
		}
		*dst = strings.TrimSpace(v)
	}
	if op.OperationID == "" {
		return jsonError("operation_id is missing: choose a unique id of your own (and reuse it to ask again); nothing was sent", nil), nil
	}
	res, err := s.sessionRequest(ctx, map[string]any{"type": wire.TypeSessionControl, "operation": op})
	if err != nil {
		why := err.Error()
		if errors.Is(err, ErrNotConnected) {
			return jsonError("Not sent: "+why+". Nothing reached the room; send the same request with the same operation_id again.", map[string]any{"operation_id": op.OperationID}), nil
		}
		return jsonResult(map[string]any{
			"operation_id": op.OperationID, "state": StateNotConfirmed,
			"error": "Not confirmed (" + why + "): the operation may be accepted and running; it is not cancelled. " +
				"Ask account_session_status with the same operation_id, or send the same request again with it; never a new id.",
		}, true), nil
	}
	if res.Error != "" {
		return resultText(res, map[string]any{"operation_id": op.OperationID}), nil
	}
	var rec wire.SessionRecord
	if json.Unmarshal(res.Result, &rec) == nil && !wire.OpFinal(rec.State) {
		// Still going when the room answered: the record as it is, and
		// what to do next.
		var v map[string]any
		if json.Unmarshal(res.Result, &v) == nil {
			v["next"] = "not finished yet: ask account_session_status with the same operation_id"
			return jsonResult(v, false), nil
		}
	}
	return resultText(res, nil), nil
}
