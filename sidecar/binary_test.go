package sidecar_test

// The sidecar as a process, the way a CLI launches it: a test binary whose
// `sidecar` subcommand is sidecar.Run (testdata/cmd), spoken to over its
// stdio by raw JSON-RPC, by mcp-go's stdio client and by the official
// TypeScript SDK client.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"pullcept/sidecar"
)

var (
	buildOnce sync.Once
	buildDir  string
	buildBin  string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// binary builds testdata/cmd once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "pullcept-sidecar-test")
		if buildErr != nil {
			return
		}
		buildBin = filepath.Join(buildDir, "pullcept")
		out, err := exec.Command("go", "build", "-o", buildBin, "./testdata/cmd").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ./testdata/cmd: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return buildBin
}

// rpc is a raw JSON-RPC conversation with a sidecar process.
type rpc struct {
	t      *testing.T
	in     io.WriteCloser
	lines  chan string
	stderr *bytes.Buffer
	cmd    *exec.Cmd
	done   chan error
	all    []string // every stdout line
}

func startRaw(t *testing.T, env []string) *rpc {
	t.Helper()
	cmd := exec.Command(binary(t), "sidecar")
	cmd.Env = env
	r := &rpc{t: t, lines: make(chan string, 64), stderr: &bytes.Buffer{}, cmd: cmd, done: make(chan error, 1)}
	cmd.Stderr = r.stderr
	var err error
	if r.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
		r.done <- cmd.Wait()
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return r
}

func (r *rpc) send(v map[string]any) {
	r.t.Helper()
	v["jsonrpc"] = "2.0"
	b, _ := json.Marshal(v)
	if _, err := r.in.Write(append(b, '\n')); err != nil {
		r.t.Fatal(err)
	}
}

// answer reads stdout until the response to id.
func (r *rpc) answer(id int) map[string]any {
	r.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		select {
		case line, ok := <-r.lines:
			if !ok {
				r.t.Fatalf("stdout closed before the answer to %d; stderr:\n%s", id, r.stderr)
			}
			r.all = append(r.all, line)
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				r.t.Fatalf("stdout carried a line that is not JSON: %q", line)
			}
			if m["id"] == float64(id) {
				return m
			}
		case <-deadline:
			r.t.Fatalf("no answer to %d; stderr:\n%s", id, r.stderr)
		}
	}
}

