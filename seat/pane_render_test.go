package seat

import (
	"bytes"
	"fmt"
	"image/color"
	"math/rand/v2"
	"strings"
	"testing"
	"unsafe"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// The row cache renders exactly what the emulator renders, whatever the
// output did since the last render: text, styles, wide characters, erases,
// scrolling, the alternate screen, resets and a resize (it reads only the
// rows the emulator marked touched, so a change it did not mark fails here).
func TestRowCacheRendersAsTheEmulator(t *testing.T) {
	t.Parallel()
	e := vt.NewEmulator(30, 8)
	go func() { // the emulator's answers to queries
		buf := make([]byte, 256)
		for {
			if _, err := e.Read(buf); err != nil {
				return
			}
		}
	}()
	defer e.Close()
	pieces := []string{"plain ", "日本語 ", "\x1b[31m", "\x1b[1;44m", "\x1b[38;5;208m", "\x1b[38;2;1;2;3m", "\x1b[m",
		"\r\n", "\r", "\x1b[H", "\x1b[3;5H", "\x1b[K", "\x1b[2J", "\x1b[1L", "\x1b[2M", "\x1b[?1049h", "\x1b[?1049l",
		"e\u0301", "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\", "\x1b[5@", "\x1b[3P", "\x1b[2S", "\x1b[T",
		strings.Repeat("w", 35), "\x1b[2;6r", "\x1b[r", "\x1b[7m \x1b[m", "\t",
		"\x1bc", "\x1bD", "\x1bM", "\x1b[4h", "\x1b[4l", "\x1b(0qx\x1b(B", "\x1b[?7l", "\x1b[?7h",
		"\x1b[3X", "\x1b[J", "\x1b[1J", "\x1b[2K", "\x1b[1K", "\x1b[?6h", "\x1b[?6l", "\x1b[?1047h", "\x1b[?1047l", "\x1b[3;3r\x1b[4S",
		"\x1b#8", "\x1b[5b", "\x08\x08", "\x1b[2;10H\x1b[3@\x1b[2P"}
	for seed := range uint64(4) {
		rowCacheRounds(t, e, pieces, seed)
	}
}

// rowCacheRounds writes random pieces to e and checks the row cache's
// render against the emulator's after each round.
func rowCacheRounds(t *testing.T, e *vt.Emulator, pieces []string, seed uint64) {
	rnd := rand.New(rand.NewPCG(5+seed, 6))
	var c rowCache
	for round := range 6000 {
		for n := rnd.IntN(6); n > 0; n-- {
			_, _ = e.WriteString(pieces[rnd.IntN(len(pieces))])
		}
		if round%500 == 499 {
			e.Resize(20+rnd.IntN(20), 5+rnd.IntN(6))
		}
		if got, want := c.render(e), e.Render(); got != want {
			t.Fatalf("seed %d round %d: the row cache rendered\n%q\nthe emulator\n%q", seed, round, got, want)
		}
	}
}

// BenchmarkPaneRender is a 158x37 pane of shell-like text rendered after
// one more character was echoed: the row cache, and the emulator's own
// render of every row.
func BenchmarkPaneRender(b *testing.B) {
	e := vt.NewSafeEmulator(158, 37)
	for i := range 17 {
		fmt.Fprintf(e, "\x1b[32m$\x1b[m cat notes-%02d.txt\r\n%s\r\n", i, strings.Repeat("the quick brown fox ", 3))
	}
	for _, cached := range []bool{true, false} {
		name := map[bool]string{true: "row-cache", false: "emulator"}[cached]
		b.Run(name, func(b *testing.B) {
			var c rowCache
			b.ReportAllocs()
			for i := range b.N {
				_, _ = e.WriteString(string(rune('a' + i%26)))
				if cached {
					_ = c.render(e.Emulator)
				} else {
					_ = e.Render()
				}
			}
		})
	}
}

// A row's key tells apart every way two rows can draw differently, and
// only those: equal cells in other memory have one key.
func TestRowKeyByValue(t *testing.T) {
	base := func() uv.Line {
		l := make(uv.Line, 3)
		for i := range l {
			l[i] = uv.Cell{Content: strings.Clone("日"), Width: 2}
		}
		l[1].Style.Fg = ansi.BasicColor(1)
		return l
	}
	key := rowKey(nil, base())
	if again := rowKey(nil, base()); !bytes.Equal(key, again) {
		t.Fatal("equal rows in other memory have two keys")
	}
	changes := map[string]func(l uv.Line){
		"text":            func(l uv.Line) { l[0].Content = "本" },
		"width":           func(l uv.Line) { l[0].Width = 1 },
		"attrs":           func(l uv.Line) { l[2].Style.Attrs = uv.AttrBold },
		"underline":       func(l uv.Line) { l[2].Style.Underline = uv.UnderlineCurly },
		"colour's type":   func(l uv.Line) { l[1].Style.Fg = ansi.IndexedColor(1) },
		"colour":          func(l uv.Line) { l[1].Style.Fg = ansi.BasicColor(2) },
		"background":      func(l uv.Line) { l[1].Style.Bg = ansi.TrueColor(0x102030) },
		"true colour":     func(l uv.Line) { l[1].Style.Fg = color.RGBA{1, 2, 3, 255} },
		"underline color": func(l uv.Line) { l[0].Style.UnderlineColor = ansi.IndexedColor(9) },
		"link":            func(l uv.Line) { l[0].Link.URL = "https://example.com" },
		"link params":     func(l uv.Line) { l[0].Link.Params = "id=1" },
		"text to a link":  func(l uv.Line) { l[0].Content, l[0].Link.URL = "", "日" },
	}
	for name, change := range changes {
		l := base()
		change(l)
		if bytes.Equal(rowKey(nil, l), key) {
			t.Errorf("%s changed, the key did not", name)
		}
	}
}

// The cache keeps keys and text, not a copy of the screen's cells.
func TestRowCacheKeepsNoCells(t *testing.T) {
	e := vt.NewEmulator(100, 30)
	defer e.Close()
	for i := range 40 {
		fmt.Fprintf(e, "\x1b[3%dmline %d\x1b[m\r\n", i%8, i)
	}
	var c rowCache
	_ = c.render(e)
	kept := cap(c.cells) * int(unsafe.Sizeof(uv.Cell{}))
	for _, k := range c.keys {
		kept += cap(k)
	}
	if screen := 100 * 30 * int(unsafe.Sizeof(uv.Cell{})); kept > screen/4 {
		t.Errorf("the row cache keeps %d bytes for a 100x30 pane (its cells are %d)", kept, screen)
	}
}
