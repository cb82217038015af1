package tui

// The room reads a post's block of attachments (spec #318): when every
// path of the block resolves to an attachment (app.ResolveAttachment: a
// file directly inside a topic's folder under logs/main/attachments, links
// and ".." followed), the block is drawn as chips — name, type, size —
// and an image as a thumbnail where the terminal draws the kitty graphics
// protocol; any other block is drawn as the text it is. The body, the log
// and what the terminals got stay as they are.

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // thumbnails of GIF attachments
	_ "image/jpeg"
	_ "image/png"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi/kitty"

	"pullcept/app"
	"pullcept/room/wire"
)

// Thumbnail bounds, in cells.
const (
	thumbCols = 24
	thumbRows = 6
	// A cell is taken as twice as high as wide, and thumbPx pixels wide.
	thumbPx = 10
)

// attachView keeps what the room learnt of attachment paths.
type attachView struct {
	kitty bool
	// files are the resolver's answers by path (nil: refused).
	files map[string]*app.AttachmentFile
	// thumbs are the thumbnails by resolved path.
	thumbs map[string]*thumb
	nextID uint32
}

// thumb is one image's thumbnail: its kitty image id and size in cells;
// queued until its image is sent to the terminal.
type thumb struct {
	id         uint32
	cols, rows int
	queued     bool
	bad        bool
}

// imageSentMsg says a thumbnail went out (or could not be made).
type imageSentMsg struct {
	path string
	ok   bool
}

func newAttachView(env []string) *attachView {
	get := func(k string) string {
		for _, kv := range env {
			if v, ok := strings.CutPrefix(kv, k+"="); ok {
				return v
			}
		}
		return ""
	}
	k := false
	switch get("PULLCEPT_IMAGES") {
	case "kitty":
		k = true
	case "off", "none", "0":
	default:
		// Terminals that draw kitty's Unicode placeholders; not through
		// tmux, which passes no graphics by default.
		k = get("TMUX") == "" && (get("TERM") == "xterm-kitty" || get("TERM_PROGRAM") == "ghostty")
	}
	return &attachView{kitty: k, files: map[string]*app.AttachmentFile{}, thumbs: map[string]*thumb{}, nextID: 0x5e0000}
}

// resolve is the resolver's answer for path, asked once.
func (v *attachView) resolve(b attachBackend, path string) (app.AttachmentFile, bool) {
	if f, ok := v.files[path]; ok {
		if f == nil {
			return app.AttachmentFile{}, false
		}
		return *f, true
	}
	f, err := b.ResolveAttachment(path)
	if err != nil {
		v.files[path] = nil
		return app.AttachmentFile{}, false
	}
	v.files[path] = &f
	return f, true
}

// block is the files of body's block when every path is an attachment.
func (v *attachView) block(b attachBackend, body string) ([]app.AttachmentFile, bool) {
	_, paths, ok := app.ParseAttachments(body)
	if !ok || b == nil {
		return nil, false
	}
	var out []app.AttachmentFile
	for _, p := range paths {
		f, ok := v.resolve(b, p)
		if !ok {
			return nil, false
		}
		out = append(out, f)
	}
	return out, true
}

// bodyLines draws a post's body at width w: the text wrapped, and a block
// of attachments as chips and thumbnails when the room reads it.
func bodyLines(p wire.Post, w int, c roomCtx) []string {
	if c.att == nil || c.attB == nil {
		return wrapText(wire.Visible(p.Content), max(w-2, 1))
	}
	files, ok := c.att.block(c.attB, p.Content)
	if !ok {
		return wrapText(wire.Visible(p.Content), max(w-2, 1))
	}
	text, _, _ := app.ParseAttachments(p.Content)
	var out []string
	if text != "" {
		out = wrapText(wire.Visible(text), max(w-2, 1))
	}
	for _, f := range files {
		out = append(out, ellipsis(style("📎 "+wire.OneLine(f.Name), "36")+style(" · "+wire.OneLine(f.Type)+" · "+app.AttachmentSize(f.Size), "2"), max(w-2, 1)))
		if f.Image() && c.att.kitty {
			out = append(out, c.att.thumbLines(c.attB, f, w-2)...)
		}
	}
	return out
}

// thumbLines are the rows of f's thumbnail: kitty Unicode placeholders
// whose colour names the image, so the screen's cells carry it like text.
func (v *attachView) thumbLines(b attachBackend, f app.AttachmentFile, w int) []string {
	t := v.thumbs[f.Path]
	if t == nil {
		t = &thumb{}
		v.thumbs[f.Path] = t
		cols, rows, ok := thumbSize(b, f.Path, min(thumbCols, w))
		if !ok {
			t.bad = true
		} else {
			v.nextID++
			t.id, t.cols, t.rows, t.queued = v.nextID, cols, rows, true
		}
	}
	if t.bad {
		return nil
	}
	return placeholders(t.id, t.cols, t.rows)
}

