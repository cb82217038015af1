// Package dial is the client side of the room socket without net/http: a
// WebSocket client (RFC 6455) for ws:// addresses, used by `pullcept
// sidecar`, and a one-shot HTTP/1.1 POST, used by `pullcept hook`. Those two
// start with every CLI launch and every hook call, and linking net/http
// alone costs 0.51 ms of start-up (docs/performance.md, "Issue 13 at the
// end of the third session"), so this package links neither net/http nor
// crypto/tls (the root's deps_test.go, TestLightPackagesLinkLittle). Plain TCP only: the room listens on loopback.
package dial

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// maxHeadBytes bounds a response's status line and header together: the
// room's are a few hundred bytes, and a peer that never ends its header
// must not grow memory.
const maxHeadBytes = 64 << 10

// aLongTimeAgo is a deadline in the past: it ends a blocked read or write.
var aLongTimeAgo = time.Unix(1, 0)

// parseURL reads a ws:// or http:// address (scheme is the one wanted).
// Secure schemes are refused: there is no TLS here.
func parseURL(raw, scheme string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	switch {
	case u.Scheme == scheme+"s":
		return nil, fmt.Errorf("%s: %s:// is not supported (no TLS; the room listens on loopback)", raw, u.Scheme)
	case u.Scheme != scheme:
		return nil, fmt.Errorf("%s: not a %s:// address", raw, scheme)
	case u.Host == "":
		return nil, fmt.Errorf("%s: no host", raw)
	case u.User != nil:
		return nil, fmt.Errorf("%s: user information in the address is not supported", raw)
	}
	return u, nil
}

// hostPort is u's host with the port, 80 when the address has none.
func hostPort(u *url.URL) string {
	if u.Port() != "" {
		return u.Host
	}
	return net.JoinHostPort(u.Hostname(), "80")
}

// connect opens the TCP connection and ties it to ctx: its deadline
// becomes the connection's, and ctx ending (cancel) ends any read or write
// in progress. stop undoes the tie and reports whether ctx ended first.
func connect(ctx context.Context, u *url.URL) (nc net.Conn, stop func() bool, err error) {
	var d net.Dialer
	nc, err = d.DialContext(ctx, "tcp", hostPort(u))
	if err != nil {
		return nil, nil, err
	}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	stop = context.AfterFunc(ctx, func() { nc.SetDeadline(aLongTimeAgo) })
	return nc, stop, nil
}

// ctxCause is err, or ctx's error when ctx ended (the i/o error it caused
// says less). A read cut by ctx's deadline may fail an instant before ctx
// itself reports it.
func ctxCause(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if dl, ok := ctx.Deadline(); ok && errors.Is(err, os.ErrDeadlineExceeded) && !time.Now().Before(dl) {
		return context.DeadlineExceeded
	}
	return err
}

// writeHead writes a request line and header. Fields are written in order
// after Host; a field whose name is not a token or whose value holds a line
// break is refused (it would forge a header or a request).
func writeHead(w *bufio.Writer, method string, u *url.URL, fields ...[][2]string) error {
	fmt.Fprintf(w, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), u.Host)
	for _, list := range fields {
		for _, f := range list {
			if !isToken(f[0]) {
				return fmt.Errorf("header field name %q is not a token", f[0])
			}
			if strings.ContainsAny(f[1], "\r\n\x00") {
				return fmt.Errorf("header field %s: the value holds a line break or NUL", f[0])
			}
			fmt.Fprintf(w, "%s: %s\r\n", f[0], f[1])
		}
	}
	_, err := w.WriteString("\r\n")
	return err
}

