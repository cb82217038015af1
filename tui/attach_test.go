package tui

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi/kitty"

	"pullcept/app"
	"pullcept/attach"
	"pullcept/attachment"
	"pullcept/room/wire"
)

// The test run's attachments, like app.PostWith's: saved in the store's
// folder for the topic unless saved there already, then posted.
func (b *testBackend) PostWith(topic, text, lastSeen string, atts []app.Attachment) (app.Outcome, []app.Attachment, error) {
	dir, err := b.store.AttachmentDir(topic)
	if err != nil {
		return app.Outcome{}, atts, err
	}
	atts = append([]app.Attachment(nil), atts...)
	var paths []string
	for i, a := range atts {
		if a.SavedTopic == topic && a.Saved != "" {
			paths = append(paths, a.Saved)
			continue
		}
		var src io.Reader = bytes.NewReader(a.Data)
		if a.Data == nil {
			f, err := os.Open(a.Source)
			if err != nil {
				return app.Outcome{}, atts, err
			}
			defer f.Close()
			src = f
		}
		p, err := attachment.Save(dir, a.Name, src)
		if err != nil {
			return app.Outcome{}, atts, err
		}
		atts[i].Saved, atts[i].SavedTopic = p, topic
		paths = append(paths, p)
	}
	o, err := b.eng.PostAsPerson(topic, attachment.Body(text, paths), lastSeen)
	return o, atts, err
}

func (b *testBackend) resolver() attachment.Resolver {
	return attachment.Resolver{Root: filepath.Join(b.store.Dir(), "attachments")}
}

func (b *testBackend) ResolveAttachment(path string) (app.AttachmentFile, error) {
	return b.resolver().Resolve(path)
}

func (b *testBackend) OpenAttachment(path string) (*os.File, app.AttachmentFile, error) {
	return b.resolver().Open(path)
}

// files makes files in a temp folder and returns their paths.
func files(t *testing.T, names ...string) []string {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		if err := os.WriteFile(p, []byte("content of "+n), 0o600); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func chipNames(m *model) []string {
	var out []string
	for _, c := range m.att.chips {
		out = append(out, c.att.Name)
	}
	return out
}

// capture records the programs the screen asks to run on the terminal:
// each its role, then its paths.
type capture struct{ argv [][]string }

type noExec struct{}

func (noExec) Run() error          { return nil }
func (noExec) SetStdin(io.Reader)  {}
func (noExec) SetStdout(io.Writer) {}
func (noExec) SetStderr(io.Writer) {}
func (c *capture) program(x attach.Exec) tea.ExecCommand {
	c.argv = append(c.argv, append([]string{x.Role}, x.Paths...))
	return noExec{}
}

// TestAttachPastedPaths: a paste of existing files' paths, quoted or
// escaped as terminals drop them, becomes chips (nothing written); ctrl+z
// keeps it as text; a paste that is not only paths is text.
func TestAttachPastedPaths(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	ps := files(t, "shot one.png", "notes.txt")
	paste := "'" + ps[0] + "' " + strings.ReplaceAll(ps[1], "/", "/")
	hs.send(tea.PasteMsg{Content: paste})
	if got := chipNames(hs.m); len(got) != 2 || got[0] != "shot one.png" || got[1] != "notes.txt" || hs.m.input.String() != "" {
		t.Fatalf("chips %q, input %q", got, hs.m.input.String())
	}
	scr := hs.screen()
	if !strings.Contains(scr, "[shot one.png · image/png · 23 B]") || !strings.Contains(scr, "[notes.txt · text/plain · 20 B]") {
		t.Fatalf("chips not drawn above the input:\n%s", scr)
	}
	if ents, _ := os.ReadDir(filepath.Join(hs.store.Dir(), "attachments")); len(ents) != 0 {
		t.Fatalf("attaching wrote %v", ents)
	}
	hs.key('z', tea.ModCtrl)
	if len(hs.m.att.chips) != 0 || hs.m.input.String() != paste {
		t.Fatalf("ctrl+z: chips %q, input %q", chipNames(hs.m), hs.m.input.String())
	}

	hs.m.input.Set("")
	for _, text := range []string{"see " + ps[1], ps[1] + " /no/such/file", "relative/path.txt", "'" + ps[1]} {
		hs.send(tea.PasteMsg{Content: text})
		if len(hs.m.att.chips) != 0 || hs.m.input.String() != text {
			t.Errorf("paste %q: chips %q, input %q", text, chipNames(hs.m), hs.m.input.String())
		}
		hs.m.input.Set("")
	}
	// Backslash-escaped spaces and a file:// URI.
	hs.send(tea.PasteMsg{Content: strings.ReplaceAll(ps[0], " ", `\ `) + "\nfile://" + strings.ReplaceAll(ps[1], "/", "/")})
	if got := chipNames(hs.m); len(got) != 2 || got[0] != "shot one.png" {
		t.Fatalf("escaped and URI paths: %q", got)
	}
}

func TestPastedPaths(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{`/a/b.png`, []string{"/a/b.png"}},
		{`'/a/x y.png' "/b/q\"r.txt"`, []string{"/a/x y.png", `/b/q"r.txt`}},
		{`/a/x\ y.png /c`, []string{"/a/x y.png", "/c"}},
		{"file:///a/x%20y.png\r\nfile://localhost/b", []string{"/a/x y.png", "/b"}},
		{`~/doc.pdf`, []string{"/home/me/doc.pdf"}},
	} {
		got, ok := pastedPaths(c.in, "/home/me")
		if !ok || strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("pastedPaths(%q) = %q, %v", c.in, got, ok)
		}
	}
	for _, in := range []string{"", "hello", "/a and more", "file://host/a", "'/open"} {
		if got, ok := pastedPaths(in, "/home/me"); ok {
			t.Errorf("pastedPaths(%q) = %q", in, got)
		}
	}
}

