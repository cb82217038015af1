package mcpserv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// The wrapper ends the bridge when its stdin ends, though the bridge keeps
// a timer alive and listens to stdin's data only (as the real one does with
// its WebSocket up). FindBridge finds it once the package is beside it.
func TestBridgeWrapperEndsWithStdin(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	dir := t.TempDir()
	src, err := os.ReadFile("bridge/webhook-bridge.mjs")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, BridgeScript), src, 0o644)
	pkg := filepath.Join(dir, "node_modules", "github-webhook-mcp")
	os.MkdirAll(filepath.Join(pkg, "server"), 0o755)
	os.WriteFile(filepath.Join(pkg, "package.json"), []byte(`{"name":"github-webhook-mcp","type":"module"}`), 0o644)
	os.WriteFile(filepath.Join(pkg, "server", "index.js"), []byte(
		"process.stdin.on('data', () => {});\nsetInterval(() => {}, 25000);\nprocess.stderr.write('bridge up\\n');\n"), 0o644)
	bridge := FindBridge([]string{dir})
	if bridge == "" {
		t.Fatal("FindBridge did not find the installed wrapper")
	}
	cmd := exec.Command(node, bridge)
	stdin, _ := cmd.StdinPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	if n, err := stderr.Read(buf); err != nil || string(buf[:n]) != "bridge up\n" {
		t.Fatalf("the bridge did not load: %q %v", buf[:n], err)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit: %v", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the bridge outlived its stdin")
	}
}
