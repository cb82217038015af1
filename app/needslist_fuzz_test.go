package app

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzPermissionPayload: whatever a CLI's PermissionRequest body holds,
// what the needs-you list keeps of it (the tool's input, a question and its
// choices) is read without a panic, and the input is valid UTF-8 cut to its
// bound.
func FuzzPermissionPayload(f *testing.F) {
	f.Add([]byte(`{"tool_name":"Bash","tool_input":{"command":"rm -rf build","description":"x"},"permission_suggestions":[{"type":"addRules"}]}`))
	f.Add([]byte(`{"tool_name":"shell","tool_input":{"command":["bash","-lc","ls"]}}`))
	f.Add([]byte(`{"tool_name":"AskUserQuestion","tool_input":{"questions":[{"question":"Which?","options":[{"label":"Red"},{"label":"Blue"}]}]}}`))
	f.Add([]byte(`{"tool_input":{"command":"` + strings.Repeat("\x1b[31m", 2000) + `"}}`))
	f.Add([]byte(`{"tool_input":"\xff\xfe"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var p permissionPayload
		_ = json.Unmarshal(body, &p)
		in := toolInput(p.ToolInput)
		if !utf8.ValidString(in) {
			t.Fatalf("input not UTF-8: %q", in)
		}
		if len(in) > maxInput+len("… (99999999999 more bytes)") {
			t.Fatalf("input of %d bytes, bound %d", len(in), maxInput)
		}
		question(p.ToolInput) // a question is cut and made one line where it is kept
	})
}
