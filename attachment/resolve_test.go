package attachment

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// room makes logs/main/attachments with topics a and b, each holding one
// file, and a secret outside.
func room(t *testing.T) (root, a, b, secret string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "logs", "main", "attachments")
	var err error
	if a, err = Save(filepath.Join(root, "topic-a"), "shot.png", strings.NewReader("\x89PNG\r\n\x1a\n...")); err != nil {
		t.Fatal(err)
	}
	if b, err = Save(filepath.Join(root, "topic-b"), "notes.txt", strings.NewReader("b's notes")); err != nil {
		t.Fatal(err)
	}
	secret = filepath.Join(base, "secret.txt")
	if err := os.WriteFile(secret, []byte("private"), 0o600); err != nil {
		t.Fatal(err)
	}
	return root, a, b, secret
}

func TestResolveAccepts(t *testing.T) {
	root, a, b, _ := room(t)
	r := Resolver{Root: root}
	f, err := r.Resolve(a)
	if err != nil {
		t.Fatal(err)
	}
	if f.Topic != "topic-a" || f.Name != "shot.png" || f.Type != "image/png" || f.Size != 11 || !f.Image() {
		t.Errorf("Resolve = %+v", f)
	}
	// Another topic's folder is a topic's folder too: the block may name it.
	if f, err := r.Resolve(b); err != nil || f.Topic != "topic-b" || f.Type != "text/plain" {
		t.Errorf("Resolve(b) = %+v, %v", f, err)
	}
	if _, ok := r.InTopic(b, "topic-a"); ok {
		t.Error("InTopic took topic b's file for topic a's")
	}
	if _, ok := r.InTopic(a, "topic-a"); !ok {
		t.Error("InTopic refused topic a's own file")
	}
	// .. that comes back inside is the same file.
	if f, err := r.Resolve(filepath.Join(root, "topic-b", "..", "topic-a", "shot.png")); err != nil || f.Name != "shot.png" {
		t.Errorf("a .. that stays inside: %+v, %v", f, err)
	}
	// A root reached through a link resolves the same.
	link := filepath.Join(t.TempDir(), "rootlink")
	if err := os.Symlink(root, link); err != nil {
		t.Fatal(err)
	}
	if _, err := (Resolver{Root: link}).Resolve(a); err != nil {
		t.Errorf("root through a link: %v", err)
	}
	if _, err := r.Resolve(filepath.Join(link, "topic-a", "shot.png")); err != nil {
		t.Errorf("path through a link to the root: %v", err)
	}
	fh, f, err := r.Open(a)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(fh)
	fh.Close()
	if string(got) != "\x89PNG\r\n\x1a\n..." || f.Size != int64(len(got)) {
		t.Errorf("Open read %q, %+v", got, f)
	}
}

func TestResolveRefuses(t *testing.T) {
	root, a, _, secret := room(t)
	r := Resolver{Root: root}
	dirA := filepath.Dir(a)
	mk := func(f func(p string) error, name string) string {
		t.Helper()
		p := filepath.Join(dirA, name)
		if err := f(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := map[string]string{
		"a file outside":              secret,
		"a relative path":             "topic-a/shot.png",
		"the root itself":             root,
		"a topic's folder":            dirA,
		"a file directly in the root": mk(func(p string) error { return os.WriteFile(filepath.Join(root, "loose.txt"), nil, 0o600) }, "../loose.txt"),
		"a file two levels down": mk(func(p string) error {
			os.MkdirAll(p, 0o700)
			return os.WriteFile(filepath.Join(p, "deep.txt"), nil, 0o600)
		}, "sub") + "/deep.txt",
		"a link inside to a file outside":   mk(func(p string) error { return os.Symlink(secret, p) }, "link.txt"),
		"a link inside to a folder outside": mk(func(p string) error { return os.Symlink(filepath.Dir(secret), p) }, "dirlink") + "/secret.txt",
		"a topic folder that is a link outside": func() string {
			if err := os.Symlink(filepath.Dir(secret), filepath.Join(root, "topic-evil")); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(root, "topic-evil", "secret.txt")
		}(),
		".. out of the folder":          filepath.Join(dirA, "..", "..", "..", "..", "secret.txt"),
		"a hard link to a file outside": mk(func(p string) error { return os.Link(secret, p) }, "hard.txt"),
		"a missing file":                filepath.Join(dirA, "gone.png"),
		"a FIFO":                        mk(func(p string) error { return mkfifo(p) }, "fifo"),
	}
	for what, p := range cases {
		if f, err := r.Resolve(p); !errors.Is(err, ErrOutside) {
			t.Errorf("%s (%s): Resolve = %+v, %v; want ErrOutside", what, p, f, err)
		}
		if fh, _, err := r.Open(p); !errors.Is(err, ErrOutside) {
			if fh != nil {
				fh.Close()
			}
			t.Errorf("%s: Open = %v; want ErrOutside", what, err)
		}
	}
	// The hard link also makes the secret's own name... and the file in the
	// folder that has a second link elsewhere is refused too.
	other := filepath.Join(t.TempDir(), "copy-of-shot")
	if err := os.Link(a, other); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Resolve(a); !errors.Is(err, ErrOutside) {
		t.Errorf("a file with a second hard link outside: %v", err)
	}
}

func TestStat(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "data.bin")
	os.WriteFile(p, []byte("%PDF-1.7 hello"), 0o600)
	f, err := Stat(p)
	if err != nil || f.Name != "data.bin" || f.Type != "application/pdf" || f.Size != 14 {
		t.Errorf("Stat = %+v, %v", f, err)
	}
	if _, err := Stat(dir); err == nil {
		t.Error("a folder can be attached")
	}
	if Size(812) != "812 B" || Size(12700) != "12.4 KiB" || Size(3<<20) != "3.0 MiB" {
		t.Error(Size(812), Size(12700), Size(3<<20))
	}
}
