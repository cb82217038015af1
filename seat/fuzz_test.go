package seat

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pullcept/room/wire"
)

// FuzzLoadConfig: any config.json loads without panicking; every account
// that loads is valid, has a unique id, and every problem names the file.
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		`{"accounts":[{"id":"claude","name":"Lin","kind":"claude_code"}]}`,
		`{"accounts":[{"id":"a","name":"A","kind":"cli","command":"x {session_id}","resume":"x -r {session_id}","env":{"K":"v"},"hue":200}]}`,
		`{"accounts":[{"id":"a"},{"id":"a","name":"B","kind":"nope"}],"extra":1}`,
		`{"hibernate_after":"20m","push_url":"https://ntfy.example/t","agent_posts_per_person_post":3,"agent_loop":"hold","accounts":[]}`,
		`{"hibernate_after":"0.5s","push_url":"file:///etc/passwd","agent_posts_per_person_post":-1,"agent_loop":7}`,
		`[]`, `{`, `null`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, errs := Load(path)
		seen := map[string]bool{}
		for _, a := range cfg.Accounts {
			if !ValidAccountID(a.ID) || !a.Kind.Valid() || seen[a.ID] {
				t.Fatalf("loaded an invalid or repeated account %+v", a)
			}
			seen[a.ID] = true
		}
		for _, err := range errs {
			ce, ok := err.(*ConfigError)
			if !ok || ce.File != path {
				t.Fatalf("problem without the file: %v", err)
			}
		}
	})
}

// FuzzReadCodexSessionMeta: a rollout file's first line is outside input.
func FuzzReadCodexSessionMeta(f *testing.F) {
	f.Add([]byte(`{"type":"session_meta","payload":{"id":"0193","cwd":"/x","timestamp":"2026-10-01T00:00:00Z","originator":"codex_cli_rs"}}` + "\n"))
	f.Add([]byte("garbage\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "rollout.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		_, _ = ReadCodexSessionMeta(path) // must not panic or hang
	})
}

// FuzzCodexUsageLines: a rollout is the CLI's file, outside input. Any
// bytes, fed in any split, report only sane figures: percentages finite
// and not negative, the context at most 100 %, reset times RFC 3339,
// model and effort on one line; and nothing panics.
func FuzzCodexUsageLines(f *testing.F) {
	// The seeds are the recorded rollouts' lines with figures, one a seed
	// (a long one as the fields read of it), and the limit's two lines
	// together: a whole 21 KB rollout as a seed made the fuzzer spend its
	// minute of minimizing (a run per byte removed) on every new input
	// grown from it, 5 executions in 20 s.
	for _, name := range []string{"limit-0.171.0.jsonl", "effort-0.171.0.jsonl"} {
		b, err := os.ReadFile(filepath.Join("testdata", "codex_usage", name))
		if err != nil {
			f.Fatal(err)
		}
		var limit []byte
		for _, l := range bytes.SplitAfter(b, []byte("\n")) {
			if !slices.ContainsFunc(codexUsageMarks, func(m []byte) bool { return bytes.Contains(l, m) }) {
				continue
			}
			if len(l) > 1024 { // only what is read of it, re-encoded
				var v codexUsageLine
				if err := json.Unmarshal(l, &v); err != nil {
					f.Fatal(err)
				}
				short, _ := json.Marshal(v)
				f.Add(append(short, '\n'), uint8(7))
			} else {
				f.Add(l, uint8(7))
			}
			if name == "limit-0.171.0.jsonl" && (bytes.Contains(l, []byte(`"used_percent":100`)) || bytes.Contains(l, []byte(`"usage_limit_exceeded"`))) {
				limit = append(limit, l...)
			}
		}
		if limit != nil {
			f.Add(limit, uint8(40))
		}
	}
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":-1e309,"window_minutes":300,"resets_at":1e300}}}}`+"\n"), uint8(1))
	f.Add([]byte("not json\n{\"type\":\n"), uint8(3))
	// A plan with a weekly window only, then its limit.
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":null,"rate_limits":{"primary":{"used_percent":100,"window_minutes":10080,"resets_at":1800100000},"secondary":null}}}`+"\n"+
		`{"type":"event_msg","payload":{"type":"task_complete","error":{"message":"m","codex_error_info":"usage_limit_exceeded"}}}`+"\n"), uint8(9))
	f.Fuzz(func(t *testing.T, data []byte, split uint8) {
		var got []wire.UsageReport
		tail := &codexUsageTail{report: func(r wire.UsageReport) { got = append(got, r) }, now: func() time.Time { return time.Unix(1_800_000_000, 0) }}
		step := int(split)%64 + 1
		for i := 0; i < len(data); i += step {
			tail.feed(data[i:min(i+step, len(data))])
			tail.flush(false)
		}
		for _, r := range got {
			for _, w := range []*wire.Window{r.FiveHour, r.SevenDay} {
				if w == nil {
					continue
				}
				if w.UsedPercentage < 0 || math.IsNaN(w.UsedPercentage) || math.IsInf(w.UsedPercentage, 0) {
					t.Fatalf("window percentage %v", w.UsedPercentage)
				}
				if _, err := time.Parse(time.RFC3339, w.ResetsAt); w.ResetsAt != "" && err != nil {
					t.Fatalf("reset time %q", w.ResetsAt)
				}
			}
			if c := r.Context; c != nil && (*c < 0 || *c > 100 || math.IsNaN(*c)) {
				t.Fatalf("context %v", *c)
			}
			if r.Model != wire.OneLine(r.Model) || r.Effort != wire.OneLine(r.Effort) {
				t.Fatalf("model %q / effort %q not one safe line", r.Model, r.Effort)
			}
		}
	})
}