// TestAttachSendAndRoom: Enter saves the chips under the topic and posts
// the body with the block; the room shows chips, not the paths.
func TestAttachSendAndRoom(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	ps := files(t, "report.pdf")
	hs.send(tea.PasteMsg{Content: ps[0]})
	hs.typeText("please read")
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	dir, _ := hs.store.AttachmentDir(hs.m.topic)
	saved := filepath.Join(dir, "report.pdf")
	rs := hs.m.cur()
	if len(rs.posts) != 1 || rs.posts[0].Content != "please read\n\n添付:\n"+saved {
		t.Fatalf("posts %+v", rs.posts)
	}
	if len(hs.m.att.chips) != 0 || hs.m.input.String() != "" {
		t.Fatalf("after sending: chips %q, input %q", chipNames(hs.m), hs.m.input.String())
	}
	scr := hs.screen()
	if !strings.Contains(scr, "📎 report.pdf · application/pdf · 21 B") || strings.Contains(scr, saved) || strings.Contains(scr, "添付:") {
		t.Fatalf("the room does not read the block:\n%s", scr)
	}

	// Attachments alone.
	hs.send(tea.PasteMsg{Content: ps[0]})
	hs.key(tea.KeyEnter, 0)
	if got := rs.posts[len(rs.posts)-1].Content; got != "添付:\n"+filepath.Join(dir, "report (2).pdf") {
		t.Fatalf("attachments alone: %q", got)
	}
}

// TestAttachRoomReadsOnlyAttachments: a block naming any path that is not
// an attachment is drawn as the text it is.
func TestAttachRoomReadsOnlyAttachments(t *testing.T) {
	hs := newHarness(t, nil, 120, 30)
	other := seat(t, hs, "Lin", "")
	dir, _ := hs.store.AttachmentDir(hs.m.topic)
	good, err := attachment.Save(dir, "ok.txt", strings.NewReader("ok"))
	if err != nil {
		t.Fatal(err)
	}
	outside := files(t, "secret.txt")[0]
	link := filepath.Join(dir, "link.txt")
	os.Symlink(outside, link)
	for _, body := range []string{
		"look\n\n添付:\n" + outside,
		"look\n\n添付:\n" + good + "\n" + link,
		"look\n\n添付:\n" + filepath.Join(dir, "..", "..", "..", filepath.Base(outside)),
	} {
		if _, err := hs.eng.PostFromConn(other, wire.PostFrame{Type: "post", Content: body, LastSeen: hs.m.cur().watermark}); err != nil {
			t.Fatal(err)
		}
		hs.pump()
		scr := hs.screen()
		if !strings.Contains(scr, "添付:") || strings.Contains(scr, "📎") {
			t.Fatalf("block %q read as attachments:\n%s", body, scr)
		}
	}
}

