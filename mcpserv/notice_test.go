package mcpserv

import (
	"strings"
	"testing"
)

func TestPrompted(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"[issue_comment] acme/web-app\naction: created\n#42 Fix\nby alice\nhttps://github.com/acme/web-app/issues/42",
			"[issue_comment] acme/web-app\naction: created\n#42 Fix\nby alice\n" + MarkLine("id1") + "\nhttps://github.com/acme/web-app/issues/42"},
		{"[push] acme/web-app\nby bob", "[push] acme/web-app\nby bob\n" + MarkLine("id1")},
		{"[installation] \naction: created\nby alice", "[installation] \naction: created\nby alice\n" + MarkLine("id1")},
		{"[x] r\nhttp://a b", "[x] r\nhttp://a b\n" + MarkLine("id1")}, // a space: no URL line
		{"http://only", MarkLine("id1") + "\nhttp://only"},
	} {
		if got := Prompted(c.in, "id1"); got != c.want {
			t.Errorf("Prompted(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := Text("[push] r\nhttps://u", "e", "Lin"); got != "署名: Lin\n[push] r\n"+MarkLine("e")+"\nhttps://u" {
		t.Fatalf("Text = %q", got)
	}
	if !strings.HasPrefix(MarkLine("z"), "If this is your own operation, mark it processed now: event_id=") {
		t.Fatal("the fixed line changed")
	}
}

func TestWantsSignature(t *testing.T) {
	for content, want := range map[string]string{
		"[issue_comment] r\naction: created\n#1 t":               "issue_comment",
		"[pull_request_review_comment] r\naction: created":       "pull_request_review_comment",
		"[discussion_comment] r\naction: created\n# t":           "discussion_comment",
		"[issues] r\naction: opened\n#1 t":                       "issues",
		"[pull_request] r\naction: opened":                       "pull_request",
		"[pull_request_review] r\naction: submitted":             "pull_request_review",
		"[issue_comment] r\naction: edited":                      "",
		"[issues] r\naction: closed":                             "",
		"[issues] r\naction: labeled":                            "",
		"[workflow_run] r\naction: completed":                    "",
		"[push] r\nby bob":                                       "",
		"[issue_comment] r\nby bob":                              "",
		"issue_comment r\naction: created":                       "",
		"[pull_request_review_thread] r\naction: resolved":       "",
		"[issues] r\n#1 action: opened\naction: deleted\nby bob": "",
	} {
		kind, ok := WantsSignature(content)
		if (want != "") != ok || (ok && kind != want) {
			t.Errorf("%q: %q %v, want %q", content, kind, ok, want)
		}
	}
}

func TestSignature(t *testing.T) {
	for body, want := range map[string]string{
		"Looks good.\n\n— Lin":            "Lin",
		"Looks good.\r\n— Lay\r\n":        "Lay",
		"— Lin  ":                         "Lin",
		"x\n— Claude Lin":                 "Claude Lin",
		"x\n—  Lin":                       "", // two spaces
		"x\n—Lin":                         "", // no space
		"x\n- Lin":                        "", // a hyphen
		"x\n– Lin":                        "", // an en dash
		"x\n — Lin":                       "", // not at the start
		"— Lin\nmore":                     "", // not the last line
		"x\n— ":                           "",
		"":                                "",
		"x\n— " + strings.Repeat("n", 65): "",
	} {
		if got := Signature(body); got != want {
			t.Errorf("Signature(%q) = %q, want %q", body, got, want)
		}
	}
	rec := `{"id":"e","type":"issue_comment","payload":{"comment":{"body":"ok\n— Lin"},"issue":{"body":"— Other"}}}`
	if got := Signer(rec, "issue_comment"); got != "Lin" {
		t.Fatalf("Signer = %q", got)
	}
	if got := Signer(rec, "issues"); got != "Other" {
		t.Fatalf("Signer issues = %q", got)
	}
	for _, bad := range []string{"Event e not found", `{"payload":{}}`, `{"payload":{"comment":{"body":3}}}`} {
		if got := Signer(bad, "issue_comment"); got != "" {
			t.Errorf("Signer(%q) = %q", bad, got)
		}
	}
}
