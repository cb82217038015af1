package socket

// The socket's HTTP/1.1 server, without net/http: one goroutine per
// accepted connection reads a request head at a time (pullcept/room/wsconn
// parses it, within 64 KiB), routes it (route), answers, and keeps the
// connection only after an accepted hook call. The rules are
// docs/decisions.md's "Room socket hardening".

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"

	"pullcept/room/wsconn"
)

// lingerWait bounds how long a refused connection, half-closed after its
// answer, is read (and what it sends dropped) before it is closed: a client
// still sending its request would otherwise get a reset that can destroy
// the answer before it is read. lingerBytes bounds what is dropped.
const (
	lingerWait  = 500 * time.Millisecond
	lingerBytes = 1 << 20
)

// aLongTimeAgo is a deadline in the past: it ends a blocked read.
var aLongTimeAgo = time.Unix(1, 0)

// request is one request read from a connection.
type request struct {
	*wsconn.RequestHead
	path string // the target's path, decoded (as net/http's URL.Path)
	// The body's framing: chunked, or length bytes.
	chunked bool
	length  int64
}

// conn is one accepted connection being served.
type conn struct {
	s  *Server
	tc *trackedConn
	br *bufio.Reader
}

// serveConn serves one accepted connection until it ends.
func (s *Server) serveConn(tc *trackedConn) {
	defer tc.Close()
	c := &conn{s: s, tc: tc, br: bufio.NewReaderSize(tc, 4<<10)}
	c.deadline(s.lim.readHeader) // from the accept
	for first := true; ; first = false {
		if !first {
			if !s.ln.setState(tc, stateIdle) {
				return // shutting down
			}
			c.deadline(s.lim.idle)
			if _, err := c.br.Peek(1); err != nil {
				return // the client went, or stayed idle too long
			}
			s.ln.setState(tc, stateActive)
			c.deadline(s.lim.readHeader) // from the next request's first byte
		}
		h, err := wsconn.ReadRequestHead(c.br)
		if err != nil {
			c.badHead(err)
			return
		}
		s.ln.setState(tc, stateActive)
		tc.SetReadDeadline(time.Time{})
		if !c.serve(h) {
			return
		}
	}
}

// deadline sets the read deadline d from now (none for 0).
func (c *conn) deadline(d time.Duration) {
	if d > 0 {
		c.tc.SetReadDeadline(time.Now().Add(d))
	} else {
		c.tc.SetReadDeadline(time.Time{})
	}
}

// badHead answers a request head that could not be read; a connection
// that ended or timed out gets no answer.
func (c *conn) badHead(err error) {
	switch {
	case errors.Is(err, wsconn.ErrHeadTooLarge):
		c.refuse(nil, 431, "request header over 64 KiB or 100 fields")
	case errors.Is(err, wsconn.ErrVersion):
		c.refuse(nil, 505, err.Error())
	case errors.Is(err, wsconn.ErrMalformed):
		c.refuse(nil, 400, "malformed request: "+err.Error())
	}
}

// serve checks one request's framing and routes it; false: close the
// connection.
func (c *conn) serve(h *wsconn.RequestHead) bool {
	u, err := url.ParseRequestURI(h.Target)
	if err != nil {
		return c.refuse(h, 400, "malformed request target")
	}
	r := &request{RequestHead: h, path: u.Path}
	if hosts := h.Header["host"]; h.Minor == 1 && len(hosts) != 1 {
		return c.refuse(h, 400, "an HTTP/1.1 request needs one Host header")
	}
	if e := h.Header.Get("expect"); e != "" && !strings.EqualFold(e, "100-continue") {
		return c.refuse(h, 417, "unsupported Expect")
	}
	te, cl := h.Header["transfer-encoding"], h.Header["content-length"]
	switch {
	case len(te) > 0 && len(cl) > 0:
		return c.refuse(h, 400, "both Transfer-Encoding and Content-Length")
	case len(te) > 0:
		if len(te) != 1 || !strings.EqualFold(te[0], "chunked") {
			return c.refuse(h, 501, "unsupported Transfer-Encoding: only chunked is")
		}
		r.chunked = true
	case len(cl) > 0:
		n, err := wsconn.ParseContentLength(cl[0])
		for _, v := range cl[1:] {
			if v != cl[0] {
				err = errors.New("differing Content-Length values")
			}
		}
		if err != nil {
			return c.refuse(h, 400, "bad Content-Length")
		}
		r.length = n
	}
	return c.s.route(c, r)
}

// hasBody says whether the request has a body to read.
func (r *request) hasBody() bool { return r.chunked || r.length > 0 }

