package seat

import (
	"strings"
	"testing"
)

func TestUnsent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string
		want   string // the text as tracked; "" means nothing pending
	}{
		{"nothing", nil, ""},
		{"typed", []string{"a", "b", "c"}, "abc"},
		{"japanese", []string{"日本語"}, "日本語"},
		{"send key", []string{"abc", "\r"}, ""},
		{"ctrl+c", []string{"abc", "\x03"}, ""},
		{"ctrl+u", []string{"abc", "\x15"}, ""},
		{"esc esc in one write", []string{"abc", "\x1b\x1b"}, ""},
		{"esc then esc", []string{"abc", "\x1b", "\x1b"}, ""},
		{"esc, key, esc", []string{"abc", "\x1b", "d", "\x1b"}, "abcd"},
		{"one esc", []string{"abc", "\x1b"}, "abc"},
		{"backspace", []string{"abc", "\x7f"}, "ab"},
		{"ctrl+h", []string{"abc", "\x08"}, "ab"},
		{"backspace japanese", []string{"日本語", "\x7f"}, "日本"},
		{"backspace emoji cluster", []string{"a👩\u200d💻", "\x7f"}, "a"},
		{"backspace flag", []string{"a🇯🇵", "\x7f"}, "a"},
		{"backspace combining", []string{"ae\u0301", "\x7f"}, "a"},
		{"backspace to empty", []string{"a", "\x7f", "\x7f"}, ""},
		{"ctrl+w", []string{"hello big world", "\x17"}, "hello big "},
		{"ctrl+w trailing blanks", []string{"hello world  ", "\x17"}, "hello "},
		{"ctrl+w all", []string{"word", "\x17"}, ""},
		{"arrow", []string{"abc", "\x1b[A"}, "abc"},
		{"arrow on empty", []string{"\x1b[D"}, ""},
		{"ss3 arrow", []string{"\x1bOA"}, ""},
		{"delete key", []string{"abc", "\x1b[3~"}, "abc"},
		{"osc", []string{"\x1b]11;?\x07"}, ""},
		{"osc st", []string{"\x1b]11;rgb:0/0/0\x1b\\"}, ""},
		{"alt+b", []string{"\x1bb"}, ""},
		{"focus in", []string{"\x1b[I"}, ""},
		{"mouse sgr", []string{"\x1b[<0;10;5M"}, ""},
		{"tab alone", []string{"\t"}, ""},
		{"newline alone", []string{"\n"}, ""},
		{"other control", []string{"\x01", "\x05", "\x0c"}, ""},
		{"paste with newlines", []string{"line one\r\nline two\n"}, "line one\r\nline two\n"},
		{"paste then send", []string{"line one\nline two", "\r"}, ""},
		{"two cr in one write", []string{"\r\r"}, "\r\r"},
		{"bracketed paste", []string{"\x1b[200~a\rb\x15c\x1b[201~"}, "a\rb\x15c"},
		{"bracketed empty paste", []string{"\x1b[200~\x1b[201~"}, ""},
		{"bracketed paste split", []string{"\x1b[200~abc", "\r"}, ""},
		{"paste end outside", []string{"\x1b[201~"}, ""},
		{"keys batched", []string{"ab\x7f\x7fc"}, "c"},
		{"text and arrow batched", []string{"ab\x1b[Dc"}, "abc"},
		{"ctrl+u batched", []string{"ab\x15c"}, "c"},
		// Esc then Alt+c, not two Esc: when unsure, keep holding.
		{"esc then alt+key batched", []string{"ab\x1b\x1bc"}, "ab"},
		{"esc esc esc", []string{"ab\x1b\x1b\x1b"}, ""},
		{"cut escape at end", []string{"ab\x1b["}, "ab"},
		{"invalid utf-8", []string{"\xff\xfe"}, "\ufffd\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var u Unsent
			for _, w := range tt.writes {
				u.Feed([]byte(w))
			}
			if got := string(u.text); got != tt.want {
				t.Errorf("text = %q, want %q", got, tt.want)
			}
			if u.Pending() != (tt.want != "") {
				t.Errorf("Pending() = %v", u.Pending())
			}
		})
	}
}

func TestUnsentClear(t *testing.T) {
	t.Parallel()
	var u Unsent
	u.Feed([]byte("abc"))
	u.Feed([]byte("\x1b"))
	u.Clear()
	if u.Pending() {
		t.Fatal("pending after Clear")
	}
	u.Feed([]byte("\x1b")) // the Esc before Clear does not pair with this one
	u.Feed([]byte("x"))
	if string(u.text) != "x" {
		t.Fatalf("text %q", string(u.text))
	}
}

func TestUnsentLongPasteBackspace(t *testing.T) {
	t.Parallel()
	var u Unsent
	u.Feed([]byte(strings.Repeat("あ", 100000)))
	for range 99999 {
		u.Feed([]byte{0x7f})
	}
	if string(u.text) != "あ" {
		t.Fatalf("left %d runes", len(u.text))
	}
}

// FuzzUnsent: no input panics; a lone \r, Ctrl+U and Esc Esc always clear;
// the tracked text is never longer than the runes fed in.
func FuzzUnsent(f *testing.F) {
	for _, s := range []string{"abc", "\x1b[A", "\x1b[200~a\rb\x1b[201~", "\x1b", "\x1b]0;t\x07", "日本\x7f", "a b\x17", "\x1bO", "\x1b[<0;1;1M", "\x1bP", "\xf0\x9f"} {
		f.Add([]byte(s), []byte{1, 3})
	}
	f.Fuzz(func(t *testing.T, data, cuts []byte) {
		var u Unsent
		rest := data
		for _, c := range cuts {
			n := min(int(c), len(rest))
			u.Feed(rest[:n])
			rest = rest[n:]
			if len(u.text) > len(data) {
				t.Fatalf("tracked %d runes from %d bytes", len(u.text), len(data))
			}
		}
		u.Feed(rest)
		if len(u.text) > len(data) {
			t.Fatalf("tracked %d runes from %d bytes", len(u.text), len(data))
		}
		u.Feed([]byte("\r"))
		if u.Pending() {
			t.Fatal("pending after \\r")
		}
		u.Feed(data)
		u.Feed([]byte{0x15})
		if u.Pending() {
			t.Fatal("pending after Ctrl+U")
		}
		u.Feed(data)
		u.Feed([]byte("\x1b\x1b"))
		if u.Pending() {
			t.Fatal("pending after Esc Esc")
		}
	})
}
