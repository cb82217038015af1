package wsconn

// HTTP/1.1 heads and bodies (RFC 9112), as far as the room socket's two
// ends need them: a request's or a response's start line and header read
// within MaxHeadBytes, a body by Content-Length or chunked.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// MaxHeadBytes bounds a start line and its header together: the room's
// requests and answers are a few hundred bytes, and a peer that never ends
// its header must not grow memory.
const MaxHeadBytes = 64 << 10

// maxFields bounds a header's field lines: a real one has a dozen, and
// each field costs memory beyond its bytes.
const maxFields = 100

// The read errors. errors.New, not fmt.Errorf, so that the package has no
// init to speak of (fmt.Errorf at init was 0.02 ms of start-up).
var (
	// ErrHeadTooLarge: the start line and header are over MaxHeadBytes,
	// or hold more than 100 fields.
	ErrHeadTooLarge = errors.New("the start line and header are over 64 KiB or 100 fields")
	// ErrMalformed: what was read is not HTTP/1.x (wrapped with the
	// detail).
	ErrMalformed = errors.New("malformed HTTP")
	// ErrVersion: a request of an HTTP version other than 1.x.
	ErrVersion = errors.New("HTTP version not supported: this server speaks HTTP/1.x")
)

// Header holds a head's fields by lower-case name, in the order received.
type Header map[string][]string

