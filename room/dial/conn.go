package dial

import "pullcept/room/wsconn"

// Conn is a client WebSocket: pullcept/room/wsconn's Conn in the client's
// role (it masks what it writes and refuses masked frames).
type Conn = wsconn.Conn

// CloseError is the server's close frame: ReadMessage's error once the
// server closed the connection.
type CloseError = wsconn.CloseError

// Message types, RFC 6455's opcodes (the values gorilla/websocket uses).
const (
	TextMessage   = wsconn.TextMessage
	BinaryMessage = wsconn.BinaryMessage
	CloseMessage  = wsconn.CloseMessage
	PingMessage   = wsconn.PingMessage
	PongMessage   = wsconn.PongMessage
)

// Close codes (RFC 6455, 7.4.1).
const (
	CloseNormal        = wsconn.CloseNormal
	CloseProtocolError = wsconn.CloseProtocolError
	CloseNoStatus      = wsconn.CloseNoStatus // received only: the close frame had no code
	CloseInvalidData   = wsconn.CloseInvalidData
	CloseTooBig        = wsconn.CloseTooBig
)

// DefaultReadLimit is a new Conn's read limit.
const DefaultReadLimit = wsconn.DefaultReadLimit

var (
	// ErrReadLimit: a message was longer than the read limit.
	ErrReadLimit = wsconn.ErrReadLimit
	// ErrProtocol: the server broke RFC 6455.
	ErrProtocol = wsconn.ErrProtocol
	// ErrCloseSent: a close frame was already sent; nothing more can be.
	ErrCloseSent = wsconn.ErrCloseSent
)
