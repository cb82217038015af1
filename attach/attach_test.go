package attach_test

// The attach protocol through its public API: frames, the greeting, the
// socket (folder and file modes, a dead server's socket, the path for a
// long runtime folder, the peer's uid), the terminal's environment and the
// screenless client (Relay) against a fake server end.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pullcept/attach"
)

// shortDir is a fresh folder with a path short enough for a Unix socket
// (t.TempDir's, named after the test, can be too long for sun_path).
//
// The tests that make folders or call Listen do not run in parallel:
// Listen changes the process's umask while it binds (TestListenUmask),
// which would make a folder another test creates meanwhile unusable.
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "pa")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// pipe is a connected pair of framed ends in memory.
func pipe(t *testing.T) (client, server *attach.Conn, closeServer func()) {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	return attach.NewConn(a), attach.NewConn(b), func() { b.Close() }
}

func TestFrameRoundTrip(t *testing.T) {
	t.Parallel()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes: over the one-write size
	cases := []struct {
		typ     byte
		payload []byte
	}{
		{attach.FrameInput, []byte("q")},
		{attach.FrameOutput, big},
		{attach.FrameEOF, nil},
		{attach.FrameOutput, []byte{}},
		{attach.FrameStderr, bytes.Repeat([]byte{0}, 4096)}, // exactly the one-write size
		{attach.FrameExit, []byte(`{"code":3}`)},
	}
	var buf bytes.Buffer
	w := attach.NewConn(&buf)
	for _, c := range cases {
		if err := w.Write(c.typ, c.payload); err != nil {
			t.Fatalf("write %q (%d bytes): %v", c.typ, len(c.payload), err)
		}
	}
	if want := len(cases)*5 + 1 + len(big) + 4096 + len(`{"code":3}`); buf.Len() != want {
		t.Fatalf("%d bytes on the wire, want %d (5-byte headers and the payloads)", buf.Len(), want)
	}
	r := attach.NewConn(&buf)
	for i, c := range cases {
		typ, b, err := r.Read()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if typ != c.typ || !bytes.Equal(b, c.payload) {
			t.Fatalf("frame %d: got %q with %d bytes, want %q with %d bytes", i, typ, len(b), c.typ, len(c.payload))
		}
	}
	if _, _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

// The header is the type byte and a big-endian length.
func TestFrameHeader(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := attach.NewConn(&buf).Write(attach.FrameOutput, []byte("hey")); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.Bytes(), []byte{'o', 0, 0, 0, 3, 'h', 'e', 'y'}; !bytes.Equal(got, want) {
		t.Fatalf("on the wire % x, want % x", got, want)
	}
}

// countingReader hands out data and counts the reads made of it.
type countingReader struct {
	data  []byte
	reads int
}

func (r *countingReader) Read(p []byte) (int, error) {
	r.reads++
	if len(r.data) == 0 {
		return 0, errors.New("read past the header: the body was asked for")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func (r *countingReader) Write(p []byte) (int, error) { return len(p), nil }

func TestFrameTooBig(t *testing.T) {
	t.Parallel()
	hdr := make([]byte, 5)
	hdr[0] = attach.FrameOutput
	binary.BigEndian.PutUint32(hdr[1:], attach.MaxFrame+1)
	r := &countingReader{data: hdr}
	_, _, err := attach.NewConn(r).Read()
	if !errors.Is(err, attach.ErrFrameTooBig) {
		t.Fatalf("a header announcing MaxFrame+1 bytes: %v, want ErrFrameTooBig", err)
	}
	if r.reads != 1 {
		t.Fatalf("%d reads from the peer, want 1 (the header only; the body must not be read)", r.reads)
	}
	// Writing one is refused too, before anything goes out.
	var buf bytes.Buffer
	if err := attach.NewConn(&buf).Write(attach.FrameOutput, make([]byte, attach.MaxFrame+1)); !errors.Is(err, attach.ErrFrameTooBig) || buf.Len() != 0 {
		t.Fatalf("writing MaxFrame+1 bytes: %v, %d bytes written; want ErrFrameTooBig and nothing", err, buf.Len())
	}
	// MaxFrame itself is a frame.
	buf.Reset()
	c := attach.NewConn(&buf)
	if err := c.Write(attach.FrameOutput, make([]byte, attach.MaxFrame)); err != nil {
		t.Fatal(err)
	}
	if _, b, err := c.Read(); err != nil || len(b) != attach.MaxFrame {
		t.Fatalf("a MaxFrame frame: %d bytes, %v", len(b), err)
	}
}

func TestFrameTruncated(t *testing.T) {
	t.Parallel()
	for name, wire := range map[string][]byte{
		"body":   {attach.FrameOutput, 0, 0, 0, 10, 'a', 'b', 'c'},
		"header": {attach.FrameOutput, 0, 0},
	} {
		_, _, err := attach.NewConn(bytes.NewBuffer(wire)).Read()
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("truncated %s: %v, want io.ErrUnexpectedEOF", name, err)
		}
	}
}

func TestReadJSON(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	c := attach.NewConn(&buf)
	if err := c.WriteJSON(attach.FrameWelcome, attach.Welcome{Proto: 7, PID: 42, Build: "b"}); err != nil {
		t.Fatal(err)
	}
	var w attach.Welcome
	if err := c.ReadJSON(attach.FrameWelcome, &w); err != nil || w != (attach.Welcome{Proto: 7, PID: 42, Build: "b"}) {
		t.Fatalf("read back %+v, %v", w, err)
	}

	if err := c.Write(attach.FrameOutput, []byte(`{"proto":1}`)); err != nil {
		t.Fatal(err)
	}
	err := c.ReadJSON(attach.FrameWelcome, &w)
	if err == nil || !strings.Contains(err.Error(), "'W'") || !strings.Contains(err.Error(), "'o'") {
		t.Fatalf("an Output frame read as a Welcome: %v; want an error naming both types ('W' and 'o')", err)
	}

	if err := c.Write(attach.FrameWelcome, []byte(`{"proto":`)); err != nil {
		t.Fatal(err)
	}
	if err := c.ReadJSON(attach.FrameWelcome, &w); err == nil || !strings.Contains(err.Error(), "bad") {
		t.Fatalf("a Welcome of broken JSON: %v, want an error", err)
	}
}

// fakeServer answers one Hello with w and returns the Hello it read.
func fakeServer(t *testing.T, srv *attach.Conn, w attach.Welcome) <-chan attach.Hello {
	got := make(chan attach.Hello, 1)
	go func() {
		var h attach.Hello
		if err := srv.ReadJSON(attach.FrameHello, &h); err != nil {
			t.Error(err)
			close(got)
			return
		}
		got <- h
		if err := srv.WriteJSON(attach.FrameWelcome, w); err != nil {
			t.Error(err)
		}
	}()
	return got
}

func TestGreet(t *testing.T) {
	t.Parallel()
	t.Run("ok", func(t *testing.T) {
		cl, srv, _ := pipe(t)
		hello := fakeServer(t, srv, attach.Welcome{Proto: attach.ProtocolVersion, PID: 7, Build: "srv"})
		w, err := attach.Greet(cl, attach.Hello{Proto: 999, Mode: attach.ModeList, Args: []string{"x"}})
		if err != nil || w.PID != 7 || w.Build != "srv" {
			t.Fatalf("Greet: %+v, %v", w, err)
		}
		if h := <-hello; h.Proto != attach.ProtocolVersion || h.Mode != attach.ModeList || !slices.Equal(h.Args, []string{"x"}) {
			t.Fatalf("the server read %+v; want this build's protocol, the mode and the args", h)
		}
	})
	t.Run("other protocol", func(t *testing.T) {
		cl, srv, _ := pipe(t)
		other := attach.ProtocolVersion + 41
		fakeServer(t, srv, attach.Welcome{Proto: other, PID: 4321, Error: "ignored: the versions differ"})
		_, err := attach.Greet(cl, attach.Hello{Mode: attach.ModeTUI})
		if err == nil {
			t.Fatal("a server of another protocol was accepted")
		}
		if err.Error() != attach.Mismatch(attach.ProtocolVersion, other, 4321) {
			t.Fatalf("error %q, want attach.Mismatch's sentence", err)
		}
		for _, want := range []string{"protocol " + strconv.Itoa(attach.ProtocolVersion), "speaks " + strconv.Itoa(other), "pid 4321"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not say %q", err, want)
			}
		}
	})
	t.Run("refused", func(t *testing.T) {
		cl, srv, _ := pipe(t)
		fakeServer(t, srv, attach.Welcome{Proto: attach.ProtocolVersion, Error: "the server is ending"})
		if _, err := attach.Greet(cl, attach.Hello{Mode: attach.ModeTUI}); err == nil || err.Error() != "the server is ending" {
			t.Fatalf("a refusing Welcome: %v, want its error", err)
		}
	})
	t.Run("not a server", func(t *testing.T) {
		cl, srv, _ := pipe(t)
		go func() {
			var h attach.Hello
			_ = srv.ReadJSON(attach.FrameHello, &h)
			_ = srv.Write(attach.FrameOutput, []byte("hi"))
		}()
		if _, err := attach.Greet(cl, attach.Hello{Mode: attach.ModeTUI}); err == nil || !strings.Contains(err.Error(), "did not answer as a pullcept server") {
			t.Fatalf("an Output frame for a Welcome: %v", err)
		}
	})
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode()
}

func TestListenModes(t *testing.T) {
	dir := filepath.Join(shortDir(t), "run")
	path := filepath.Join(dir, "s.sock")
	l, err := attach.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m := perm(t, dir); !m.IsDir() || m.Perm() != 0o700 {
		t.Errorf("folder mode %v, want drwx------", m)
	}
	if m := perm(t, path); m.Type() != fs.ModeSocket || m.Perm() != 0o600 {
		t.Errorf("socket mode %v, want a socket rw-------", m)
	}
	c, err := attach.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	l.Close()
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket file is left after Close: %v", err)
	}
}

func TestListenRemovesStaleSocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	dead, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	dead.SetUnlinkOnClose(false)
	dead.Close() // a server that died: its socket file stays
	if m := perm(t, path); m.Type() != fs.ModeSocket {
		t.Fatalf("setup: %s is %v, want a socket left behind", path, m)
	}
	if _, err := attach.Dial(path); err == nil || !attach.NoServer(err) {
		t.Fatalf("dialling a dead server's socket: %v, want an error NoServer recognises", err)
	}
	l, err := attach.Listen(path)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	defer l.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	c, err := attach.Dial(path)
	if err != nil {
		t.Fatalf("dial the new socket: %v", err)
	}
	c.Close()
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
}

func TestListenKeepsOtherFiles(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	if err := os.WriteFile(path, []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := attach.Listen(path)
	if err == nil {
		l.Close()
		t.Fatal("Listen succeeded over a regular file")
	}
	if !strings.Contains(err.Error(), path) {
		t.Errorf("error %q does not name %s", err, path)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "mine" {
		t.Fatalf("the regular file was touched: %q, %v", b, err)
	}
	if _, err := attach.Dial(filepath.Join(filepath.Dir(path), "none.sock")); !attach.NoServer(err) {
		t.Errorf("dialling a missing socket: %v, want an error NoServer recognises", err)
	}
}

func TestListenTightensFolder(t *testing.T) {
	dir := filepath.Join(shortDir(t), "open")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	l, err := attach.Listen(filepath.Join(dir, "s.sock"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if m := perm(t, dir); m.Perm() != 0o700 {
		t.Fatalf("folder mode %v after Listen, want 0700", m.Perm())
	}
}

func TestSocketPath(t *testing.T) {
	t.Parallel()
	short := "/run/user/1000/pullcept"
	if got := attach.SocketPath(short); got != short+"/server.sock" {
		t.Fatalf("SocketPath(%q) = %q", short, got)
	}
	long := "/home/someone/" + strings.Repeat("deep/", 20) + "run" // the socket path would pass 100 bytes
	if len(filepath.Join(long, "server.sock")) <= 100 {
		t.Fatal("setup: the runtime folder is not long enough")
	}
	p := attach.SocketPath(long)
	wantDir := filepath.Join(os.TempDir(), "pullcept-"+strconv.Itoa(os.Getuid()))
	if filepath.Dir(p) != wantDir {
		t.Fatalf("SocketPath(long) = %q, want a path in %s", p, wantDir)
	}
	if len(p) > 100 {
		t.Errorf("SocketPath(long) = %q is %d bytes, still over 100", p, len(p))
	}
	if again := attach.SocketPath(long); again != p {
		t.Errorf("SocketPath is not stable: %q then %q", p, again)
	}
	if other := attach.SocketPath(long + "2"); other == p || filepath.Dir(other) != wantDir {
		t.Errorf("another home's long runtime folder: %q (first was %q)", other, p)
	}
}

func TestCheckPeer(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	l, err := attach.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cl, sc := dialAccepted(t, l, path)
	if err := attach.CheckPeer(sc); err != nil {
		t.Fatalf("a peer of this uid (server side): %v", err)
	}
	if err := attach.CheckPeer(cl); err != nil {
		t.Fatalf("a peer of this uid (client side): %v", err)
	}
}

func TestTerminalEnv(t *testing.T) {
	t.Parallel()
	env := []string{
		"PATH=/usr/bin", "TERM=xterm-256color", "HOME=/home/me", "COLORTERM=truecolor",
		"ANTHROPIC_API_KEY=sk-secret", "NO_COLOR=1", "EDITOR=nano", "OPENAI_API_KEY=sk-2",
		"PULLCEPT_PREFIX=ctrl+a", "TERMINAL=x", "XTERM=y", "TERM_PROGRAM=kitty", "PULLCEPT_HOME=/h",
	}
	got := attach.TerminalEnv(env)
	want := []string{"TERM=xterm-256color", "COLORTERM=truecolor", "NO_COLOR=1", "EDITOR=nano", "PULLCEPT_PREFIX=ctrl+a", "TERM_PROGRAM=kitty"}
	if !slices.Equal(got, want) {
		t.Fatalf("TerminalEnv = %q, want %q", got, want)
	}
	for _, kv := range got {
		if strings.Contains(kv, "secret") || strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "HOME=") {
			t.Errorf("%q passed", kv)
		}
	}
}

// frame is one frame read by a fake server.
type frame struct {
	typ byte
	b   []byte
}

// readUntilEOF reads frames from c through an EOF frame or a read error;
// each payload is copied.
func readUntilEOF(c *attach.Conn) ([]frame, error) {
	var out []frame
	for {
		typ, b, err := c.Read()
		if err != nil {
			return out, err
		}
		out = append(out, frame{typ, bytes.Clone(b)})
		if typ == attach.FrameEOF {
			return out, nil
		}
	}
}

func TestRelay(t *testing.T) {
	t.Parallel()
	cl, srv, _ := pipe(t)
	in := bytes.Repeat([]byte("stdin bytes "), 8000) // 96000 bytes: several Input frames
	served := make(chan error, 1)
	var got []frame
	go func() {
		var err error
		got, err = readUntilEOF(srv)
		if err != nil {
			served <- err
			return
		}
		for _, f := range []frame{
			{attach.FrameOutput, []byte("out 1\n")},
			{attach.FrameStderr, []byte("warning\n")},
			{'?', []byte("an unknown frame is skipped")},
			{attach.FrameOutput, []byte("out 2\n")},
			{attach.FrameExit, []byte(`{"code":3,"message":"bye"}`)},
		} {
			if err := srv.Write(f.typ, f.b); err != nil {
				served <- err
				return
			}
		}
		served <- nil
	}()
	var stdout, stderr bytes.Buffer
	exit, err := attach.Relay(context.Background(), cl, bytes.NewReader(in), &stdout, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if exit.Code != 3 || exit.Message != "bye" {
		t.Errorf("exit %+v, want code 3 and bye", exit)
	}
	if stdout.String() != "out 1\nout 2\n" || stderr.String() != "warning\n" {
		t.Errorf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	var sent []byte
	for i, f := range got {
		last := i == len(got)-1
		switch {
		case last && f.typ != attach.FrameEOF:
			t.Fatalf("the last frame is %q, want EOF", f.typ)
		case !last && f.typ != attach.FrameInput:
			t.Fatalf("frame %d is %q, want Input", i, f.typ)
		}
		sent = append(sent, f.b...)
	}
	if !bytes.Equal(sent, in) {
		t.Fatalf("the server got %d bytes of stdin, want %d, the same", len(sent), len(in))
	}
}

func TestRelayEmptyStdin(t *testing.T) {
	t.Parallel()
	cl, srv, _ := pipe(t)
	go func() {
		got, err := readUntilEOF(srv)
		if err != nil || len(got) != 1 {
			t.Errorf("frames %v, %v; want EOF alone", got, err)
		}
		_ = srv.WriteJSON(attach.FrameExit, attach.Exit{})
	}()
	exit, err := attach.Relay(context.Background(), cl, strings.NewReader(""), io.Discard, io.Discard)
	if err != nil || exit != (attach.Exit{}) {
		t.Fatalf("Relay: %+v, %v", exit, err)
	}
}

func TestRelayServerGone(t *testing.T) {
	t.Parallel()
	cl, srv, closeServer := pipe(t)
	go func() {
		_ = srv.Write(attach.FrameOutput, []byte("half a listing"))
		closeServer()
	}()
	var stdout bytes.Buffer
	_, err := attach.Relay(context.Background(), cl, nil, &stdout, io.Discard)
	if !errors.Is(err, attach.ErrServerGone) {
		t.Fatalf("a connection closed without Exit: %v, want ErrServerGone", err)
	}
	if stdout.String() != "half a listing" {
		t.Errorf("stdout %q", stdout.String())
	}
}

// Over a real socket pair too: the server end closes; Relay with a stdin
// that never ends still returns.
func TestRelayServerGoneSocket(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	l, err := attach.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		sc := attach.NewConn(c)
		_, _, _ = sc.Read() // the first Input frame
		c.Close()
	}()
	uc, err := attach.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer uc.Close()
	stdinR, stdinW := io.Pipe()
	defer stdinW.Close()
	go func() { _, _ = stdinW.Write([]byte("k")) }()
	done := make(chan error, 1)
	go func() {
		_, err := attach.Relay(context.Background(), attach.NewConn(uc), stdinR, io.Discard, io.Discard)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, attach.ErrServerGone) {
			t.Fatalf("Relay: %v, want ErrServerGone", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Relay did not return after the server closed")
	}
}

// Relay's context ending, with the connection closed by its owner (the
// client's commands close it when ctx ends), is the context's error, not
// "the server went away".
func TestRelayCancelled(t *testing.T) {
	t.Parallel()
	a, b := net.Pipe()
	defer b.Close()
	ctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, func() { a.Close() })
	defer stop()
	done := make(chan error, 1)
	go func() {
		_, err := attach.Relay(ctx, attach.NewConn(a), nil, io.Discard, io.Discard)
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Relay: %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Relay did not return")
	}
}

// Listen must not touch the process-wide umask (it once set 0177 around
// its bind, so a folder another goroutine made meanwhile with 0700 came
// out 0600). This test makes folders while another goroutine listens and
// closes; each must come out 0700.
func TestListenUmask(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "s.sock")
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if l, err := attach.Listen(sock); err == nil {
				l.Close()
			}
		}
	}()
	defer func() { close(stop); <-done }()
	deadline := time.Now().Add(time.Second)
	for i := 0; time.Now().Before(deadline); i++ {
		d := filepath.Join(dir, "d"+strconv.Itoa(i))
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
		if m := perm(t, d).Perm(); m != 0o700 {
			t.Fatalf("a folder made with 0700 while Listen ran elsewhere has mode %#o (folder %d): Listen's umask is process-wide", m, i)
		}
	}
}

func ExampleMismatch() {
	fmt.Println(strings.Contains(attach.Mismatch(1, 2, 99), "protocol 1 but the server of this home (pid 99) speaks 2"))
	// Output: true
}

// The server's Close ends its Accept (the server's accept loop stops on
// it; server tests end servers that wait in it), and both ends of a connection are on the poller: a read deadline
// ends a read that has nothing to read.
func TestListenerCloseEndsAcceptAndConnsTakeDeadlines(t *testing.T) {
	path := filepath.Join(shortDir(t), "s.sock")
	l, err := attach.Listen(path)
	if err != nil {
		t.Fatal(err)
	}
	if l.Path() != path {
		t.Errorf("Path() = %q, want %q", l.Path(), path)
	}
	cl, sc := dialAccepted(t, l, path)
	for _, c := range []*os.File{cl, sc} {
		if err := c.SetReadDeadline(time.Now().Add(10 * time.Millisecond)); err != nil {
			t.Fatalf("%s: SetReadDeadline: %v (not on the poller)", c.Name(), err)
		}
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Fatalf("%s: a read past its deadline returned %v", c.Name(), err)
		}
	}
	ended := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if c != nil {
			c.Close()
		}
		ended <- err
	}()
	if err := l.Close(); err != nil { // before or during that Accept: it ends

		t.Fatal(err)
	}
	if err := <-ended; err == nil {
		t.Fatal("Accept after Close returned a connection")
	}
}

