package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzAppendString: the hand-written JSON string is one line of valid JSON
// and reads back as encoding/json's own encoding does.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "plain", "quote \" back \\ slash", "line\nbreak\r\ttab\x00\x1f", "é 😀 \u2028\u2029", "bad \xff\xfe utf-8", "<a&b>"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := AppendString(nil, s)
		if !json.Valid(got) || bytes.ContainsAny(got, "\n\r") {
			t.Fatalf("AppendString(%q) = %s: not one line of JSON", s, got)
		}
		want, _ := json.Marshal(s)
		var a, b string
		json.Unmarshal(got, &a)
		json.Unmarshal(want, &b)
		if a != b {
			t.Fatalf("AppendString(%q) reads back as %q, encoding/json's as %q", s, a, b)
		}
	})
}