func TestBinaryWithoutItsEnvAnswersAndNamesWhatIsMissing(t *testing.T) {
	t.Parallel()
	r := startRaw(t, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()})
	r.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"},
	}})
	init := r.answer(1)
	res, _ := init["result"].(map[string]any)
	if res == nil || !strings.Contains(fmt.Sprint(res["instructions"]), "say_to_room") {
		t.Fatalf("initialize: %v", init)
	}
	r.send(map[string]any{"method": "notifications/initialized"})
	for i, tool := range []string{sidecar.ToolSay, sidecar.ToolHistory, sidecar.ToolUsage} {
		r.send(map[string]any{"id": 10 + i, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": map[string]any{"content": "hi"}}})
		ans := r.answer(10 + i)
		res, _ := ans["result"].(map[string]any)
		if res == nil || res["isError"] != true {
			t.Fatalf("%s: %v", tool, ans)
		}
		text := fmt.Sprint(res["content"])
		for _, k := range []string{sidecar.EnvRoomURL, sidecar.EnvRoomToken, sidecar.EnvAgentName, sidecar.EnvRoomID} {
			if !strings.Contains(text, k) {
				t.Errorf("%s does not name %s: %s", tool, k, text)
			}
		}
	}
	// stdin ends: the process ends, cleanly, having written only MCP to stdout.
	r.in.Close()
	for line := range r.lines {
		r.all = append(r.all, line)
	}
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("exit: %v; stderr:\n%s", err, r.stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the sidecar did not exit when stdin closed")
	}
	for _, line := range r.all {
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil || m["jsonrpc"] != "2.0" {
			t.Fatalf("stdout carried a non-MCP line: %q", line)
		}
	}
	if !strings.Contains(r.stderr.String(), "missing") {
		t.Fatalf("stderr does not report what is missing:\n%s", r.stderr)
	}
}

func TestBinaryOverStdioWithMCPGoClient(t *testing.T) {
	t.Parallel()
	h := newRoom(t, "topic-bin")
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		sidecar.EnvRoomURL + "=" + h.srv.URL(), sidecar.EnvRoomToken + "=" + token,
		sidecar.EnvAgentName + "=Lin", sidecar.EnvRoomID + "=topic-bin",
		sidecar.EnvAccountID + "=acc-bin", sidecar.EnvUnseenHistory + "=1",
	}
	c, err := client.NewStdioMCPClient(binary(t), env, "sidecar")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = "2025-06-18"
	req.Params.ClientInfo = mcp.Implementation{Name: "stdio-test", Version: "0"}
	init, err := c.Initialize(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if init.Instructions != sidecar.Instructions("Lin", true) {
		t.Fatalf("instructions over stdio: %q", init.Instructions)
	}
	h.until("Lin seated", func() bool { return h.seated("topic-bin", "Lin") })
	call := mcp.CallToolRequest{}
	call.Params.Name = sidecar.ToolSay
	call.Params.Arguments = map[string]any{"content": "over stdio", "to": "you"}
	res, err := c.CallTool(ctx, call)
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(mcp.TextContent).Text
	if res.IsError || !strings.HasPrefix(text, sidecar.DeliveredPrefix) {
		t.Fatalf("say over stdio: %q", text)
	}
	posts := h.logged("topic-bin")
	if len(posts) != 1 || posts[0].Speaker != "Lin" || posts[0].Account != "acc-bin" || posts[0].Content != "over stdio" ||
		!sameID(posts[0].MessageID, text) {
		t.Fatalf("log %+v", posts)
	}
}

// npmPrefix is where the pinned npm packages are installed
// (.ci/install-clis.sh).
func npmPrefix(t *testing.T) string {
	if p := os.Getenv("PULLCEPT_NPM_PREFIX"); p != "" {
		return p
	}
	p, err := filepath.Abs(filepath.Join("..", ".cache", "npm"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		skipUnlessRequired(t, "node is not installed")
	}
	prefix := npmPrefix(t)
	if _, err := os.Stat(filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		skipUnlessRequired(t, fmt.Sprintf("@modelcontextprotocol/sdk is not installed under %s (run .ci/install-clis.sh)", prefix))
	}
	h := newRoom(t, "topic-node", "topic-node-other")
	last := ""
	for _, body := range []string{"h1", "h2", "h3"} {
		o, err := h.e.PostAsPerson("topic-node", body, last)
		if err != nil || !o.Delivered {
			t.Fatal(err, o)
		}
		last = o.Post.MessageID
	}

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "sdk_client.mjs"))
	cmd.Env = append(os.Environ(),
		"SDK_PREFIX="+prefix, "SIDECAR_BIN="+binary(t),
		"ROOM_URL="+h.srv.URL(), "ROOM_TOKEN="+token,
		"TOPIC=topic-node", "OTHER_TOPIC=topic-node-other",
		fmt.Sprintf("LIMIT=%d", sidecar.MaxInstructionsUTF16),
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	var got struct {
		Posted, Resent string
		Instructions   int
	}
	if err := json.Unmarshal(bytes.TrimSpace(stdout.Bytes()), &got); err != nil {
		t.Fatalf("node output %q: %v", stdout.String(), err)
	}
	t.Logf("SDK client: instructions %d UTF-16 units", got.Instructions)

	// What the SDK client did is in the room's log, in its own topic only.
	var lines []string
	for _, p := range h.logged("topic-node") {
		lines = append(lines, fmt.Sprintf("%s|%s|%s|%v", p.MessageID, p.Speaker, p.Content, p.To))
	}
	want := []string{
		got.Posted + "|Lin|node hello|[Lay]",
		got.Resent + "|Lay|node reply|[Lin]",
	}
	if len(lines) != 5 || lines[3] != want[0] || lines[4] != want[1] {
		t.Fatalf("topic-node log:\n%s\nwant the last two:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	other := h.logged("topic-node-other")
	if len(other) != 1 || other[0].Content != "elsewhere" || other[0].Speaker != "Other" {
		t.Fatalf("topic-node-other log %+v", other)
	}
}

// skipUnlessRequired skips, or fails on CI where PULLCEPT_REQUIRE_CLIS says
// the real clients must be there.
func skipUnlessRequired(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("PULLCEPT_REQUIRE_CLIS") != "" {
		t.Fatal("required but missing: " + why)
	}
	t.Skip(why)
}

// sameID says whether a say_to_room result names message id.
func sameID(id, text string) bool {
	got, ok := sidecar.DeliveredID(text)
	return ok && got == id
}
