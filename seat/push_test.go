package seat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPushURLConfig: "push_url" is off unless config.json names an http or
// https address; anything else is a config error and push stays off.
func TestPushURLConfig(t *testing.T) {
	for _, tc := range []struct{ json, want, err string }{
		{`{}`, "", ""},
		{`{"push_url":""}`, "", ""},
		{`{"push_url":"https://ntfy.example/topic"}`, "https://ntfy.example/topic", ""},
		{`{"push_url":"ftp://x/y"}`, "", "push_url"},
		{`{"push_url":"not a url"}`, "", "push_url"},
		{`{"push_url":5}`, "", "push_url"},
	} {
		path := filepath.Join(t.TempDir(), "config.json")
		if err := os.WriteFile(path, []byte(tc.json), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, errs := Load(path)
		var msgs []string
		for _, e := range errs {
			msgs = append(msgs, e.Error())
		}
		all := strings.Join(msgs, "; ")
		if cfg.PushURL != tc.want || (tc.err == "") != (all == "") || !strings.Contains(all, tc.err) {
			t.Errorf("%s: push_url %q, errors %q", tc.json, cfg.PushURL, all)
		}
	}
}
