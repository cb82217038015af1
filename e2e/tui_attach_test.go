package e2e

// Attachments as a person meets them (issue "Attachments: files and images
// travel as saved paths"): the real pullcept in tmux. A dropped file's path
// pasted into the input line becomes a chip; the file picker (ctrl+o)
// attaches another; the clipboard's image (ctrl+v, read on the client with
// PULLCEPT_CLIPBOARD_IMAGE) a third; each post's files are saved under the
// topic only when it is sent, the log holds the body with the block of
// paths, and the room shows chips; o on a post opens its attachment on the
// person's terminal (PULLCEPT_OPEN).

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTUIAttach(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	writeConfig(t, phome, `{"accounts":[]}`)
	env := serverEnv(t)
	drops := t.TempDir()
	drop := filepath.Join(drops, "shot one.png")
	picked := filepath.Join(drops, "picked.txt")
	clip := filepath.Join(t.TempDir(), "clip.png")
	opened := filepath.Join(t.TempDir(), "opened")
	png := "\x89PNG\r\n\x1a\nnot really an image"
	for p, data := range map[string]string{drop: "dropped bytes", picked: "picked bytes", clip: png} {
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env = append(env, "PULLCEPT_CLIPBOARD_IMAGE=cat "+shellQuote(clip),
		"PULLCEPT_OPEN=printf '%s\\n' >"+shellQuote(opened))
	r := startTUI(t, phome, env, 120, 30, nil)
	const empty = "› say something to the room…"
	r.waitFor("the empty input line focused", func(scr string) bool { return inputLine(scr) == empty })

	// A dropped file: the terminal pastes its quoted path.
	r.tmux("set-buffer", "'"+drop+"'")
	r.tmux("paste-buffer", "-p")
	r.waitText("[shot one.png · image/png · 13 B]", "ctrl+z keeps the paste as text")
	attDir := filepath.Join(phome, "logs", "main", "attachments")
	if _, err := os.Stat(attDir); !os.IsNotExist(err) {
		t.Fatalf("attaching wrote the attachments folder: %v", err)
	}
	r.text("look at this")
	r.keys("Enter")
	r.waitText("📎 shot one.png · image/png · 13 B")
	if strings.Contains(r.last, attDir) {
		t.Fatalf("the room shows the paths:\n%s", r.last)
	}

	// The picker opens in the folder of the last file attached: picked.txt
	// is its first entry.
	r.keys("C-o")
	r.waitText("Attach a file — "+drops, "picked.txt")
	r.keys("Enter")
	r.waitText("[picked.txt · text/plain · 12 B]")
	r.keys("Enter") // attachments alone
	r.waitText("📎 picked.txt · text/plain · 12 B")

	// The clipboard's image, read on the client.
	r.keys("C-v")
	r.waitText("[image.png · image/png · 27 B]")
	r.keys("Enter")
	r.waitText("📎 image.png · image/png · 27 B")

	topics, err := os.ReadDir(attDir)
	if err != nil || len(topics) != 1 {
		t.Fatalf("attachment folders %v, %v", topics, err)
	}
	dir := filepath.Join(attDir, topics[0].Name())
	want := []string{
		"look at this\n\n添付:\n" + filepath.Join(dir, "shot one.png"),
		"添付:\n" + filepath.Join(dir, "picked.txt"),
		"添付:\n" + filepath.Join(dir, "image.png"),
	}
	var got []string
	f, err := os.Open(filepath.Join(phome, "logs", "main", topics[0].Name()+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		got = append(got, p.Content)
	}
	if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
		t.Fatalf("the log holds %q, want %q", got, want)
	}
	for p, data := range map[string]string{"shot one.png": "dropped bytes", "picked.txt": "picked bytes", "image.png": png} {
		if b, err := os.ReadFile(filepath.Join(dir, p)); err != nil || string(b) != data {
			t.Errorf("%s holds %q, %v", p, b, err)
		}
	}

	// o on the newest post opens its attachment on the terminal.
	r.prefix("r")
	r.keys("o")
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "image.png"))
	r.until("the opener ran", func() bool {
		b, _ := os.ReadFile(opened)
		return string(b) == real+"\n"
	})
}
