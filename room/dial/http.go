// Package dial is the client side of the room socket without net/http: a
// WebSocket client (RFC 6455) for ws:// addresses, used by `pullcept
// sidecar`, and a one-shot HTTP/1.1 POST, used by `pullcept hook`. Those two
// start with every CLI launch and every hook call, and linking net/http
// alone costs 0.51 ms of start-up (docs/performance.md, "Issue 13 at the
// end of the third session"), so this package links neither net/http nor
// crypto/tls (the root's deps_test.go, TestLightPackagesLinkLittle). Plain TCP only: the room listens on loopback.
//
// The frames and the HTTP heads are pullcept/room/wsconn's, which the
// room's server runs on too; this package is the client's side of the
// handshake and of a POST.
package dial

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"pullcept/room/wsconn"
)

// aLongTimeAgo is a deadline in the past: it ends a blocked read or write.
var aLongTimeAgo = time.Unix(1, 0)

// parseURL reads a ws:// or http:// address (scheme is the one wanted).
// Secure schemes are refused: there is no TLS here.
func parseURL(raw, scheme string) (*URL, error) {
	u, err := ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", raw, err)
	}
	switch {
	case u.Scheme == scheme+"s":
		return nil, fmt.Errorf("%s: %s:// is not supported (no TLS; the room listens on loopback)", raw, u.Scheme)
	case u.Scheme != scheme:
		return nil, fmt.Errorf("%s: not a %s:// address", raw, scheme)
	case u.Host == "":
		return nil, fmt.Errorf("%s: no host", raw)
	case u.user:
		return nil, fmt.Errorf("%s: user information in the address is not supported", raw)
	}
	return u, nil
}

// connect opens the TCP connection and ties it to ctx: its deadline
// becomes the connection's, and ctx ending (cancel) ends any read or write
// in progress, the connect's included. stop undoes the tie and reports
// whether ctx ended first.
func connect(ctx context.Context, u *URL) (nc *os.File, stop func() bool, err error) {
	port := u.Port()
	if port == "" {
		port = "80"
	}
	addr := u.Hostname() + ":" + port
	nc, err = openTCP(u.Hostname(), port)
	if err != nil {
		return nil, nil, fmt.Errorf("dial tcp %s: %w", addr, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		nc.SetDeadline(dl)
	}
	stop = context.AfterFunc(ctx, func() { nc.SetDeadline(aLongTimeAgo) })
	if err := connected(nc); err != nil {
		stop()
		nc.Close()
		return nil, nil, fmt.Errorf("dial tcp %s: %w", addr, err)
	}
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
func writeHead(w *bufio.Writer, method string, u *URL, fields ...[][2]string) error {
	fmt.Fprintf(w, "%s %s HTTP/1.1\r\nHost: %s\r\n", method, u.RequestURI(), u.Host)
	for _, list := range fields {
		for _, f := range list {
			if !wsconn.IsToken(f[0]) {
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
