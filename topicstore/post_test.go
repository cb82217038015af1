package topicstore

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestLineFieldOrderAndOmission(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		post Post
		want string
	}{
		{
			name: "required only",
			post: Post{MessageID: "m1", Speaker: "alice", Content: "hi", TS: "2026-08-27T10:00:00Z"},
			want: `{"message_id":"m1","speaker":"alice","content":"hi","ts":"2026-08-27T10:00:00Z"}` + "\n",
		},
		{
			name: "every field",
			post: Post{MessageID: "m2", Speaker: "bob", FullName: "Bob B", Account: "acct-1", FromApp: true,
				Content: "yo", To: []string{"alice", "carol"}, TS: "2026-08-27T10:00:01Z"},
			want: `{"message_id":"m2","speaker":"bob","full_name":"Bob B","account":"acct-1","from_app":true,"content":"yo","to":["alice","carol"],"ts":"2026-08-27T10:00:01Z"}` + "\n",
		},
		{
			name: "empty to list omitted, false from_app omitted",
			post: Post{MessageID: "m3", Speaker: "s", Content: "c", To: []string{}, TS: "t"},
			want: `{"message_id":"m3","speaker":"s","content":"c","ts":"t"}` + "\n",
		},
		{
			name: "one addressee is still a list",
			post: Post{MessageID: "m4", Speaker: "s", Content: "c", To: []string{"x"}, TS: "t"},
			want: `{"message_id":"m4","speaker":"s","content":"c","to":["x"],"ts":"t"}` + "\n",
		},
		{
			name: "html and newlines: html literal, newline escaped",
			post: Post{MessageID: "m5", Speaker: "s", Content: "<a&b>\nnext", TS: "t"},
			want: `{"message_id":"m5","speaker":"s","content":"<a&b>\nnext","ts":"t"}` + "\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := string(tt.post.Line())
			if got != tt.want {
				t.Fatalf("Line()\n got %s\nwant %s", got, tt.want)
			}
			if strings.Contains(got, "null") {
				t.Fatalf("Line() wrote null: %s", got)
			}
			if strings.Count(got, "\n") != 1 {
				t.Fatalf("Line() is not one line: %q", got)
			}
		})
	}
}

func TestParseLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		line string
		want Post
	}{
		{
			name: "old four fields",
			line: `{"message_id":"m1","speaker":"alice","content":"hello","ts":"2026-08-27T10:00:00Z"}`,
			want: Post{MessageID: "m1", Speaker: "alice", Content: "hello", TS: "2026-08-27T10:00:00Z"},
		},
		{
			name: "legacy to string becomes a one-name list",
			line: `{"message_id":"m2","speaker":"a","content":"c","to":"bob","ts":"t"}`,
			want: Post{MessageID: "m2", Speaker: "a", Content: "c", To: []string{"bob"}, TS: "t"},
		},
		{
			name: "to list",
			line: `{"message_id":"m3","speaker":"a","content":"c","to":["bob","eve"],"ts":"t"}`,
			want: Post{MessageID: "m3", Speaker: "a", Content: "c", To: []string{"bob", "eve"}, TS: "t"},
		},
		{
			name: "to null, empty string and empty list mean nobody",
			line: `{"message_id":"m4","speaker":"a","content":"c","to":null,"ts":"t"}`,
			want: Post{MessageID: "m4", Speaker: "a", Content: "c", TS: "t"},
		},
		{
			name: "to empty string",
			line: `{"message_id":"m5","speaker":"a","content":"c","to":"","ts":"t"}`,
			want: Post{MessageID: "m5", Speaker: "a", Content: "c", TS: "t"},
		},
		{
			name: "to empty list",
			line: `{"message_id":"m6","speaker":"a","content":"c","to":[],"ts":"t"}`,
			want: Post{MessageID: "m6", Speaker: "a", Content: "c", TS: "t"},
		},
		{
			name: "newer fields, unknown key ignored, trailing newline and CR",
			line: `{"message_id":"m7","speaker":"a","full_name":"A A","account":"ac","from_app":true,"content":"c","ts":"t","hue":3}` + "\r\n",
			want: Post{MessageID: "m7", Speaker: "a", FullName: "A A", Account: "ac", FromApp: true, Content: "c", TS: "t"},
		},
		{
			name: "no ts",
			line: `{"message_id":"m8","speaker":"a","content":""}`,
			want: Post{MessageID: "m8", Speaker: "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseLine([]byte(tt.line))
			if err != nil {
				t.Fatalf("ParseLine: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("ParseLine\n got %#v\nwant %#v", got, tt.want)
			}
			// What it read, written back and read again, is the same post.
			again, err := ParseLine(got.Line())
			if err != nil || !reflect.DeepEqual(again, got) {
				t.Fatalf("round trip: %#v, %v", again, err)
			}
		})
	}
}

func TestParseLineRejects(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, line string }{
		{"empty", ``},
		{"garbage", `not json at all`},
		{"torn", `{"message_id":"m1","speaker":"a","con`},
		{"array", `["message_id","speaker","content"]`},
		{"null", `null`},
		{"string", `"x"`},
		{"no message_id", `{"speaker":"a","content":"c","ts":"t"}`},
		{"no speaker", `{"message_id":"m","content":"c","ts":"t"}`},
		{"no content", `{"message_id":"m","speaker":"a","ts":"t"}`},
		{"null content", `{"message_id":"m","speaker":"a","content":null}`},
		{"number id", `{"message_id":1,"speaker":"a","content":"c"}`},
		{"to number", `{"message_id":"m","speaker":"a","content":"c","to":3}`},
		{"to list of numbers", `{"message_id":"m","speaker":"a","content":"c","to":[1]}`},
		{"from_app string", `{"message_id":"m","speaker":"a","content":"c","from_app":"yes"}`},
		{"two objects", `{"message_id":"m","speaker":"a","content":"c"}{"message_id":"n","speaker":"a","content":"c"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseLine([]byte(tt.line))
			if !errors.Is(err, ErrBadLine) {
				t.Fatalf("ParseLine(%q) error = %v, want ErrBadLine", tt.line, err)
			}
		})
	}
}

func TestNameFrom(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("あ", 50)
	tests := []struct{ name, content, want string }{
		{"plain", "Let's plan the release", "Let's plan the release"},
		{"first line only", "first line\nsecond line", "first line"},
		{"leading blank lines skipped", "\n  \n\tactual start\nmore", "actual start"},
		{"whitespace collapsed", "  a \t b\u3000\u3000c  ", "a b c"},
		{"control characters dropped", "a\x00b\x1b[31mc\u200bd", "ab[31mcd"},
		{"exactly forty runes kept", strings.Repeat("x", 40), strings.Repeat("x", 40)},
		{"cut to forty runes with ellipsis", long, strings.Repeat("あ", 39) + "…"},
		{"no trailing space before the ellipsis", strings.Repeat("a", 38) + " bcdef", strings.Repeat("a", 38) + "…"},
		{"invalid utf-8 dropped", "ok\xffok", "okok"},
		{"nothing", " \n\t\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := nameFrom(tt.content)
			if got != tt.want {
				t.Fatalf("nameFrom(%q) = %q, want %q", tt.content, got, tt.want)
			}
			if n := len([]rune(got)); n > NameRunes {
				t.Fatalf("name has %d runes", n)
			}
		})
	}
}