// Get is the first value of field name (lower case), or "".
func (h Header) Get(name string) string {
	if v := h[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// HasToken says whether the comma-separated field name (lower case) lists
// token (case-insensitive), as Connection and Upgrade do.
func (h Header) HasToken(name, token string) bool {
	for _, v := range h[name] {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// ResponseHead is a response's status line and header.
type ResponseHead struct {
	Code   int
	Status string // "401 Unauthorized": the status line without the version
	Header Header
}

// ReadResponseHead reads one response's status line and header, at most
// MaxHeadBytes of them.
func ReadResponseHead(br *bufio.Reader) (*ResponseHead, error) {
	budget := MaxHeadBytes
	line, err := readLine(br, &budget)
	if err != nil {
		return nil, fmt.Errorf("read the status line: %w", err)
	}
	proto, rest, _ := strings.Cut(line, " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(rest) < 3 || (len(rest) > 3 && rest[3] != ' ') {
		return nil, fmt.Errorf("%w: not an HTTP/1.x status line: %q", ErrMalformed, CutText(line))
	}
	code, err := strconv.Atoi(rest[:3])
	if err != nil || code < 100 {
		return nil, fmt.Errorf("%w: not an HTTP/1.x status line: %q", ErrMalformed, CutText(line))
	}
	h := &ResponseHead{Code: code, Status: strings.TrimRight(rest, " ")}
	if h.Header, err = readFields(br, &budget); err != nil {
		return nil, fmt.Errorf("read the header: %w", err)
	}
	return h, nil
}

// RequestHead is a request's line and header.
type RequestHead struct {
	Method string
	Target string // the request-target as sent (not decoded)
	Minor  int    // HTTP/1.Minor: 0 or 1 (a later 1.x counts as 1)
	Header Header
}

// Proto is the request's version as a status line starts with it.
func (r *RequestHead) Proto() string {
	if r.Minor == 0 {
		return "HTTP/1.0"
	}
	return "HTTP/1.1"
}

// maxBlankLines is how many empty lines may come before a request line
// (RFC 9112, 2.2: a server should ignore at least one).
const maxBlankLines = 4

// ReadRequestHead reads one request's line and header, at most
// MaxHeadBytes of them. A connection that ends or fails returns its
// error (io.EOF before any byte); a request that is not HTTP/1.x wraps
// ErrMalformed or ErrVersion; a header too long is ErrHeadTooLarge.
func ReadRequestHead(br *bufio.Reader) (*RequestHead, error) {
	budget := MaxHeadBytes
	var line string
	for blank := 0; line == ""; blank++ {
		if blank > maxBlankLines {
			return nil, fmt.Errorf("%w: empty lines instead of a request line", ErrMalformed)
		}
		var err error
		if line, err = readLine(br, &budget); err != nil {
			if blank == 0 && budget == MaxHeadBytes && err == io.ErrUnexpectedEOF {
				err = io.EOF // the connection ended between requests
			}
			return nil, err
		}
	}
	method, rest, ok1 := strings.Cut(line, " ")
	target, proto, ok2 := strings.Cut(rest, " ")
	if !ok1 || !ok2 || !IsToken(method) || !visible(target) {
		return nil, fmt.Errorf("%w: not an HTTP/1.x request line: %q", ErrMalformed, CutText(line))
	}
	r := &RequestHead{Method: method, Target: target}
	switch {
	case len(proto) != 8 || !strings.HasPrefix(proto, "HTTP/") || !isDigit(proto[5]) || proto[6] != '.' || !isDigit(proto[7]):
		return nil, fmt.Errorf("%w: not an HTTP/1.x request line: %q", ErrMalformed, CutText(line))
	case proto[5] != '1':
		return nil, fmt.Errorf("%w (the request says %s)", ErrVersion, proto)
	case proto[7] != '0':
		r.Minor = 1
	}
	var err error
	if r.Header, err = readFields(br, &budget); err != nil {
		return nil, err
	}
	return r, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// visible says whether s is non-empty visible ASCII (a request-target).
func visible(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return s != ""
}

// readFields reads header field lines up to the empty line, charging
// budget.
func readFields(br *bufio.Reader, budget *int) (Header, error) {
	h := Header{}
	for n := 0; ; n++ {
		line, err := readLine(br, budget)
		if err != nil {
			return nil, err
		}
		if line == "" {
			return h, nil
		}
		if n == maxFields {
			return nil, ErrHeadTooLarge
		}
		name, value, ok := strings.Cut(line, ":")
		value = strings.Trim(value, " \t")
		if !ok || !IsToken(name) || !fieldValue(value) { // a folded line starts with a space: not a token either
			return nil, fmt.Errorf("%w: malformed header line %q", ErrMalformed, CutText(line))
		}
		name = strings.ToLower(name)
		h[name] = append(h[name], value)
	}
}

// fieldValue says whether v holds no control character but tab (RFC
// 9110, 5.5).
func fieldValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// IsToken says whether s is an RFC 9110 token (a method, a field name).
func IsToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// readLine reads one line without its CRLF (or LF), charging budget.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > *budget {
			return "", ErrHeadTooLarge
		}
		*budget -= len(frag)
		line = append(line, frag...)
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
	}
	line = line[:len(line)-1]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return string(line), nil
}

// ReadResponseBody reads at most limit bytes of a response's body, framed
// as the header says: chunked, Content-Length, or until the connection
// ends. The rest is left unread (every request of room/dial says
// Connection: close).
func ReadResponseBody(br *bufio.Reader, h *ResponseHead, limit int) ([]byte, error) {
	if h.Code < 200 || h.Code == 204 || h.Code == 304 {
		return nil, nil // no body, whatever the header says
	}
	if te := h.Header.Get("transfer-encoding"); te != "" {
		if !strings.EqualFold(te, "chunked") {
			return nil, fmt.Errorf("unsupported Transfer-Encoding %q", CutText(te))
		}
		return ReadChunked(br, limit)
	}
	if cl := h.Header.Get("content-length"); cl != "" {
		n, err := ParseContentLength(cl)
		if err != nil {
			return nil, err
		}
		body := make([]byte, min(n, int64(limit)))
		if got, err := io.ReadFull(br, body); err != nil {
			return body[:got], fmt.Errorf("the body ended after %d of its %d bytes: %w", got, n, err)
		}
		return body, nil
	}
	return io.ReadAll(io.LimitReader(br, int64(limit)))
}

// ParseContentLength reads a Content-Length value: decimal digits only.
func ParseContentLength(v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || !isDigit(v[0]) { // no sign
		return 0, fmt.Errorf("%w: bad Content-Length %q", ErrMalformed, CutText(v))
	}
	return n, nil
}

// ReadChunked reads a chunked body up to limit bytes: at limit it stops,
// the rest unread. The trailer after the last chunk is not read (see
// SkipTrailer).
func ReadChunked(br *bufio.Reader, limit int) ([]byte, error) {
	var body []byte
	for {
		budget := MaxHeadBytes // per chunk line: an extension is not data
		line, err := readLine(br, &budget)
		if err != nil {
			return body, fmt.Errorf("read a chunk's size: %w", err)
		}
		sizeText, _, _ := strings.Cut(line, ";")
		size, err := strconv.ParseUint(strings.TrimSpace(sizeText), 16, 63)
		if err != nil {
			return body, fmt.Errorf("%w: bad chunk size %q", ErrMalformed, CutText(line))
		}
		if size == 0 {
			return body, nil
		}
		take := min(size, uint64(limit-len(body)))
		start := len(body)
		body = append(body, make([]byte, take)...)
		if _, err := io.ReadFull(br, body[start:]); err != nil {
			return body[:start], fmt.Errorf("the body ended inside a chunk: %w", err)
		}
		if len(body) == limit {
			return body, nil
		}
		if line, err := readLine(br, &budget); err != nil || line != "" {
			return body, fmt.Errorf("%w: a chunk does not end with CRLF", ErrMalformed)
		}
	}
}

// SkipTrailer reads a chunked body's trailer, after its last chunk, up to
// the empty line that ends the message (within MaxHeadBytes): a
// connection kept for the next request starts after it.
func SkipTrailer(br *bufio.Reader) error {
	budget := MaxHeadBytes
	for {
		line, err := readLine(br, &budget)
		if err != nil || line == "" {
			return err
		}
	}
}

// CutText bounds a peer's text quoted in an error.
func CutText(s string) string {
	const n = 100
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
