package wire

// Session operations (protocol 11; spec 003 AI からのセッション操作, #415):
// a seat lists the accounts and sessions, asks the app to start, stop or
// restart a seat (its own or another's), and reads an operation's record.
// The request id pairs a session_result with its request on the
// connection; the operation id is the caller's, and names the durable
// record (the app's session-operations.json) that makes a retry safe.

import "encoding/json"

// Frame types of session operations.
const (
	TypeSessionList    = "session_list"
	TypeSessionStatus  = "session_status"
	TypeSessionControl = "session_control"
	TypeSessionResult  = "session_result"
)

// Actions and modes of a session operation.
const (
	ActionStart   = "start"
	ActionStop    = "stop"
	ActionRestart = "restart"

	ModeFresh  = "fresh"
	ModeResume = "resume"
)

// States of a session operation: accepted → running → one of the final
// ones. Interrupted: the app ended (or was ended) before it finished; it is
// never run again.
const (
	OpAccepted       = "accepted"
	OpRunning        = "running"
	OpProcessStarted = "process_started"
	OpStopped        = "stopped"
	OpFailed         = "failed"
	OpInterrupted    = "interrupted"
)

// OpFinal reports whether state is a final state.
func OpFinal(state string) bool {
	switch state {
	case OpProcessStarted, OpStopped, OpFailed, OpInterrupted:
		return true
	}
	return false
}

// MaxOperationIDLen bounds an operation id (printable, no spaces).
const MaxOperationIDLen = 128

// SessionListFrame asks for the accounts and the sessions.
type SessionListFrame struct {
	Type      string `json:"type"`
	RequestID string `json:"request_id"`
}

// SessionStatusFrame asks for an operation's record (anyone's).
type SessionStatusFrame struct {
	Type        string `json:"type"`
	RequestID   string `json:"request_id"`
	OperationID string `json:"operation_id"`
}

// SessionControlFrame asks for an operation.
type SessionControlFrame struct {
	Type      string           `json:"type"`
	RequestID string           `json:"request_id"`
	Operation SessionOperation `json:"operation"`
}

// SessionOperation is what a caller asks: start (with mode), stop, or
// restart (with expected_pty_id, without mode) account_id's seat in
// topic_id.
type SessionOperation struct {
	OperationID   string `json:"operation_id"`
	Action        string `json:"action"`
	AccountID     string `json:"account_id"`
	TopicID       string `json:"topic_id"`
	Mode          string `json:"mode,omitempty"`
	ExpectedPtyID string `json:"expected_pty_id,omitempty"`
}

// SessionResult answers a session_list, session_status or session_control:
// Result is a SessionList or a SessionRecord, or Error says why not.
type SessionResult struct {
	Type      string          `json:"type"`
	RequestID string          `json:"request_id"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     string          `json:"error,omitempty"`
}

// SessionLaunch names one launch: the caller (you, requested_by) or a
// seat.
type SessionLaunch struct {
	AccountID string `json:"account_id"`
	TopicID   string `json:"topic_id"`
	PtyID     string `json:"pty_id,omitempty"`
}

// SessionRecord is an operation's record: the request, who asked, where
// it is, and what it did. ProcessRunning and RoomConnected are read when
// asked (never stored), for the launch the operation started (pty_id):
// the process still runs under Pullcept's PTY, and a connection of that
// launch (its capability, not its name) is seated in its room.
type SessionRecord struct {
	SessionOperation
	RequestedBy SessionLaunch `json:"requested_by"`
	State       string        `json:"state"`
	// Error is why it failed or was interrupted.
	Error string `json:"error,omitempty"`
	// PtyID is the launch it started (process_started); StoppedPtyID the
	// one it stopped (stop, restart).
	PtyID        string `json:"pty_id,omitempty"`
	StoppedPtyID string `json:"stopped_pty_id,omitempty"`
	// Launched is how the started launch began: fresh or resume.
	Launched   string `json:"launched,omitempty"`
	AcceptedAt string `json:"accepted_at"`
	UpdatedAt  string `json:"updated_at"`

	ProcessRunning *bool `json:"process_running,omitempty"`
	RoomConnected  *bool `json:"room_connected,omitempty"`
}

// SessionList is the accounts, the open topics and their sessions. It
// never carries a command or an environment.
type SessionList struct {
	You      SessionLaunch    `json:"you"`
	Accounts []SessionAccount `json:"accounts"`
	Topics   []SessionTopic   `json:"topics"`
}

// SessionAccount is a configured account. Startable: it runs as a seat
// (a local MCP server does not).
type SessionAccount struct {
	AccountID string `json:"account_id"`
	Name      string `json:"name"`
	FullName  string `json:"full_name,omitempty"`
	Kind      string `json:"kind"`
	Startable bool   `json:"startable"`
}

// SessionTopic is an open topic and its seats.
type SessionTopic struct {
	TopicID  string        `json:"topic_id"`
	Name     string        `json:"name,omitempty"`
	Sessions []SessionSeat `json:"sessions"`
}

// SessionSeat is one seat of a topic: its current launch (pty_id), its
// state (starting, running, exited: a pane that ended by itself) and the
// live checks.
type SessionSeat struct {
	AccountID      string `json:"account_id"`
	Name           string `json:"name"`
	PtyID          string `json:"pty_id"`
	State          string `json:"state"`
	ProcessRunning bool   `json:"process_running"`
	RoomConnected  bool   `json:"room_connected"`
}
