package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"

	"pullcept/attach"
	"pullcept/dirs"
)

// allowed lists, per package of this module, the other packages of the
// module it may import (docs/architecture.md, "Packages and who may import
// whom"). Packages not listed may import nothing of the module. main may
// import everything. Standard and third-party imports are checked by
// forbiddenOutside.
var allowed = map[string][]string{
	"room/wire":   {},
	"topicstore":  {"ids"},
	"ids":         {},
	"dirs":        {},
	"attachment":  {},
	"safefile":    {},
	"room":        {"ids", "room/wire", "topicstore"},
	"room/socket": {"room", "room/wire", "topicstore"},
	// The real room socket for its clients' tests.
	"room/socket/sockettest": {"room", "room/socket", "topicstore"},
	"app":                    {"attachment", "dirs", "mcpserv", "room", "room/wire", "room/socket", "safefile", "seat", "topicstore"},
	"control":                {"app"},
	"attach":                 {},
	"server":                 {"app", "attach", "control", "room/wire", "seat", "tui", "web"},
	"web":                    {"app", "control"},
	"seat":                   {"ids", "room/wire", "safefile", "seat/hook", "topicstore"},
	"sidecar":                {"ids", "room/wire"},
	"seat/hook":              {"room/wire"},
	"mcpserv":                {"safefile"},
	"tui":                    {"app", "attach", "room/wire"},
	"e2e":                    {"room/wire", "e2e/"},
	// Every command of the binary, the engine's included.
	"cli": {"app", "attach", "control", "dirs", "mcpserv", "room", "room/wire", "seat", "seat/hook", "server", "sidecar", "topicstore"},
}

// forbiddenOutside: third-party modules a package must not import (the room
// knows nothing of terminals, Bubble Tea or processes).
var forbiddenOutside = map[string][]string{
	"room":       {"charm.land/", "github.com/charmbracelet/", "github.com/creack/pty", "github.com/mark3labs/"},
	"room/wire":  {"github.com/", "charm.land/"},
	"topicstore": {"charm.land/", "github.com/charmbracelet/", "github.com/creack/pty", "github.com/gorilla/", "github.com/mark3labs/"},
	"sidecar":    {"charm.land/", "github.com/charmbracelet/", "github.com/creack/pty"},
	"attach":     {"charm.land/", "github.com/creack/pty", "github.com/gorilla/", "github.com/mark3labs/"},
	"mcpserv":    {"charm.land/", "github.com/charmbracelet/", "github.com/creack/pty", "github.com/gorilla/"},
}