// TestAttachRefusedThenResent: the floor refuses; the chips come back
// remembering where they were saved, and Enter again saves nothing twice.
func TestAttachRefusedThenResent(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	other := seat(t, hs, "Lin", "")
	if _, err := hs.eng.PostFromConn(other, wire.PostFrame{Type: "post", Content: "meanwhile"}); err != nil {
		t.Fatal(err)
	}
	ps := files(t, "a.txt")
	hs.send(tea.PasteMsg{Content: ps[0]})
	hs.typeText("see")
	hs.key(tea.KeyEnter, 0)
	dir, _ := hs.store.AttachmentDir(hs.m.topic)
	if len(hs.m.att.chips) != 1 || hs.m.att.chips[0].att.Saved != filepath.Join(dir, "a.txt") || hs.m.input.String() != "see" {
		t.Fatalf("after the refusal: chips %+v, input %q, status %q", hs.m.att.chips, hs.m.input.String(), hs.m.status)
	}
	if !strings.Contains(hs.screen(), "[a.txt · text/plain · 16 B]") {
		t.Fatalf("the chip is not shown again:\n%s", hs.screen())
	}
	hs.key(tea.KeyEnter, 0)
	rs := hs.m.cur()
	if got := rs.posts[len(rs.posts)-1].Content; got != "see\n\n添付:\n"+filepath.Join(dir, "a.txt") {
		t.Fatalf("resent: %q (%s)", got, hs.m.status)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("saved twice: %v", ents)
	}
}

// TestAttachSaveFails: a file that cannot be read sends nothing; the text
// and the chip come back.
func TestAttachSaveFails(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	ps := files(t, "gone.txt")
	hs.send(tea.PasteMsg{Content: ps[0]})
	os.Remove(ps[0])
	hs.typeText("text")
	hs.key(tea.KeyEnter, 0)
	if len(hs.m.cur().posts) != 0 || hs.m.input.String() != "text" || len(hs.m.att.chips) != 1 || !strings.Contains(hs.m.status, "not sent") {
		t.Fatalf("posts %d, input %q, chips %q, status %q", len(hs.m.cur().posts), hs.m.input.String(), chipNames(hs.m), hs.m.status)
	}
}

// TestAttachRemoveChip: ctrl+x selects the chips, ← and x remove one.
func TestAttachRemoveChip(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	ps := files(t, "a.txt", "b.txt", "c.txt")
	hs.send(tea.PasteMsg{Content: strings.Join(ps, " ")})
	hs.key('x', tea.ModCtrl)
	if hs.m.keyCtx() != ctxChips || hs.m.att.chipSel != 2 {
		t.Fatalf("ctrl+x: ctx %v, selected %d", hs.m.keyCtx(), hs.m.att.chipSel)
	}
	hs.key(tea.KeyLeft, 0)
	hs.send(tea.KeyPressMsg{Code: 'x', Text: "x"})
	if got := chipNames(hs.m); strings.Join(got, ",") != "a.txt,c.txt" {
		t.Fatalf("chips %q", got)
	}
	hs.key(tea.KeyEscape, 0)
	hs.typeText("x")
	if hs.m.input.String() != "x" || len(hs.m.att.chips) != 2 {
		t.Fatalf("back in the input: %q, %q", hs.m.input.String(), chipNames(hs.m))
	}
}

// TestAttachPicker: ctrl+o opens the picker; a file chosen with the keys
// becomes a chip; names are drawn made visible.
func TestAttachPicker(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	ps := files(t, "a.txt", "evil\x1b[31m.txt")
	hs.m.att.pickDir = filepath.Dir(ps[0])
	hs.key('o', tea.ModCtrl)
	if hs.m.att.picker == nil || hs.m.keyCtx() != ctxPicker {
		t.Fatal("the picker did not open")
	}
	v := hs.m.View().Content
	if strings.Contains(v, "evil\x1b[31m") || !strings.Contains(hs.screen(), "evil␛[31m.txt") || !strings.Contains(hs.screen(), "a.txt") {
		t.Fatalf("picker:\n%s", hs.screen())
	}
	hs.key(tea.KeyDown, 0)
	hs.key(tea.KeyEnter, 0)
	if hs.m.att.picker != nil || len(hs.m.att.chips) != 1 || hs.m.att.chips[0].att.Source != ps[1] {
		t.Fatalf("after Enter: picker %v, chips %+v", hs.m.att.picker != nil, hs.m.att.chips)
	}
	if strings.Contains(hs.m.View().Content, "\x1b[31m.txt") {
		t.Fatal("the chip's name reached the terminal raw")
	}
	hs.key('o', tea.ModCtrl)
	hs.key(tea.KeyEscape, 0)
	if hs.m.att.picker != nil || len(hs.m.att.chips) != 1 {
		t.Fatal("esc did not close the picker without attaching")
	}
}

