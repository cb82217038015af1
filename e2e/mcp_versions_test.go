package e2e

// The MCP protocol versions the real Claude Code speaks with `pullcept
// sidecar` (mcp-go's server), read off the wire: the pinned CLI and the
// newest each check the sidecar (`claude mcp list`) through a tee that keeps
// every line both ways. The newest opens with the 2026-07-28 discovery
// (server/discover) and must get an answer, not a fallback.

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/clihome"
)

func TestClaudeMCPProtocolVersions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		find   func() (clihome.Bins, error)
		modern bool // known to open with server/discover at 2026-07-28
	}{
		{"pinned", clihome.FindBins, false},
		{"newest", clihome.FindLatestBins, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bins, err := tc.find()
			if err != nil {
				required(t, err.Error())
			}
			s := startServe(t, t.TempDir())
			cwd, dir := t.TempDir(), t.TempDir()
			h := clihome.New(t, clihome.Options{BaseURL: "http://127.0.0.1:9", Cwd: cwd})
			in, out := filepath.Join(dir, "in.jsonl"), filepath.Join(dir, "out.jsonl")
			server := map[string]any{"type": "stdio", "command": "/bin/sh",
				"args": []string{"-c", `tee -a "$MCP_IN" | "$PULLCEPT_BIN" sidecar | tee -a "$MCP_OUT"`},
				"env": map[string]string{
					"MCP_IN": in, "MCP_OUT": out, "PULLCEPT_BIN": pullceptBin,
					"PULLCEPT_ROOM_URL": s.url(), "PULLCEPT_ROOM_TOKEN": s.token(), "PULLCEPT_AGENT_NAME": "Lin", "PULLCEPT_ROOM_ID": s.topic(),
				}}
			b, _ := json.Marshal(server)
			claude := func(args ...string) string {
				ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, bins.Claude, args...)
				cmd.Env, cmd.Dir = h.Env, cwd
				o, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("claude %v: %v\n%s", args, err, o)
				}
				return string(o)
			}
			claude("mcp", "add-json", "--scope", "user", "room", string(b))
			if o := claude("mcp", "list"); !strings.Contains(o, "room:") || !strings.Contains(o, "Connected") {
				t.Fatalf("claude mcp list:\n%s", o)
			}
			sent, answered := jsonLines(t, in), jsonLines(t, out)
			if len(sent) == 0 {
				t.Fatal("Claude sent nothing")
			}
			first := sent[0]
			version := ""
			if p, _ := first["params"].(map[string]any); p != nil {
				version, _ = p["protocolVersion"].(string)
				if meta, _ := p["_meta"].(map[string]any); meta != nil && version == "" {
					version, _ = meta["io.modelcontextprotocol/protocolVersion"].(string)
				}
			}
			t.Logf("Claude Code (%s) opens with %v at %s", tc.name, first["method"], version)
			discovered := false
			for _, m := range sent {
				if m["method"] != "server/discover" {
					continue
				}
				for _, a := range answered {
					if a["id"] != m["id"] {
						continue
					}
					r, _ := a["result"].(map[string]any)
					if r == nil {
						t.Errorf("server/discover was answered %v", a)
						continue
					}
					vs, _ := json.Marshal(r["supportedVersions"])
					if !strings.Contains(string(vs), `"2026-07-28"`) || !strings.Contains(r["instructions"].(string), "Lin") {
						t.Errorf("server/discover's result: %v", r)
					}
					discovered = true
				}
			}
			if tc.modern && !discovered {
				t.Errorf("the newest Claude Code did not speak 2026-07-28 (server/discover answered): it sent %v", methods(sent))
			}
			if !tc.modern && (first["method"] != "initialize" || version == "") {
				t.Errorf("the pinned Claude Code opened with %v %q, want initialize", first["method"], version)
			}
		})
	}
}

// jsonLines reads a file of JSON lines.
func jsonLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}

func methods(ms []map[string]any) []any {
	var out []any
	for _, m := range ms {
		if m["method"] != nil {
			out = append(out, m["method"])
		}
	}
	return out
}