// readBody reads the request's body, at most limit bytes of it (more is
// not read: the caller refuses and closes).
func (c *conn) readBody(r *request, limit int) ([]byte, error) {
	if r.chunked {
		body, err := wsconn.ReadChunked(c.br, limit)
		if err == nil && len(body) < limit {
			err = wsconn.SkipTrailer(c.br)
		}
		return body, err
	}
	body := make([]byte, min(r.length, int64(limit)))
	_, err := io.ReadFull(c.br, body)
	return body, err
}

// continue100 answers "Expect: 100-continue" before the body is read.
func (c *conn) continue100(r *request) error {
	if r.Minor == 0 || !r.hasBody() || !strings.EqualFold(r.Header.Get("expect"), "100-continue") {
		return nil
	}
	c.tc.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
	_, err := io.WriteString(c.tc, "HTTP/1.1 100 Continue\r\n\r\n")
	return err
}

// keepAlive says whether the client asks to keep the connection after
// this request (HTTP/1.1 unless it says close, HTTP/1.0 if it says
// keep-alive).
func keepAlive(r *request) bool {
	if r.Header.HasToken("connection", "close") {
		return false
	}
	if r.Minor == 0 {
		return r.Header.HasToken("connection", "keep-alive")
	}
	return true
}

// statusText is the reason phrase of each status the socket answers.
func statusText(code int) string {
	switch code {
	case 100:
		return "Continue"
	case 101:
		return "Switching Protocols"
	case 200:
		return "OK"
	case 400:
		return "Bad Request"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 413:
		return "Request Entity Too Large"
	case 417:
		return "Expectation Failed"
	case 431:
		return "Request Header Fields Too Large"
	case 501:
		return "Not Implemented"
	case 505:
		return "HTTP Version Not Supported"
	}
	return "Status " + strconv.Itoa(code)
}

// answer writes one response: the status line (in the request's HTTP
// version), fields (name, value), Date, Content-Length and the body
// (none for HEAD), in one write.
func (c *conn) answer(minor, code int, method string, fields [][2]string, body string) error {
	b := make([]byte, 0, 192+len(body))
	b = append(b, "HTTP/1."...)
	b = strconv.AppendInt(b, int64(minor), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(code), 10)
	b = append(b, ' ')
	b = append(b, statusText(code)...)
	b = append(b, "\r\n"...)
	for _, f := range fields {
		b = append(append(append(append(b, f[0]...), ": "...), f[1]...), "\r\n"...)
	}
	b = append(b, "Date: "...)
	b = time.Now().UTC().AppendFormat(b, "Mon, 02 Jan 2006 15:04:05 GMT")
	b = append(b, "\r\nContent-Length: "...)
	b = strconv.AppendInt(b, int64(len(body)), 10)
	b = append(b, "\r\n\r\n"...)
	if method != "HEAD" {
		b = append(b, body...)
	}
	c.tc.SetWriteDeadline(time.Now().Add(wsWriteTimeout))
	_, err := c.tc.Write(b)
	return err
}

// refuse answers a refused request (nil: a head that could not be read)
// and closes its connection after the answer ("Connection: close"): a
// client that is refused has no business keeping a connection, and held
// ones exhausted the descriptors once. It returns false (close), for the
// callers' return.
func (c *conn) refuse(r *wsconn.RequestHead, code int, msg string, fields ...[2]string) bool {
	minor, method := 1, ""
	if r != nil {
		minor, method = r.Minor, r.Method
	}
	fields = append(fields,
		[2]string{"Connection", "close"},
		[2]string{"Content-Type", "text/plain; charset=utf-8"},
		[2]string{"X-Content-Type-Options", "nosniff"})
	if c.answer(minor, code, method, fields, msg+"\n") == nil {
		c.linger()
	}
	return false
}

// linger half-closes the connection after a final answer and drops what
// the client still sends, until it closes its end, at most lingerWait and
// lingerBytes: the client sees the end at once, and its unread request
// does not turn the close into a reset that could destroy the answer.
func (c *conn) linger() {
	c.tc.CloseWrite()
	c.tc.SetReadDeadline(time.Now().Add(lingerWait))
	io.CopyN(io.Discard, c.br, lingerBytes)
}

// watchPeer is the context of a hook's answer while it waits: it ends when
// the client goes (its end of the connection closes: nobody is left to
// answer) or the server closes. stop ends the watch; the connection's
// reader is the caller's again after it.
func (c *conn) watchPeer() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancel(c.s.ctx)
	if c.br.Buffered() > 0 {
		return ctx, cancel // the client sent its next request already
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := c.br.Peek(1); err != nil {
			cancel() // gone (or stop's deadline: cancelled then anyway)
		}
	}()
	return ctx, func() {
		c.tc.SetReadDeadline(aLongTimeAgo)
		<-done
		c.tc.SetReadDeadline(time.Time{})
		cancel()
	}
}