// With nothing attached yet the picker opens where the person ran
// pullcept (the client's PWD), else in the home folder.
func TestAttachPickerStartsInPWD(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	pwd, home := t.TempDir(), t.TempDir()
	hs.m.att.env = []string{"HOME=" + home, "PWD=" + pwd}
	hs.key('o', tea.ModCtrl)
	if hs.m.att.picker == nil || hs.m.att.picker.fp.CurrentDirectory != pwd {
		t.Fatalf("the picker opened elsewhere than PWD %s", pwd)
	}
	hs.key(tea.KeyEscape, 0)
	hs.m.att.env = []string{"HOME=" + home, "PWD=" + filepath.Join(pwd, "gone")}
	hs.key('o', tea.ModCtrl)
	if hs.m.att.picker == nil || hs.m.att.picker.fp.CurrentDirectory != home {
		t.Fatalf("with no PWD folder the picker did not open in HOME %s", home)
	}
}

// TestAttachClipboardImage: ctrl+v runs the clipboard script on the
// person's terminal; its PNG becomes the chip image.png.
func TestAttachClipboardImage(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	var c capture
	hs.m.program = c.program
	hs.key('v', tea.ModCtrl)
	if len(c.argv) != 1 || c.argv[0][0] != attach.RoleClipboard {
		t.Fatalf("ran %q", c.argv)
	}
	out := c.argv[0][len(c.argv[0])-1]
	pngBytes := tinyPNG(t, 4, 4)
	os.WriteFile(out, pngBytes, 0o600)
	hs.send(clipDoneMsg{path: out})
	if len(hs.m.att.chips) != 1 || hs.m.att.chips[0].att.Name != "image.png" || !bytes.Equal(hs.m.att.chips[0].att.Data, pngBytes) {
		t.Fatalf("chips %+v", hs.m.att.chips)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("the clipboard's temporary file stays")
	}
	// Not a PNG: no chip.
	hs.key('v', tea.ModCtrl)
	out = c.argv[1][len(c.argv[1])-1]
	os.WriteFile(out, []byte("text"), 0o600)
	hs.send(clipDoneMsg{path: out})
	if len(hs.m.att.chips) != 1 || !strings.Contains(hs.m.status, "no PNG") {
		t.Fatalf("a text clipboard: chips %d, status %q", len(hs.m.att.chips), hs.m.status)
	}
}

// TestAttachOpen: o on a post opens its attachments, by their resolved
// paths, on the person's terminal; a block the room does not read opens
// nothing.
func TestAttachOpen(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	var c capture
	hs.m.program = c.program
	other := seat(t, hs, "Lin", "")
	outside := files(t, "secret.txt")[0]
	if _, err := hs.eng.PostFromConn(other, wire.PostFrame{Type: "post", Content: "x\n\n添付:\n" + outside}); err != nil {
		t.Fatal(err)
	}
	hs.pump()
	hs.prefix('r', "r")
	hs.send(tea.KeyPressMsg{Code: 'o', Text: "o"})
	if len(c.argv) != 0 {
		t.Fatalf("opened a path outside: %q", c.argv)
	}
	hs.prefix('i', "i")
	hs.send(tea.PasteMsg{Content: files(t, "a.txt")[0]})
	hs.key(tea.KeyEnter, 0)
	hs.pump()
	hs.prefix('r', "r")
	hs.send(tea.KeyPressMsg{Code: 'o', Text: "o"})
	dir, _ := hs.store.AttachmentDir(hs.m.topic)
	real, _ := filepath.EvalSymlinks(filepath.Join(dir, "a.txt"))
	if len(c.argv) != 1 || !slices.Equal(c.argv[0], []string{attach.RoleOpener, real}) {
		t.Fatalf("ran %q, want the opener on %s", c.argv, real)
	}
}

