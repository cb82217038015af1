package dial

import (
	"bufio"
	"context"
	"fmt"
	"strconv"

	"pullcept/room/wsconn"
)

// MaxResponseBody bounds the part of a response's body Post returns.
const MaxResponseBody = 16 << 10

// Response is what Post read of the answer.
type Response struct {
	StatusCode int    // 200
	Status     string // "200 OK": the status line without the HTTP version
	// Body is the body's first MaxResponseBody bytes at most; the rest is
	// not read.
	Body []byte
}

// Post sends one HTTP/1.1 POST of body to an http:// address on a
// connection of its own (Connection: close) and reads the answer, within
// ctx: its deadline bounds the whole call, its cancellation ends it.
// header holds extra fields (name, value), sent in order. Any status is a
// Response; an error means no complete answer was read.
func Post(ctx context.Context, rawURL string, header [][2]string, body []byte) (*Response, error) {
	u, err := parseURL(rawURL, "http")
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Response, error) {
		err = ctxCause(ctx, err)
		return nil, fmt.Errorf("post %s: %w", rawURL, err)
	}
	nc, stop, err := connect(ctx, u)
	if err != nil {
		return fail(err)
	}
	defer nc.Close()
	defer stop()

	w := bufio.NewWriter(nc)
	err = writeHead(w, "POST", u, [][2]string{
		{"Content-Length", strconv.Itoa(len(body))},
		{"Connection", "close"},
	}, header)
	if err != nil {
		return fail(err)
	}
	w.Write(body)
	if err := w.Flush(); err != nil {
		return fail(err)
	}

	br := bufio.NewReader(nc)
	for {
		h, err := wsconn.ReadResponseHead(br)
		if err != nil {
			return fail(err)
		}
		if h.Code < 200 { // 100 Continue and the like: the answer follows
			continue
		}
		data, err := wsconn.ReadResponseBody(br, h, MaxResponseBody)
		if err != nil {
			return fail(err)
		}
		return &Response{StatusCode: h.Code, Status: h.Status, Body: data}, nil
	}
}
