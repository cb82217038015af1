package room

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestTakeMentions(t *testing.T) {
	t.Parallel()
	names := []string{"Claude", "Claude Lay", "Lin", "リン"}
	cases := []struct {
		name, body, want string
		to               []string
	}{
		{"start", "@Lin hello", "hello", []string{"Lin"}},
		{"longest wins", "@Claude Lay please look", "please look", []string{"Claude Lay"}},
		{"shorter when longer does not fit", "@Claude Layer", "Layer", []string{"Claude"}},
		{"nothing fits", "@ClaudeX hi", "@ClaudeX hi", nil},
		{"shorter at space", "@Claude please", "please", []string{"Claude"}},
		{"case-insensitive, room spelling", "@lin hi", "hi", []string{"Lin"}},
		{"full-width at", "＠Lin こんにちは", "こんにちは", []string{"Lin"}},
		{"japanese name and punctuation kept", "＠リン、見て", "、見て", []string{"リン"}},
		{"no space before needed", "これを@Lin 見て", "これを見て", []string{"Lin"}},
		{"end of line takes space before", "hello @Lin", "hello", []string{"Lin"}},
		{"end of line in the middle", "hello @Lin\nnext", "hello\nnext", []string{"Lin"}},
		{"line of mentions only goes whole", "@Lin @Claude\nhello", "hello", []string{"Lin", "Claude"}},
		{"name must end at boundary", "@Linda hi", "@Linda hi", nil},
		{"unknown stays", "@nobody hi", "@nobody hi", nil},
		{"duplicates dropped", "@Lin a @lin b", "a b", []string{"Lin"}},
		{"punctuation after kept", "ask @Lin, then go", "ask , then go", []string{"Lin"}},
		{"only mentions", "@Lin", "", []string{"Lin"}},
		{"no at", "plain text", "plain text", nil},
		{"bare at", "@ hi", "@ hi", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, to := TakeMentions(c.body, names)
			if got != c.want || !reflect.DeepEqual(to, c.to) {
				t.Fatalf("TakeMentions(%q) = %q %v, want %q %v", c.body, got, to, c.want, c.to)
			}
		})
	}
}

func FuzzTakeMentions(f *testing.F) {
	for _, s := range []string{"@Lin hi", "＠リン、", "a @Claude Lay\n@Lin\n", "@", "\xff@Lin"} {
		f.Add(s)
	}
	names := []string{"Lin", "Claude", "Claude Lay", "リン", "İ"}
	f.Fuzz(func(t *testing.T, body string) {
		got, to := TakeMentions(body, names)
		if len(to) == 0 && got != body {
			t.Fatalf("no mention taken but body changed: %q -> %q", body, got)
		}
		if len(got) > len(body) {
			t.Fatalf("body grew: %q -> %q", body, got)
		}
		for _, n := range to {
			found := false
			for _, m := range names {
				found = found || m == n
			}
			if !found {
				t.Fatalf("addressee %q is not a participant", n)
			}
		}
		if utf8.ValidString(body) && !utf8.ValidString(got) {
			t.Fatalf("valid UTF-8 became invalid: %q -> %q", body, got)
		}
		_ = strings.Count(got, "@")
	})
}
