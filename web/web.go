// Package web is the room in a browser (`pullcept web`, issue 37): an HTTP
// listener of its own in the server, on 127.0.0.1 (never the room socket,
// which every seat reaches with its token), or on a given address with TLS
// only. A secret token, printed once in the URL's fragment (never sent in a
// request line, so never in a log), is exchanged for a cookie (HttpOnly,
// SameSite=Strict); Host and Origin are checked on every request and
// WebSocket upgrade. The page speaks the control protocol (docs/control.md)
// over a WebSocket: it is a second screen of the person, its posts admin
// (docs/decisions.md "The browser is the person's second screen").
package web

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/app"
)

// CookieName is the browser's session cookie.
const CookieName = "pullcept_web"

// Options configure the page's listener.
type Options struct {
	App *app.App
	// Listen is the address to listen on; "" is 127.0.0.1 on a free port.
	// Any other address needs TLS (CertFile, KeyFile).
	Listen            string
	CertFile, KeyFile string
	// Topic is the topic a new screen opens (the one a terminal showed
	// last; "" for a new topic).
	Topic func() string
	// PaneSize, when set, lets a browser typing into a seat's pane take
	// part in the pane's size as a terminal does (its keys make it the
	// latest client, its wish applies): wish records the browser's size
	// for the pane and marks it active; done forgets it.
	PaneSize func(topic, account string) (wish func(cols, rows int), done func())
	// Changed is called when a browser's connection opens or closes (the
	// server's idle watch: an open browser keeps it up).
	Changed func()
}

// Server is the page's listener.
type Server struct {
	o     Options
	log   *slog.Logger
	ln    net.Listener
	hs    *http.Server
	base  string          // scheme://host:port, the page's address
	hosts map[string]bool // the Host values a request may carry
	up    websocket.Upgrader

	mu       sync.Mutex
	token    [32]byte           // sha256 of the token
	sessions map[[32]byte]bool  // sha256 of each cookie given
	conns    map[io.Closer]bool // open WebSockets
	last     time.Time          // a browser's connection last opened or closed
	closed   bool
	nextID   int // the last browser's number
	uploads  string
	cancel   context.CancelFunc
	ctx      context.Context
}

// Start listens and serves the page; it returns the server and the page's
// address with the token in its fragment (printed once, kept nowhere).
func Start(o Options) (*Server, string, error) {
	addr := o.Listen
	tlsOn := o.CertFile != "" || o.KeyFile != ""
	if addr == "" {
		if tlsOn {
			return nil, "", errors.New("--tls-cert and --tls-key go with --listen ADDRESS")
		}
		addr = "127.0.0.1:0"
	} else if !tlsOn || o.CertFile == "" || o.KeyFile == "" {
		return nil, "", fmt.Errorf("--listen %s refused: an address other than 127.0.0.1 needs TLS (--tls-cert FILE --tls-key FILE); "+
			"from elsewhere, forward the port over SSH (ssh -L) or use a private network", addr)
	}
	var cfg *tls.Config
	if tlsOn {
		cert, err := tls.LoadX509KeyPair(o.CertFile, o.KeyFile)
		if err != nil {
			return nil, "", fmt.Errorf("TLS: %w", err)
		}
		cfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, "", fmt.Errorf("--listen %s: %w", addr, err)
		}
		if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
			return nil, "", fmt.Errorf("--listen %s: name the address the browser will use (its Host is checked), not every interface", addr)
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, "", fmt.Errorf("web listener: %w", err)
	}
	host, _, _ := net.SplitHostPort(addr)
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	scheme := "http"
	if cfg != nil {
		scheme = "https"
		ln = tls.NewListener(ln, cfg)
	}
	hp := net.JoinHostPort(host, port)
	s := &Server{o: o, log: o.App.Log(), ln: ln, base: scheme + "://" + hp, hosts: map[string]bool{hp: true},
		sessions: map[[32]byte]bool{}, conns: map[io.Closer]bool{}, last: time.Now()}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		s.hosts[net.JoinHostPort("localhost", port)] = true
	}
	s.up = websocket.Upgrader{CheckOrigin: s.sameOrigin}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	token := randomHex()
	s.token = sha256.Sum256([]byte(token))
	s.hs = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	go func() { _ = s.hs.Serve(ln) }()
	s.log.Info("web page listening", "address", s.base)
	return s, s.base + "/#token=" + token, nil
}

// Address is the page's address without its token.
func (s *Server) Address() string { return s.base }