func TestPackageDependencies(t *testing.T) {
	const module = "pullcept/"
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "third_party" || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			return nil // main wires everything
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rule := pkg
		if strings.HasPrefix(pkg, "e2e/") {
			rule = "e2e"
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, module) {
				target := strings.TrimPrefix(p, module)
				if !permitted(allowed[rule], target) {
					t.Errorf("%s imports %s: not allowed by the package table", path, p)
				}
				continue
			}
			for _, bad := range forbiddenOutside[rule] {
				if strings.HasPrefix(p, bad) {
					t.Errorf("%s imports %s: forbidden for package %s", path, p, rule)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func permitted(list []string, target string) bool {
	for _, a := range list {
		if a == target || (strings.HasSuffix(a, "/") && strings.HasPrefix(target, a)) {
			return true
		}
	}
	return false
}

func TestDependencyRuleCatchesViolations(t *testing.T) {
	if permitted(allowed["room"], "seat") || permitted(allowed["room/wire"], "room") || !permitted(allowed["e2e"], "e2e/fakemodel") {
		t.Fatal("the table does not forbid what it should")
	}
}

// Package initialisation runs for every command, the sidecar at every CLI
// launch and a hook at every hook call included. Allocations, not time:
// the same on every machine.

// maxOwnInitAllocs bounds the heap allocations of any one of pullcept's own
// packages' initialisation, which have no reason to build anything at
// start-up: a regexp.MustCompile at package level costs 20 to 70
// allocations (pullcept/app's uuidRE was 70 of its 72), a map literal a
// few. Today's largest is pullcept/attachment's 37.
const maxOwnInitAllocs = 50

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// pullceptBinary builds the binary once per test process (no -race: the
// figures are the shipped binary's) and returns its path.
func pullceptBinary(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "pullcept-startup-")
		if buildErr != nil {
			return
		}
		builtBin = filepath.Join(buildDir, "pullcept")
		// As the README's daily-use build: static, no cgo (its start-up is
		// 1.3 ms shorter than the default dynamically linked one).
		build := exec.Command("go", "build", "-o", builtBin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := build.CombinedOutput()
		if err != nil {
			buildErr = &buildError{err, out}
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return builtBin
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + string(e.out) }

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// initLine is one line of GODEBUG=inittrace=1:
// "init PKG @0.51 ms, 0.010 ms clock, 1392 bytes, 14 allocs".
var initLine = regexp.MustCompile(`^init (\S+) @\S+ \S+, \S+ ms clock, (\d+) bytes, (\d+) allocs$`)

type pkgInit struct {
	pkg           string
	bytes, allocs int
}

func initTrace(t *testing.T, bin string, args ...string) []pkgInit {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1", "PULLCEPT_HOME="+t.TempDir())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %v: %v\n%s", bin, args, err, stderr.Bytes())
	}
	var inits []pkgInit
	sc := bufio.NewScanner(&stderr)
	for sc.Scan() {
		m := initLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		b, _ := strconv.Atoi(m[2])
		a, _ := strconv.Atoi(m[3])
		inits = append(inits, pkgInit{m[1], b, a})
	}
	return inits
}

// None of pullcept's own packages' initialisation allocates more than
// maxOwnInitAllocs, and the patched x/ansi builds no table at start-up
// (third_party/ansi change 2): fails if a package-level table, a big map or
// a pile of regexp.MustCompile comes back.
func TestNoHeavyPackageInit(t *testing.T) {
	inits := initTrace(t, pullceptBinary(t), "help")
	traced := map[string]bool{}
	for _, in := range inits {
		traced[in.pkg] = true
	}
	// The trace must cover the engine, its terminal emulator and screens
	// included, or the test proves nothing.
	for _, pkg := range []string{"runtime", "github.com/charmbracelet/x/vt", "pullcept/tui"} {
		if !traced[pkg] {
			t.Errorf("%s missing from GODEBUG=inittrace=1 (%d packages traced)", pkg, len(inits))
		}
	}
	slices.SortFunc(inits, func(a, b pkgInit) int { return b.allocs - a.allocs })
	total := 0
	for _, in := range inits {
		total += in.allocs
		if strings.HasPrefix(in.pkg, "pullcept/") && in.allocs > maxOwnInitAllocs {
			t.Errorf("package %s allocates %d times (%d bytes) in its initialisation, more than %d for pullcept's own packages: no package-level regexps or tables (compute them on first use)", in.pkg, in.allocs, in.bytes, maxOwnInitAllocs)
		}
		if in.pkg == "github.com/charmbracelet/x/ansi/parser" && in.allocs > 0 {
			t.Errorf("x/ansi's parser package allocates %d times in its initialisation: its transition table is built at start-up again (third_party/ansi change 2)", in.allocs)
		}
	}
	top := inits[:min(5, len(inits))]
	t.Logf("%d packages initialised, %d allocations in all; largest: %v", len(inits), total, top)
}

// BenchmarkStartup measures whole processes, interleaved: every round runs
// each case once, in a new random order, so a machine whose load changes
// moves all of them alike. The cases: a Go hello-world built here (as the
// binaries are: static), `pullcept help`, `pullcept topics list` (an empty
// home, no server), `pullcept hook activity` (no seat: it says so and exits
// 0), a hook call's round trip (`pullcept hook Stop` with a seat's hook
// environment, exec → exit, the POST answered by a `pullcept serve`'s room
// socket), `pullcept sidecar` from exec to its answer to initialize, and
// attaching: `pullcept` in a new pty, from exec to the first bytes on the
// terminal (the client's start-up, its greeting, the terminal passed and
// the server starting the screen, which writes its set-up first) and to
// the first whole frame (its last row, the input line's hint, written);
// and attaching's own start-up, exec → its Hello at a listener, against a
// hello-world that dials the same listener from the same pty. Each
// reports "CASE-ms", its median, and "CASE-over-ms", the median over rounds
// of its time minus the hello-world's in the same round (the sidecar's
// answer minus the hello-world's line read through a pipe): the figure
// docs/performance.md reports against the previous build. Run with
//
//	go test -run XXX -bench Startup -benchtime 300x .
func BenchmarkStartup(b *testing.B) {
	bin := pullceptBinary(b)
	hello := buildStatic(b, "hello", "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello, world\") }\n")
	// A hello-world that dials: connects to the Unix socket in its argument
	// and writes one byte, the reference for attaching's greeting.
	helloDial := buildStatic(b, "hellodial", "package main\n\nimport (\n\t\"net\"\n\t\"os\"\n)\n\nfunc main() {\n\tc, err := net.Dial(\"unix\", os.Args[1])\n\tif err != nil {\n\t\tos.Exit(1)\n\t}\n\tc.Write([]byte{1})\n\tc.Close()\n}\n")
	exe := func(args ...string) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			t0 := time.Now()
			err := exec.Command(args[0], args[1:]...).Run()
			return time.Since(t0), err
		}
	}
	home := b.TempDir()
	env := homeEnv(home)
	exeEnv := func(args ...string) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			cmd := exec.Command(args[0], args[1:]...)
			cmd.Env = env
			t0 := time.Now()
			err := cmd.Run()
			return time.Since(t0), err
		}
	}
	// firstLine starts cmd, writes input to it (if any) and times its first
	// line of output; its exit and the wait are not in the time.
	firstLine := func(cmd *exec.Cmd, input string) (time.Duration, string, error) {
		var in io.WriteCloser
		if input != "" {
			var err error
			if in, err = cmd.StdinPipe(); err != nil {
				return 0, "", err
			}
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			return 0, "", err
		}
		t0 := time.Now()
		if err := cmd.Start(); err != nil {
			return 0, "", err
		}
		if in != nil {
			io.WriteString(in, input)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		d := time.Since(t0)
		if in != nil {
			in.Close()
		}
		if werr := cmd.Wait(); err == nil {
			err = werr
		}
		return d, line, err
	}
	sidecar := func() (time.Duration, error) {
		cmd := exec.Command(bin, "sidecar")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH")} // no room: initialize is still answered
		d, line, err := firstLine(cmd, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}`+"\n")
		if err != nil {
			return 0, err
		}
		if !strings.Contains(line, `"serverInfo"`) {
			return 0, fmt.Errorf("not an initialize answer: %q", line)
		}
		return d, nil
	}
	// The hello-world's first line through a pipe: what the sidecar's
	// answer is compared with.
	helloLine := func() (time.Duration, error) {
		d, _, err := firstLine(exec.Command(hello), "")
		return d, err
	}
	attachWhole := func() (time.Duration, error) {
		ptmx, cmd, t0, err := startOnPty(append(env, "TERM=xterm-256color"), bin)
		if err != nil {
			return 0, err
		}
		defer ptmx.Close()
		buf := make([]byte, 64<<10)
		n, err := ptmx.Read(buf)
		d := time.Since(t0)
		cmd.Process.Signal(syscall.SIGTERM) // detaches
		go io.Copy(io.Discard, ptmx)
		cmd.Wait()
		if n == 0 {
			return 0, fmt.Errorf("attach wrote nothing: %v", err)
		}
		return d, nil
	}
	// The first whole frame: the screen is drawn top to bottom and its last
	// row is the input line, whose hint ends the frame of an empty input.
	attachFrame := func() (time.Duration, error) {
		ptmx, cmd, t0, err := startOnPty(append(env, "TERM=xterm-256color"), bin)
		if err != nil {
			return 0, err
		}
		defer ptmx.Close()
		drawn := make(chan time.Duration, 1)
		go func() {
			var seen []byte
			buf := make([]byte, 64<<10)
			for {
				n, err := ptmx.Read(buf)
				seen = append(seen, buf[:n]...)
				if bytes.Contains(seen, []byte("say something to the room")) {
					drawn <- time.Since(t0)
					io.Copy(io.Discard, ptmx)
					return
				}
				if err != nil {
					return
				}
			}
		}()
		var d time.Duration
		select {
		case d = <-drawn:
		case <-time.After(10 * time.Second):
			err = fmt.Errorf("no whole frame after 10 s")
		}
		cmd.Process.Signal(syscall.SIGTERM) // detaches
		cmd.Wait()
		return d, err
	}
	// A hook call's round trip: a seat of a `pullcept serve` writes its
	// environment to a file; `pullcept hook Stop` runs with the hook
	// target read from it (what a CLI's hook inherits) and its POST is
	// answered by the seat's room before it exits. It says nothing on
	// stderr unless the call failed.
	hookHome := b.TempDir()
	envFile := filepath.Join(hookHome, "seat.env")
	config := fmt.Sprintf(`{"accounts":[{"id":"bench","name":"Bench","kind":"cli","command":"sh -c 'env > %s.tmp; mv %s.tmp %s; exec sleep 600'"}]}`+"\n", envFile, envFile, envFile)
	if err := os.WriteFile(filepath.Join(hookHome, "config.json"), []byte(config), 0o600); err != nil {
		b.Fatal(err)
	}
	serve := exec.Command(bin, "serve")
	serve.Env = homeEnv(hookHome)
	serveIn, err := serve.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	serveOut, err := serve.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := serve.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		serveIn.Close() // serve stops its seats and exits
		serve.Wait()
	}()
	serveLines := bufio.NewReader(serveOut)
	var ready struct{ Topic string }
	if line, err := serveLines.ReadString('\n'); err != nil || json.Unmarshal([]byte(line), &ready) != nil || ready.Topic == "" {
		b.Fatalf("pullcept serve: ready line %q, %v", line, err)
	}
	fmt.Fprintf(serveIn, `{"cmd":"start","account":"bench","topic":%q,"id":"bench-start"}`+"\n", ready.Topic)
	for {
		line, err := serveLines.ReadString('\n')
		if err != nil {
			b.Fatalf("pullcept serve: %v", err)
		}
		if strings.Contains(line, `"bench-start"`) {
			if !strings.Contains(line, `"event":"start"`) {
				b.Fatalf("pullcept serve: starting the seat: %s", line)
			}
			break
		}
	}
	go io.Copy(io.Discard, serveOut) // its events, not read
	hookEnv := []string{"PATH=" + os.Getenv("PATH")}
	for deadline := time.Now().Add(30 * time.Second); ; {
		if data, err := os.ReadFile(envFile); err == nil {
			for kv := range strings.Lines(string(data)) {
				if strings.HasPrefix(kv, "PULLCEPT_HOOK_") {
					hookEnv = append(hookEnv, strings.TrimSuffix(kv, "\n"))
				}
			}
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the seat wrote no environment in 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if len(hookEnv) != 5 {
		b.Fatalf("the seat's hook environment: %q", hookEnv)
	}
	hookCall := func() (time.Duration, error) {
		cmd := exec.Command(bin, "hook", "Stop")
		cmd.Env = hookEnv
		cmd.Stdin = strings.NewReader(`{"hook_event_name":"Stop","session_id":"bench"}`)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		t0 := time.Now()
		err := cmd.Run()
		d := time.Since(t0)
		if err == nil && stderr.Len() > 0 {
			err = fmt.Errorf("the call failed: %s", stderr.Bytes())
		}
		return d, err
	}
	// Attaching's own start-up: exec → its Hello at a listener standing in
	// for the server (which then hangs up: the client says so and exits).
	// The whole attach, the server's screen set-up included, is the
	// "attach" run below.
	greetHome := b.TempDir()
	gd, err := dirs.Resolve(func(k string) string {
		if k == "PULLCEPT_HOME" {
			return greetHome
		}
		return ""
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := gd.Ensure(); err != nil {
		b.Fatal(err)
	}
	ln, err := attach.Listen(attach.SocketPath(gd.Runtime))
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	greeted := make(chan time.Time, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			var hdr [1]byte
			if _, err := io.ReadFull(c, hdr[:]); err == nil {
				greeted <- time.Now()
			}
			c.Close()
		}
	}()
	greetEnv := append(homeEnv(greetHome), "TERM=xterm-256color")
	greetOnPty := func(argv ...string) func() (time.Duration, error) {
		return func() (time.Duration, error) {
			ptmx, cmd, t0, err := startOnPty(greetEnv, argv...)
			if err != nil {
				return 0, err
			}
			defer ptmx.Close()
			go io.Copy(io.Discard, ptmx)
			select {
			case at := <-greeted:
				cmd.Wait()
				return at.Sub(t0), nil
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				cmd.Wait()
				return 0, fmt.Errorf("%s sent nothing to the listener", argv[0])
			}
		}
	}
	cases := []struct {
		name string
		once func() (time.Duration, error)
	}{
		{"hello-world", exe(hello)},
		{"help", exe(bin, "help")},
		{"topics-list", exeEnv(bin, "topics", "list")},
		{"hook", exeEnv(bin, "hook", "activity")},
		{"hook-round-trip", hookCall},
		{"sidecar-initialize", sidecar},
		{"hello-world-line", helloLine},
		{"attach-hello", greetOnPty(bin)},
		{"hello-world-dial", greetOnPty(helloDial, attach.SocketPath(gd.Runtime))},
	}

	// Topics and hooks first, with no server; attaching needs one.
	measure := func(b *testing.B, cases []struct {
		name string
		once func() (time.Duration, error)
	}) {
		d := make([][]time.Duration, len(cases))
		order := make([]int, len(cases))
		for i := range order {
			order[i] = i
		}
		for b.Loop() {
			rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
			for _, i := range order {
				t, err := cases[i].once()
				if err != nil {
					b.Fatalf("%s: %v", cases[i].name, err)
				}
				d[i] = append(d[i], t)
			}
		}
		over := func(i, base int) float64 {
			o := make([]time.Duration, len(d[i]))
			for r := range o {
				o[r] = d[i][r] - d[base][r]
			}
			return ms(median(o))
		}
		index := func(name string) int {
			return slices.IndexFunc(cases, func(c struct {
				name string
				once func() (time.Duration, error)
			}) bool {
				return c.name == name
			})
		}
		line, dial := index("hello-world-line"), index("hello-world-dial")
		for i, c := range cases {
			b.ReportMetric(ms(median(d[i])), c.name+"-ms")
			switch {
			case strings.HasPrefix(c.name, "hello-world"):
			case (c.name == "sidecar-initialize" || c.name == "attach-hello") && line >= 0:
				// exec → the answer, against exec → the hello-world's line
				b.ReportMetric(over(i, line), c.name+"-over-ms")
				if c.name == "attach-hello" && dial >= 0 {
					// and against a hello-world dialling the same listener
					b.ReportMetric(over(i, dial), c.name+"-over-dial-ms")
				}
			default:
				b.ReportMetric(over(i, 0), c.name+"-over-ms")
			}
		}
	}
	b.Run("commands", func(b *testing.B) { measure(b, cases) })

	server := exec.Command(bin, "server")
	server.Env = env
	stderr, err := server.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := server.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		server.Process.Signal(syscall.SIGTERM)
		server.Wait()
	}()
	if line, _ := bufio.NewReader(stderr).ReadString('\n'); !strings.HasPrefix(line, "pullcept server: pid") {
		b.Fatalf("pullcept server: %q", line)
	}
	go io.Copy(io.Discard, stderr)
	b.Run("attach", func(b *testing.B) {
		measure(b, []struct {
			name string
			once func() (time.Duration, error)
		}{cases[0], {"attach-first-output", attachWhole}, {"attach-first-frame", attachFrame}})
	})
}

// startOnPty starts argv as the session leader of a new 120x40 pty (its
// controlling terminal on stdin, stdout and stderr) and returns the pty's
// master, the command and when it was started.
func startOnPty(env []string, argv ...string) (*os.File, *exec.Cmd, time.Time, error) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 120})
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	t0 := time.Now()
	err = cmd.Start()
	tty.Close()
	if err != nil {
		ptmx.Close()
		return nil, nil, time.Time{}, err
	}
	return ptmx, cmd, t0, nil
}

// buildStatic builds the Go program source as a static binary named name
// in a temporary folder.
func buildStatic(b *testing.B, name, source string) string {
	b.Helper()
	dir := b.TempDir()
	src, bin := filepath.Join(dir, name+".go"), filepath.Join(dir, name)
	if err := os.WriteFile(src, []byte(source), 0o644); err != nil {
		b.Fatal(err)
	}
	build := exec.Command("go", "build", "-o", bin, src)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build %s: %v\n%s", name, err, out)
	}
	return bin
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / 1e6 }
