package attachment

import "testing"

func TestTypeOfSniffsWithoutExtension(t *testing.T) {
	for name, head := range map[string]string{"shot": "\x89PNG\r\n\x1a\n....", "notes": "hello\n", "blob": "\x00\x01\x02"} {
		want := map[string]string{"shot": "image/png", "notes": "text/plain", "blob": "application/octet-stream"}[name]
		if got := TypeOf(name, []byte(head)); got != want {
			t.Errorf("TypeOf(%q) = %s, want %s", name, got, want)
		}
	}
}