// thumbSize is the cells an image's thumbnail takes within cols columns.
func thumbSize(b attachBackend, path string, cols int) (int, int, bool) {
	fh, _, err := b.OpenAttachment(path)
	if err != nil {
		return 0, 0, false
	}
	defer fh.Close()
	cfg, _, err := image.DecodeConfig(fh)
	if err != nil || cfg.Width <= 0 || cfg.Height <= 0 || cols < 1 {
		return 0, 0, false
	}
	return fitCells(cfg.Width, cfg.Height, cols, thumbRows)
}

// fitCells fits a w×h pixel image in at most cols×rows cells (a cell is
// twice as high as wide), never enlarging it beyond its pixels.
func fitCells(w, h, cols, rows int) (int, int, bool) {
	c := min(cols, max((w+thumbPx-1)/thumbPx, 1))
	r := (c*h + w) / (2 * w) // rows for c columns at the image's aspect
	if r > rows {
		r = rows
		c = max(min(cols, (2*r*w)/h), 1)
	}
	return c, max(r, 1), true
}

// placeholders are the rows of cells that show image id: U+10EEEE with
// the row and column diacritics, in the colour whose 24 bits are the id.
func placeholders(id uint32, cols, rows int) []string {
	fg := fmt.Sprintf("\x1b[38;2;%d;%d;%dm", (id>>16)&0xff, (id>>8)&0xff, id&0xff)
	var out []string
	for r := range rows {
		var b strings.Builder
		b.WriteString(fg)
		for c := range cols {
			b.WriteRune(kitty.Placeholder)
			b.WriteRune(kitty.Diacritic(r))
			b.WriteRune(kitty.Diacritic(c))
		}
		b.WriteString("\x1b[39m")
		out = append(out, b.String())
	}
	return out
}

// queuedImages are the Cmds that send the thumbnails drawn but not sent.
func (v *attachView) queuedImages(b attachBackend) tea.Cmd {
	var cmds []tea.Cmd
	for path, t := range v.thumbs {
		if !t.queued {
			continue
		}
		t.queued = false
		id, cols, rows := t.id, t.cols, t.rows
		cmds = append(cmds, func() tea.Msg {
			seq, err := kittyImage(b, path, id, cols, rows)
			if err != nil {
				return imageSentMsg{path: path}
			}
			return tea.RawMsg{Msg: seq}
		})
	}
	return tea.Batch(cmds...)
}

// sent takes a thumbnail that could not be made off the screen.
func (v *attachView) sent(msg imageSentMsg) {
	if t := v.thumbs[msg.path]; t != nil && !msg.ok {
		t.bad = true
	}
}

// kittyImage is the kitty graphics sequence that transmits the attachment
// at path, scaled down to cols×rows cells, as image id with a virtual
// placement for the Unicode placeholders. The file is read through the
// resolver and only when it is at most attachment.PreviewMax bytes.
func kittyImage(b attachBackend, path string, id uint32, cols, rows int) (string, error) {
	fh, f, err := b.OpenAttachment(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	if !f.Image() {
		return "", fmt.Errorf("%s: no image to draw", f.Name)
	}
	img, _, err := image.Decode(fh)
	if err != nil {
		return "", err
	}
	small := scaleDown(img, cols*thumbPx, rows*2*thumbPx)
	var out bytes.Buffer
	err = kitty.EncodeGraphics(&out, small, &kitty.Options{
		Action: kitty.TransmitAndPut, Transmission: kitty.Direct, Format: kitty.PNG,
		ID: int(id), Columns: cols, Rows: rows, VirtualPlacement: true, Quiet: 2, Chunk: true,
	})
	return out.String(), err
}

// scaleDown is img fitted in w×h pixels (nearest neighbour: a thumbnail).
func scaleDown(img image.Image, w, h int) image.Image {
	bnd := img.Bounds()
	sw, sh := bnd.Dx(), bnd.Dy()
	if sw <= w && sh <= h {
		return img
	}
	scale := min(float64(w)/float64(sw), float64(h)/float64(sh))
	dw, dh := max(int(float64(sw)*scale), 1), max(int(float64(sh)*scale), 1)
	dst := image.NewRGBA(image.Rect(0, 0, dw, dh))
	for y := range dh {
		for x := range dw {
			dst.Set(x, y, img.At(bnd.Min.X+x*sw/dw, bnd.Min.Y+y*sh/dh))
		}
	}
	return dst
}