func isToken(s string) bool {
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

// head is a response's status line and header.
type head struct {
	code   int
	status string              // "401 Unauthorized": the status line without the version
	fields map[string][]string // by lower-case name
}

func (h *head) get(name string) string {
	if v := h.fields[name]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// hasToken says whether the comma-separated field name lists token
// (case-insensitive), as Connection and Upgrade do.
func (h *head) hasToken(name, token string) bool {
	for _, v := range h.fields[name] {
		for t := range strings.SplitSeq(v, ",") {
			if strings.EqualFold(strings.TrimSpace(t), token) {
				return true
			}
		}
	}
	return false
}

// errHeadTooLarge: errors.New, not fmt.Errorf, so that the package has no
// init to speak of (fmt.Errorf at init was 0.02 ms of start-up).
var errHeadTooLarge = errors.New("the response's status line and header are over 64 KiB")

// readHead reads one response's status line and header, at most
// maxHeadBytes of them.
func readHead(br *bufio.Reader) (*head, error) {
	budget := maxHeadBytes
	line, err := readLine(br, &budget)
	if err != nil {
		return nil, fmt.Errorf("read the status line: %w", err)
	}
	proto, rest, _ := strings.Cut(line, " ")
	if !strings.HasPrefix(proto, "HTTP/1.") || len(rest) < 3 || (len(rest) > 3 && rest[3] != ' ') {
		return nil, fmt.Errorf("not an HTTP/1.x status line: %q", cutText(line))
	}
	code, err := strconv.Atoi(rest[:3])
	if err != nil || code < 100 {
		return nil, fmt.Errorf("not an HTTP/1.x status line: %q", cutText(line))
	}
	h := &head{code: code, status: strings.TrimRight(rest, " "), fields: map[string][]string{}}
	for {
		line, err := readLine(br, &budget)
		if err != nil {
			return nil, fmt.Errorf("read the header: %w", err)
		}
		if line == "" {
			return h, nil
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok || !isToken(name) { // a folded line starts with a space: not a token either
			return nil, fmt.Errorf("malformed header line %q", cutText(line))
		}
		name = strings.ToLower(name)
		h.fields[name] = append(h.fields[name], strings.Trim(value, " \t"))
	}
}

// readLine reads one line without its CRLF (or LF), charging budget.
func readLine(br *bufio.Reader, budget *int) (string, error) {
	var line []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(frag) > *budget {
			return "", errHeadTooLarge
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

// readBody reads at most limit bytes of a response's body, framed as the
// header says: chunked, Content-Length, or until the connection ends. The
// rest is left unread (every request here says Connection: close).
func readBody(br *bufio.Reader, h *head, limit int) ([]byte, error) {
	if h.code < 200 || h.code == 204 || h.code == 304 {
		return nil, nil // no body, whatever the header says
	}
	if te := h.get("transfer-encoding"); te != "" {
		if !strings.EqualFold(te, "chunked") {
			return nil, fmt.Errorf("unsupported Transfer-Encoding %q", cutText(te))
		}
		return readChunked(br, limit)
	}
	if cl := h.get("content-length"); cl != "" {
		n, err := strconv.ParseInt(cl, 10, 64)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad Content-Length %q", cutText(cl))
		}
		body := make([]byte, min(n, int64(limit)))
		if got, err := io.ReadFull(br, body); err != nil {
			return body[:got], fmt.Errorf("the body ended after %d of its %d bytes: %w", got, n, err)
		}
		return body, nil
	}
	return io.ReadAll(io.LimitReader(br, int64(limit)))
}

// readChunked reads a chunked body up to limit bytes.
func readChunked(br *bufio.Reader, limit int) ([]byte, error) {
	var body []byte
	for {
		budget := maxHeadBytes // per chunk line: an extension is not data
		line, err := readLine(br, &budget)
		if err != nil {
			return body, fmt.Errorf("read a chunk's size: %w", err)
		}
		sizeText, _, _ := strings.Cut(line, ";")
		size, err := strconv.ParseUint(strings.TrimSpace(sizeText), 16, 63)
		if err != nil {
			return body, fmt.Errorf("bad chunk size %q", cutText(line))
		}
		if size == 0 {
			return body, nil // the trailer is not read: the connection closes
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
			return body, errors.New("a chunk does not end with CRLF")
		}
	}
}

// cutText bounds a peer's text quoted in an error.
func cutText(s string) string {
	const n = 100
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
