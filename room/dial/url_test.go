package dial

import (
	"context"
	"errors"
	"net"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// ParseURL reads what net/url reads for the addresses the room hands out,
// and refuses what could break a request line.
func TestParseURLAgainstNetURL(t *testing.T) {
	for _, raw := range []string{
		"ws://127.0.0.1:4123/room", "http://127.0.0.1:4123/hooks/activity/Stop/t/a", "ws://127.0.0.1:80",
		"ws://127.0.0.1", "WS://127.0.0.1:1/x?token=a&b=c", "ws://127.0.0.1:1?q=1", "ws://[::1]:9/x",
		"ws://localhost:1/x#frag", "ws://u:p@127.0.0.1:1/", "ws://127.0.0.1:1/a%20b",
	} {
		u, err := ParseURL(raw)
		if err != nil {
			t.Errorf("%s: %v", raw, err)
			continue
		}
		want, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if u.Scheme != want.Scheme || u.Host != want.Host || u.Hostname() != want.Hostname() || u.Port() != want.Port() ||
			u.RequestURI() != want.RequestURI() || u.user != (want.User != nil) {
			t.Errorf("%s: %q %q %q %q %q %v; net/url: %q %q %q %q %q %v", raw, u.Scheme, u.Host, u.Hostname(), u.Port(), u.RequestURI(), u.user,
				want.Scheme, want.Host, want.Hostname(), want.Port(), want.RequestURI(), want.User != nil)
		}
	}
	for _, raw := range []string{"", "::", "not a url", "127.0.0.1:1/x", "://127.0.0.1", "ws://127.0.0.1/a b",
		"ws://127.0.0.1/\r\nX-Evil: 1", "ws://127.0.0.1/\x00", "ws://127.0.0.1/é", "ws:/x"} {
		if u, err := ParseURL(raw); err == nil {
			t.Errorf("%q read as %+v", raw, u)
		}
	}
}

// PathEscape's output decodes to its input for every byte, and keeps a
// segment one segment.
func TestPathEscapeRoundTrips(t *testing.T) {
	var all strings.Builder
	for c := range 256 {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{all.String(), "Stop", "a/b", "../x", "50%", "名前", ""} {
		e := PathEscape(s)
		if strings.ContainsAny(e, "/?#") {
			t.Errorf("PathEscape(%q) = %q holds a separator", s, e)
		}
		if got, err := url.PathUnescape(e); err != nil || got != s {
			t.Errorf("PathEscape(%q) = %q, which decodes to %q, %v", s, e, got, err)
		}
	}
}

func TestParseIPv4(t *testing.T) {
	for in, want := range map[string][4]byte{"127.0.0.1": {127, 0, 0, 1}, "localhost": {127, 0, 0, 1}, "LocalHost": {127, 0, 0, 1}, "10.1.255.0": {10, 1, 255, 0}} {
		if got, err := parseIPv4(in); err != nil || got != want {
			t.Errorf("parseIPv4(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"", "::1", "1.2.3", "1.2.3.4.5", "256.0.0.1", "01.2.3.4", "+1.2.3.4", "1..2.3", "example.com", "1.2.3.-4"} {
		if got, err := parseIPv4(in); err == nil {
			t.Errorf("parseIPv4(%q) = %v", in, got)
		}
	}
}

// A dial reaches a listener by address and by localhost, and a port nobody
// listens on is refused, said as net says it.
func TestConnectTCP(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hi"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, host := range []string{"127.0.0.1", "localhost"} {
		u, err := ParseURL("ws://" + host + ":" + strconv.Itoa(port) + "/")
		if err != nil {
			t.Fatal(err)
		}
		nc, stop, err := connect(context.Background(), u)
		if err != nil {
			t.Fatalf("%s: %v", host, err)
		}
		buf := make([]byte, 2)
		if n, err := nc.Read(buf); err != nil || string(buf[:n]) != "hi" {
			t.Errorf("%s: read %q, %v", host, buf[:n], err)
		}
		stop()
		nc.Close()
	}
	// A port just freed: nobody listens there.
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	u, _ := ParseURL("ws://" + addr + "/")
	_, _, err = connect(context.Background(), u)
	if !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "dial tcp "+addr+": connect: connection refused") {
		t.Fatalf("a closed port: %v", err)
	}
}

// FuzzParseURL: any input is read or refused without a panic; what is read
// holds no byte that could break a request line, and agrees with net/url
// on the scheme, the host and the port whenever net/url reads it too.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{"ws://127.0.0.1:4123/room?x=1", "http://localhost/hooks", "ws://[::1]:9/x#f", "ws://u@h/", "::", "ws://a b/", "x://"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := ParseURL(raw)
		if err != nil {
			return
		}
		for _, part := range []string{u.Host, u.RequestURI()} {
			if strings.ContainsFunc(part, func(r rune) bool { return r <= ' ' || r >= 0x7f }) {
				t.Fatalf("%q: %q holds a space, control or non-ASCII byte", raw, part)
			}
		}
		if !strings.HasPrefix(u.RequestURI(), "/") {
			t.Fatalf("%q: request target %q", raw, u.RequestURI())
		}
		want, err := url.Parse(raw)
		if err != nil || want.Opaque != "" || strings.Contains(u.Host, "%") { // net/url decodes a host; ours is kept as written (openTCP takes only IPv4)
			return
		}
		if u.Scheme != strings.ToLower(want.Scheme) || (!u.user && (u.Host != want.Host || u.Hostname() != want.Hostname() || u.Port() != want.Port())) {
			t.Fatalf("%q: %q %q %q %q; net/url %q %q %q %q", raw, u.Scheme, u.Host, u.Hostname(), u.Port(), want.Scheme, want.Host, want.Hostname(), want.Port())
		}
	})
}
