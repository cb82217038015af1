package wsconn

import "encoding/base64"

// acceptGUID is RFC 6455's key suffix for Sec-WebSocket-Accept.
const acceptGUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

// AcceptKey is the Sec-WebSocket-Accept that answers a handshake's
// Sec-WebSocket-Key (RFC 6455, 4.2.2): the server sends it, the client
// checks it.
func AcceptKey(key string) string {
	sum := sha1Sum([]byte(key + acceptGUID))
	return base64.StdEncoding.EncodeToString(sum[:])
}

// ValidKey says whether key is a Sec-WebSocket-Key: base64 of 16 bytes
// (RFC 6455, 4.1).
func ValidKey(key string) bool {
	if len(key) != 24 {
		return false
	}
	b, err := base64.StdEncoding.DecodeString(key)
	return err == nil && len(b) == 16
}