// dialAccepted dials l at path and returns both ends, closed at the end
// of the test.
func dialAccepted(t *testing.T, l *attach.Listener, path string) (client, server *os.File) {
	t.Helper()
	accepted := make(chan *os.File, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			t.Error(err)
		}
		accepted <- c
	}()
	cl, err := attach.Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	sc := <-accepted
	if sc == nil {
		t.FailNow()
	}
	t.Cleanup(func() { sc.Close() })
	return cl, sc
}

// The person's variables for a seat: only UpdateEnv's leave the client, and
// over the server's environment they are set, or removed when the
// client lacks them; the rest stays the server's.
func TestPersonEnv(t *testing.T) {
	t.Parallel()
	client := []string{"PATH=/me/bin:/usr/bin", "HOME=/home/me", "ANTHROPIC_API_KEY=sk-secret", "LANG=ja_JP.UTF-8",
		"LC_TIME=C", "SSH_AUTH_SOCK=/tmp/agent.2", "TERM=xterm", "HTTPS_PROXY=http://p:1", "LCX=no", "NODE_EXTRA_CA_CERTS=/ca.pem"}
	got := attach.PersonEnv(client)
	want := []string{"PATH=/me/bin:/usr/bin", "LANG=ja_JP.UTF-8", "LC_TIME=C", "SSH_AUTH_SOCK=/tmp/agent.2", "HTTPS_PROXY=http://p:1", "NODE_EXTRA_CA_CERTS=/ca.pem"}
	if !slices.Equal(got, want) {
		t.Fatalf("PersonEnv = %q, want %q", got, want)
	}
	server := []string{"PATH=/usr/bin", "HOME=/home/me", "SSH_AUTH_SOCK=/tmp/agent.1", "DISPLAY=:0", "PULLCEPT_HOME=/h", "LC_ALL=C"}
	// A hostile or old client's extra variables are dropped again here.
	got = attach.ApplyPersonEnv(server, append(want, "LD_PRELOAD=/evil.so"))
	want = []string{"HOME=/home/me", "PULLCEPT_HOME=/h", "PATH=/me/bin:/usr/bin", "LANG=ja_JP.UTF-8", "LC_TIME=C", "SSH_AUTH_SOCK=/tmp/agent.2", "HTTPS_PROXY=http://p:1", "NODE_EXTRA_CA_CERTS=/ca.pem"}
	if !slices.Equal(got, want) {
		t.Fatalf("ApplyPersonEnv = %q, want %q", got, want)
	}
}
