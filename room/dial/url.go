package dial

import (
	"errors"
	"strings"
)

// URL is an address of the room's port: scheme://host[:port][/path][?query].
// Not net/url, which links net/netip and its inits into every command
// (docs/performance.md, "Issue 13, eighth session"); the addresses the room
// hands out are all this reads.
type URL struct {
	Scheme string // lower case
	Host   string // host[:port] as written: the Host header
	path   string // path and query as written ("" is "/")
	user   bool   // the authority held user information
}

// ParseURL reads an absolute address. Any byte outside printable ASCII is
// refused: it could break the request line or a header.
func ParseURL(raw string) (*URL, error) {
	for i := 0; i < len(raw); i++ {
		if c := raw[i]; c <= ' ' || c >= 0x7f {
			return nil, errors.New("not a URL: it holds a space, a control character or a non-ASCII byte")
		}
	}
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || scheme == "" || strings.ContainsAny(scheme, "/?#") {
		return nil, errors.New("not a URL: no scheme://")
	}
	rest, _, _ = strings.Cut(rest, "#")
	authority, path := rest, ""
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		authority, path = rest[:i], rest[i:]
	}
	u := &URL{Scheme: strings.ToLower(scheme), Host: authority, path: path}
	if i := strings.LastIndexByte(authority, '@'); i >= 0 {
		u.user, u.Host = true, authority[i+1:]
	}
	return u, nil
}

// Hostname is the host without the port (an IPv6 address without its
// brackets).
func (u *URL) Hostname() string {
	h, _ := u.split()
	return h
}

// Port is the port written, or "".
func (u *URL) Port() string {
	_, p := u.split()
	return p
}

func (u *URL) split() (host, port string) {
	h := u.Host
	if strings.HasPrefix(h, "[") {
		if i := strings.IndexByte(h, ']'); i > 0 {
			host, h = h[1:i], h[i+1:]
			port, _ = strings.CutPrefix(h, ":")
			return host, port
		}
	}
	if i := strings.LastIndexByte(h, ':'); i >= 0 {
		return h[:i], h[i+1:]
	}
	return h, ""
}

// RequestURI is the request line's target: the path and query, "/" when
// there is neither.
func (u *URL) RequestURI() string {
	switch {
	case u.path == "":
		return "/"
	case u.path[0] == '?':
		return "/" + u.path
	}
	return u.path
}

// PathEscape escapes s for one segment of a path: every byte but the
// unreserved ones (RFC 3986) as %XX, which any URL parser decodes.
func PathEscape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