// Close revokes the token and every cookie given, closes the browsers'
// connections and the listener.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.token = [32]byte{}
	s.sessions = map[[32]byte]bool{}
	conns := s.conns
	s.conns = map[io.Closer]bool{}
	uploads := s.uploads
	s.mu.Unlock()
	s.cancel()
	for c := range conns {
		c.Close()
	}
	_ = s.hs.Close()
	if uploads != "" {
		os.RemoveAll(uploads)
	}
	s.log.Info("web page closed: token revoked", "address", s.base)
}

// Open is the number of browser connections open now.
func (s *Server) Open() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.conns)
}

// Last is when a browser's connection last opened or closed, or the page
// started: a reload is not a browser gone.
func (s *Server) Last() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func randomHex() string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b[:])
}

// sameOrigin: an Origin header, when sent, names this page exactly.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	return o == s.origin(r.Host)
}

func (s *Server) origin(host string) string {
	return strings.SplitN(s.base, "://", 2)[0] + "://" + host
}

// authed says the request carries a cookie this page gave.
func (s *Server) authed(r *http.Request) bool {
	c, err := r.Cookie(CookieName)
	if err != nil || c.Value == "" {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[sha256.Sum256([]byte(c.Value))]
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Frame-Options", "DENY")
	// xterm.js adds style elements; scripts come from this page only.
	h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	if !s.hosts[r.Host] {
		http.Error(w, "wrong Host", http.StatusMisdirectedRequest)
		return
	}
	if !s.sameOrigin(r) {
		http.Error(w, "forged Origin", http.StatusForbidden)
		return
	}
	switch r.URL.Path {
	case "/login":
		s.login(w, r)
		return
	case "/ws", "/term", "/upload":
		// A cross-site request cannot carry the SameSite=Strict cookie;
		// a state-changing one must also say where it comes from.
		if r.Header.Get("Origin") == "" {
			http.Error(w, "Origin required", http.StatusForbidden)
			return
		}
		if !s.authed(r) {
			http.Error(w, "not signed in: open the address `pullcept web` printed", http.StatusUnauthorized)
			return
		}
		switch r.URL.Path {
		case "/ws":
			s.control(w, r)
		case "/term":
			s.terminal(w, r)
		default:
			s.upload(w, r)
		}
		return
	}
	serveAsset(w, r)
}

// login exchanges the token for a cookie.
func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.Header.Get("Origin") == "" {
		http.Error(w, "POST from the page only", http.StatusForbidden)
		return
	}
	var body struct {
		Token string `json:"token"`
	}
	if err := json.NewDecoder(io.LimitReader(r.Body, 4096)).Decode(&body); err != nil {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	sum := sha256.Sum256([]byte(body.Token))
	s.mu.Lock()
	ok := !s.closed && subtle.ConstantTimeCompare(sum[:], s.token[:]) == 1
	var cookie string
	if ok {
		cookie = randomHex()
		s.sessions[sha256.Sum256([]byte(cookie))] = true
	}
	s.mu.Unlock()
	if !ok {
		s.log.Warn("web: a wrong token was offered", "remote", r.RemoteAddr)
		http.Error(w, "wrong or revoked token", http.StatusUnauthorized)
		return
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: cookie, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: strings.HasPrefix(s.base, "https:")})
	w.WriteHeader(http.StatusNoContent)
}

// track counts an open connection until done is called.
func (s *Server) track(c io.Closer) (done func(), ok bool) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, false
	}
	s.conns[c] = true
	s.last = time.Now()
	s.mu.Unlock()
	s.changed()
	return func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.last = time.Now()
		s.mu.Unlock()
		s.changed()
	}, true
}

func (s *Server) changed() {
	if s.o.Changed != nil {
		s.o.Changed()
	}
}

// upload keeps one file the page attaches, in a 0700 folder of the run,
// and answers its path: the post names it and the app copies it under the
// topic (docs/control.md "post").
func (s *Server) upload(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "POST only", http.StatusMethodNotAllowed)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, 64<<20)
	f, hdr, err := r.FormFile("file")
	if err != nil {
		http.Error(w, "no file: "+err.Error(), http.StatusBadRequest)
		return
	}
	defer f.Close()
	s.mu.Lock()
	if s.uploads == "" {
		s.uploads, err = os.MkdirTemp(s.o.App.Dirs().Runtime, "web-uploads-")
	}
	root := s.uploads
	s.mu.Unlock()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	dir, err := os.MkdirTemp(root, "f")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	name := filepath.Base(filepath.Clean("/" + hdr.Filename))
	if name == "/" || name == "." {
		name = "file"
	}
	path := filepath.Join(dir, name)
	out, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		_, err = io.Copy(out, f)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]string{"path": path, "name": name})
}
