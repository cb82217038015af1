package attachment

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestName(t *testing.T) {
	long := strings.Repeat("a", 100)
	for _, c := range []struct{ in, want string }{
		{"image.png", "image.png"},
		{"report 2026.pdf", "report 2026.pdf"},
		{`a<b>c:d"e/f\g|h?i*j.txt`, "a_b_c_d_e_f_g_h_i_j.txt"},
		{"memo @Lin.txt", "memo _Lin.txt"},
		{"memo ＠Lin.txt", "memo _Lin.txt"},
		{"bell\a\x1b[31mred.txt", "bell__[31mred.txt"},
		{"del\x7fc1\u0085.txt", "del_c1_.txt"},
		{"tab\tnew\nline.txt", "tab_new_line.txt"},
		{"bad\xffutf8.txt", "bad_utf8.txt"},
		{"trailing. . .", "trailing"},
		{"name.txt. ", "name.txt"},
		{"CON", "_CON"},
		{"con.txt", "_con.txt"},
		{"NUL.tar.gz", "_NUL.tar.gz"},
		{"com1", "_com1"},
		{"LPT9.log", "_LPT9.log"},
		{"COM10", "COM10"},
		{"CONSOLE.txt", "CONSOLE.txt"},
		{"aux .txt", "_aux .txt"},
		{"", "file"},
		{"...", "file"},
		{"..", "file"},
		{" ", "file"},
		{"/", "_"},
		{".bashrc", ".bashrc"},
		{long + ".png", strings.Repeat("a", 76) + ".png"},
		{long, strings.Repeat("a", 80)},
		{strings.Repeat("あ", 90) + ".txt", strings.Repeat("あ", 76) + ".txt"},
		{"x." + long, "x." + strings.Repeat("a", 78)}, // an "extension" that long is part of the name
		{strings.Repeat("b", 78) + "    .txt", strings.Repeat("b", 76) + ".txt"},
	} {
		if got := Name(c.in); got != c.want {
			t.Errorf("Name(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestNumbered(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"image.png", 1, "image.png"},
		{"image.png", 2, "image (2).png"},
		{"image.png", 13, "image (13).png"},
		{"notes", 2, "notes (2)"},
		{".bashrc", 3, ".bashrc (3)"},
		{strings.Repeat("a", 76) + ".png", 2, strings.Repeat("a", 72) + " (2).png"},
	} {
		got := Numbered(c.in, c.n)
		if got != c.want {
			t.Errorf("Numbered(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if utf8.RuneCountInString(got) > MaxName {
			t.Errorf("Numbered(%q, %d) is %d characters", c.in, c.n, utf8.RuneCountInString(got))
		}
	}
}

// FuzzName: whatever comes in, the name is one safe path element that a
// second pass leaves alone.
func FuzzName(f *testing.F) {
	for _, s := range []string{"image.png", "CON", "a\x00b", "memo @Lin.txt", strings.Repeat("x", 200) + ".jpeg", "..", "a/../b", "\xff\xfe", "lpt1 .", "x.＠＠＠"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := Name(in)
		if got == "" || !utf8.ValidString(got) || utf8.RuneCountInString(got) > MaxName {
			t.Fatalf("Name(%q) = %q: empty, invalid or too long", in, got)
		}
		if strings.ContainsAny(got, "<>:\"/\\|?*@＠") {
			t.Fatalf("Name(%q) = %q holds a forbidden character", in, got)
		}
		for _, r := range got {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
				t.Fatalf("Name(%q) = %q holds a control character", in, got)
			}
		}
		if strings.HasSuffix(got, ".") || strings.HasSuffix(got, " ") || got == "." || got == ".." {
			t.Fatalf("Name(%q) = %q ends in a dot or space", in, got)
		}
		if isDevice(got) {
			t.Fatalf("Name(%q) = %q is a device name", in, got)
		}
		if again := Name(got); again != got {
			t.Fatalf("Name(Name(%q)) = %q, not %q", in, again, got)
		}
		for _, n := range []int{2, 10, 9999} {
			num := Numbered(got, n)
			if utf8.RuneCountInString(num) > MaxName || Name(num) != num {
				t.Fatalf("Numbered(%q, %d) = %q: too long or not a saved name", got, n, num)
			}
		}
	})
}