func tinyPNG(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, color.RGBA{R: uint8(x * 40), G: uint8(y * 40), B: 200, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestKittyThumbnail: on a kitty terminal an image attachment is drawn as
// Unicode placeholders in the colour of its image id, and the image goes
// out once as a kitty graphics transmission of that id with a virtual
// placement of that many cells.
func TestKittyThumbnail(t *testing.T) {
	hs := newHarness(t, nil, 100, 30)
	hs.m.att.view = newAttachView([]string{"TERM=xterm-kitty"})
	dir, _ := hs.store.AttachmentDir(hs.m.topic)
	if _, err := attachment.Save(dir, "shot.png", bytes.NewReader(tinyPNG(t, 80, 40))); err != nil {
		t.Fatal(err)
	}
	if _, err := hs.eng.PostAsPerson(hs.m.topic, "添付:\n"+filepath.Join(dir, "shot.png"), ""); err != nil {
		t.Fatal(err)
	}
	var raw []string
	testHooks = func(m *model, msg tea.Msg) bool {
		if r, ok := msg.(tea.RawMsg); ok {
			raw = append(raw, r.Msg.(string))
			return true
		}
		return false
	}
	defer func() { testHooks = nil }()
	hs.pump()
	view := hs.m.View().Content
	th := hs.m.att.view.thumbs
	if len(th) != 1 {
		t.Fatalf("thumbnails %v", th)
	}
	var tb *thumb
	for _, v := range th {
		tb = v
	}
	// 80×40 px at 10 px a cell, two cells high per width: 8 columns, 2 rows.
	if tb.cols != 8 || tb.rows != 2 {
		t.Fatalf("thumbnail %d×%d cells, want 8×2", tb.cols, tb.rows)
	}
	fg := "\x1b[38;2;94;0;1m" // id 0x5e0001
	row0 := fg + strings.Repeat(string(kitty.Placeholder)+string(kitty.Diacritic(0))+"X", 8)
	_ = row0
	if !strings.Contains(view, fg) || strings.Count(view, string(kitty.Placeholder)) != 16 ||
		!strings.Contains(view, string(kitty.Placeholder)+string(kitty.Diacritic(1))+string(kitty.Diacritic(7))) {
		t.Fatalf("placeholders not drawn: %q", view)
	}
	// The transmission went out as a raw message (once).
	hs.send(seatsChangedMsg{})
	if len(raw) != 1 {
		t.Fatalf("%d transmissions, want 1", len(raw))
	}
	seq := raw[0]
	if !strings.HasPrefix(seq, "\x1b_G") || !strings.HasSuffix(seq, "\x1b\\") {
		t.Fatalf("not an APC G sequence: %q", seq[:min(len(seq), 40)])
	}
	head := seq[3:strings.IndexByte(seq, ';')]
	for _, want := range []string{"a=T", "f=100", "i=6160385", "c=8", "r=2", "U=1", "q=2"} {
		if !strings.Contains(","+head+",", ","+want+",") {
			t.Errorf("first chunk's options %q lack %s", head, want)
		}
	}
	// The payload is a PNG (base64 over the chunks).
	var payload strings.Builder
	for _, chunk := range strings.Split(seq, "\x1b\\") {
		if i := strings.IndexByte(chunk, ';'); i >= 0 {
			payload.WriteString(chunk[i+1:])
		}
	}
	b, err := base64.StdEncoding.DecodeString(payload.String())
	if err != nil || !bytes.HasPrefix(b, pngMagic) {
		t.Fatalf("payload is no PNG: %v %q", err, b[:min(len(b), 8)])
	}
	if img, err := png.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != 80 {
		t.Fatalf("decoded %v, %v", img, err)
	}
}

// TestNoThumbnailElsewhere: without an image protocol, or for a file over
// 32 MiB, an image is a chip only.
func TestNoThumbnailElsewhere(t *testing.T) {
	for _, env := range [][]string{{"TERM=xterm-256color"}, {"TERM=xterm-kitty", "TMUX=/tmp/x"}, {"TERM=xterm-kitty", "PULLCEPT_IMAGES=off"}} {
		if newAttachView(env).kitty {
			t.Errorf("%q draws kitty images", env)
		}
	}
	if !newAttachView([]string{"TERM_PROGRAM=ghostty"}).kitty || !newAttachView([]string{"PULLCEPT_IMAGES=kitty", "TMUX=1"}).kitty {
		t.Error("ghostty or PULLCEPT_IMAGES=kitty draws no images")
	}
	if (app.AttachmentFile{Type: "image/png", Size: attachment.PreviewMax + 1}).Image() {
		t.Error("a file over 32 MiB is previewed")
	}
}
