package vt

import (
	"fmt"
	"image/color"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// fastPathPieces are what the random input of the fast path tests is made
// of: text the fast paths take (ASCII, wide, half-width and Latin
// characters), text they must leave to the segmenter (combining marks,
// emoji, ZWJ sequences, flags, Hangul, marks after ASCII), and everything
// that changes how a character is written (SGR, links, wraps, autowrap off,
// insert mode, character sets, single shifts, margins, origin mode, cursor
// moves, erasing, REP, scroll regions, the alternate screen, synchronized
// frames, invalid UTF-8, raw C1 bytes, cut sequences).
var fastPathPieces = []string{
	"a", "z", " ", "~", "hello", "world ", "0123456789", "main.go:42:", "{[()]}", "'\"`\\",
	"the quick brown fox jumps over the lazy dog ",
	"日本語", "ターミナル", "を", "、。", "ー", "一二三四五六七八九十", "ｶﾀｶﾅ", "ｶﾞ", "ＡＢＣ",
	"é", "ñandú", "Ωmega", "…", "–", "─┼─", "\u00a0", "\u00ad", "\u0100\u024f",
	"e\u0301", "a\u0308\u0301", "\u0301", "か\u3099", "\u3099", "ｶ\uff9e", "\u200d",
	"🙂", "👍🏽", "👨\u200d👩\u200d👧", "🇯🇵", "🇯", "한국어", "\u1100\u1161\u11a8", "क्षि", "\u0915\u094d",
	"\u3030", "\u303d", "\u2028", "\u00e0\u0300",
	"\x1b[31m", "\x1b[1;38;5;200m", "\x1b[38;2;10;20;30m", "\x1b[48;5;17m", "\x1b[44m", "\x1b[0m", "\x1b[m",
	"\x1b[4:3m", "\x1b[58;2;1;2;3m", "\x1b[7m", "\x1b[27m",
	"\x1b]8;;https://example.com\x1b\\", "\x1b]8;;\x1b\\", "\x1b]0;title\x07",
	"\r", "\n", "\r\n", "\b", "\t", "\x0b", "\x07",
	"\x1b[H", "\x1b[5;70H", "\x1b[3;1H", "\x1b[30;100H", "\x1b[10C", "\x1b[2D", "\x1b[A", "\x1b[G", "\x1b[80G", "\x1b[99G",
	"\x1b[?7l", "\x1b[?7h", "\x1b[4h", "\x1b[4l", "\x1b[2@", "\x1b[3P", "\x1b[K", "\x1b[1K", "\x1b[2J", "\x1b[X",
	"\x1b(0", "\x1b(B", "\x1b)0", "\x0e", "\x0f", "\x1bN", "\x1bO", "\x1b*0", "\x1bn", "\x1bo",
	"lqqk", "x`a~", "\x1b[5b", "\x1b[2;%[2]dr", "\x1b[r", "\x1b[?6h", "\x1b[?6l",
	"\x1b[?69h\x1b[2;%[1]ds", "\x1b[?69l", "\x1b7", "\x1b8", "\x1bD", "\x1bM", "\x1bE",
	"\x1b[?1049h", "\x1b[?1049l", "\x1b[?2026h", "\x1b[?2026l", "\x1b[?20h", "\x1b[?20l",
	"\xe6", "\xe6\x97", "\x97\xa5", "\xff", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
	"\x9b31m", "\x8e", "\x84", "\x7f", "\x1b", "\x1b[", "\x1b[3", "\x1b]0;", "\x1bP", "\x1b\\", "\x18",
	"\u0080", "\u009b", "\u009f",
}

// fastPathInput is n random pieces; long runs of text more often than
// not, so that writes split them anywhere. Margins (DECSTBM, DECSLRM) go
// to the last row and column of a w x h screen, only when w and h are known
// (no resize) and at least 3: a right margin past the screen makes
// ultraviolet's ICH/DCH panic, with or without the fast paths (README, "Not
// fixed").
func fastPathInput(rng *rand.Rand, n, w, h int) []byte {
	var b []byte
	for len(b) < n {
		if rng.IntN(3) == 0 {
			for range 1 + rng.IntN(30) {
				b = append(b, fastPathPieces[rng.IntN(20)]...) // the text pieces
			}
			continue
		}
		piece := fastPathPieces[rng.IntN(len(fastPathPieces))]
		if strings.Contains(piece, "%") {
			if w < 3 || h < 3 {
				continue
			}
			piece = fmt.Sprintf(piece, w, h)
		}
		b = append(b, piece...)
	}
	return b
}

// compareEmulators fails unless fast and slow show, hold and will do the
// same: every cell, the touched lines, cursor, pending wrap, pen, last
// character, character sets, scrollback, render and title.
func compareEmulators(t *testing.T, fast, slow *Emulator, context func() string) {
	t.Helper()
	fail := func(what string, got, want any) {
		t.Helper()
		t.Fatalf("%s\n%s:\n fast %#v\n slow %#v", context(), what, got, want)
	}
	if fast.IsAltScreen() != slow.IsAltScreen() {
		fail("alternate screen", fast.IsAltScreen(), slow.IsAltScreen())
	}
	fs, ss := fast.scr, slow.scr
	if fs.Width() != ss.Width() || fs.Height() != ss.Height() {
		fail("size", fs.Bounds(), ss.Bounds())
	}
	for y := range fs.Height() {
		for x := range fs.Width() {
			if a, b := fs.CellAt(x, y), ss.CellAt(x, y); *a != *b {
				fail(fmt.Sprintf("cell %d,%d", x, y), *a, *b)
			}
		}
	}
	ft, st := fs.Touched(), ss.Touched()
	for y := range max(len(ft), len(st)) {
		var a, b *uv.LineData
		if y < len(ft) {
			a = ft[y]
		}
		if y < len(st) {
			b = st[y]
		}
		if (a == nil) != (b == nil) || a != nil && *a != *b {
			fail(fmt.Sprintf("touched line %d", y), a, b)
		}
	}
	if fs.cur != ss.cur || fs.saved != ss.saved || fs.scroll != ss.scroll {
		fail("cursor, saved cursor, scroll region", []any{fs.cur, fs.saved, fs.scroll}, []any{ss.cur, ss.saved, ss.scroll})
	}
	if fast.atPhantom != slow.atPhantom || fast.lastChar != slow.lastChar || fast.gl != slow.gl ||
		fast.gr != slow.gr || fast.gsingle != slow.gsingle || !reflect.DeepEqual(fast.charsets, slow.charsets) {
		fail("pending wrap, last character, character sets",
			[]any{fast.atPhantom, fast.lastChar, fast.gl, fast.gr, fast.gsingle},
			[]any{slow.atPhantom, slow.lastChar, slow.gl, slow.gr, slow.gsingle})
	}
	if !slices.Equal(fast.grapheme, slow.grapheme) || fast.parser.State() != slow.parser.State() {
		fail("cluster buffer, parser state", []any{fast.grapheme, fast.parser.State()}, []any{slow.grapheme, slow.parser.State()})
	}
	if a, b := fast.ScrollbackLen(), slow.ScrollbackLen(); a != b {
		fail("scrollback length", a, b)
	}
	for i := range fast.ScrollbackLen() {
		if a, b := fast.Scrollback().Line(i), slow.Scrollback().Line(i); !slices.Equal(a, b) {
			fail(fmt.Sprintf("scrollback line %d", i), a, b)
		}
	}
	if a, b := fast.Render(), slow.Render(); a != b {
		fail("render", a, b)
	}
	if fast.title != slow.title {
		fail("title", fast.title, slow.title)
	}
}

// TestPatchFastPathSameAsParser writes the same random input (see
// fastPathPieces) in the same random pieces to an emulator with the fast
// paths of change 14 and to one without (slow: every byte through the
// parser, every cluster through the segmenter, upstream's SetCell and mode
// lookups), and compares them after every write. Some runs resize the
// emulators now and then, some set a cursor callback (which turns the
// ASCII line writer off) and compare what it was called with.
func TestPatchFastPathSameAsParser(t *testing.T) {
	runs := 40
	if testing.Short() {
		runs = 10
	}
	for run := range runs {
		rng := rand.New(rand.NewPCG(14, uint64(run)))
		w, h := []int{100, 80, 10, 3, 1}[run%5], []int{30, 24, 5, 2, 1}[run/5%5]
		fast, slow := NewEmulator(w, h), NewEmulator(w, h)
		slow.slow = true
		fast.SetScrollbackSize(50)
		slow.SetScrollbackSize(50)
		var fastMoves, slowMoves []string
		if run%4 == 3 {
			fast.SetCallbacks(Callbacks{CursorPosition: func(o, n uv.Position) { fastMoves = append(fastMoves, fmt.Sprint(o, n)) }})
			slow.SetCallbacks(Callbacks{CursorPosition: func(o, n uv.Position) { slowMoves = append(slowMoves, fmt.Sprint(o, n)) }})
		}
		go drain(fast)
		go drain(slow)
		mw, mh := w, h
		if run%3 == 1 {
			mw, mh = 0, 0 // resized: no margins
		}
		in := fastPathInput(rng, 15000, mw, mh)
		var written []string
		for p := in; len(p) > 0; {
			n := min(len(p), []int{1, 2, 3, 7, 64, 4096}[rng.IntN(6)])
			chunk := p[:n]
			p = p[n:]
			if run%3 == 1 && rng.IntN(40) == 0 {
				nw, nh := 1+rng.IntN(40), 1+rng.IntN(12)
				fast.Resize(nw, nh)
				slow.Resize(nw, nh)
				written = append(written, fmt.Sprintf("resize %dx%d", nw, nh))
			}
			_, _ = slow.Write(chunk)
			_, _ = fast.Write(chunk)
			written = append(written, fmt.Sprintf("%q", chunk))
			compareEmulators(t, fast, slow, func() string {
				return fmt.Sprintf("run %d (%dx%d), after writes ...%s", run, w, h, strings.Join(written[max(0, len(written)-6):], " "))
			})
			if !slices.Equal(fastMoves, slowMoves) {
				t.Fatalf("run %d: cursor callbacks differ:\n fast %v\n slow %v", run, fastMoves, slowMoves)
			}
		}
		_ = fast.Close()
		_ = slow.Close()
	}
}

// drain reads an emulator's replies until it is closed, as a pane does.
func drain(e *Emulator) {
	buf := make([]byte, 256)
	for {
		if _, err := e.Read(buf); err != nil {
			return
		}
	}
}

// TestPatchFastPathCases are the edges one by one, fast against slow:
// ASCII reaching the last column with and without autowrap, a pending wrap
// before a run, a run over wide characters and their halves, a combining
// mark right after a run, DEC special graphics, a single shift before a
// run, insert mode, a run ending a write, UTF-8 cut between writes, a wrap
// below a scroll region that reaches past the screen.
func TestPatchFastPathCases(t *testing.T) {
	cases := [][]string{
		{"0123456789abc"},
		{"\x1b[?7l0123456789abcdef"},
		{"012345678", "9", "abc"},
		{"日本語日本語", "\x1b[Habcdefghijkl"},
		{"日本語日本語", "\x1b[1;2Habc"},
		{"abc\u0301def"},
		{"abc", "\u0301def"},
		{"\x1b(0lqqqqqqk\x1b(Bok"},
		{"\x1bNabc", "\x1bOxyz"},
		{"\x1b)0\x0eabc\x0fabc"},
		{"0123456789\x1b[4h\x1b[1;3Hxyz"},
		{"\x1b[5;8r\x1b[8;1H" + strings.Repeat("line of text ", 20)},
		{"ab\xe6", "\x97\xa5cd"},
		{"abc\xe6\x97", "\xa5"},
		{"\x1b[?69h\x1b[3;6s\x1b[1;3H0123456789"},
		{"x\x1b[5bY"},
		{"ｶﾀｶﾅ\uff9eｶ", "\uff9e"},
		{"か", "\u3099"},
		{"\x1b[1;100r\x1b[10;1H" + strings.Repeat("wrap ", 10)}, // a region past the screen (upstream does not clamp)
		{"\x1b[1;100r\x1b[10;1H日本語の" + strings.Repeat("折り返し", 5)},
	}
	for i, c := range cases {
		fast, slow := NewEmulator(10, 10), NewEmulator(10, 10)
		slow.slow = true
		for j, s := range c {
			_, _ = fast.WriteString(s)
			_, _ = slow.WriteString(s)
			compareEmulators(t, fast, slow, func() string { return fmt.Sprintf("case %d %q, write %d", i, c, j) })
		}
	}
}

// TestPatchGroundPrintsText: what printRun takes from the parser is what
// the emulator's transition table prints in the ground state (printable
// ASCII), or collects as UTF-8 there (the lead bytes of printRun's
// characters).
func TestPatchGroundPrintsText(t *testing.T) {
	table := parserTable()
	for b := 0x20; b < 0x7f; b++ {
		if state, action := table.Transition(parser.GroundState, byte(b)); state != parser.GroundState || action != parser.PrintAction {
			t.Errorf("%#x in the ground state: %v %v, want print", b, parser.StateNames[state], parser.ActionNames[action])
		}
	}
	for b := 0xc2; b <= 0xf4; b++ {
		if state, _ := table.Transition(parser.GroundState, byte(b)); state != parser.Utf8State {
			t.Errorf("%#x in the ground state goes to %v, want UTF-8", b, parser.StateNames[state])
		}
	}
}

// TestPatchSimpleRunes checks every rune simpleRuneWidth knows against the
// segmenter and ansi.GraphemeWidth: alone it is a cluster of that width,
// and next to printable ASCII or the first and last rune of each range
// (and random others) it stays one on either side.
func TestPatchSimpleRunes(t *testing.T) {
	var all []rune
	for r := rune(0); r <= 0x10ffff; r++ {
		if simpleRuneWidth(r) > 0 {
			all = append(all, r)
		}
	}
	sample := []rune{' ', 'a', '~'}
	for i, r := range all {
		if i == 0 || r != all[i-1]+1 || i == len(all)-1 || all[i+1] != r+1 {
			sample = append(sample, r)
		}
	}
	pair := func(a, b rune) {
		if c, _ := ansi.FirstGraphemeCluster(string(a)+string(b), ansi.GraphemeWidth); c != string(a) {
			t.Fatalf("%U then %U: first cluster %q", a, b, c)
		}
	}
	for _, r := range all {
		s := string(r)
		if c, w := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth); c != s || w != simpleRuneWidth(r) {
			t.Fatalf("%U: cluster %q width %d, simpleRuneWidth %d", r, c, w, simpleRuneWidth(r))
		}
		for _, o := range sample {
			pair(r, o)
			pair(o, r)
		}
	}
	rng := rand.New(rand.NewPCG(14, 4))
	for range 100000 {
		pair(all[rng.IntN(len(all))], all[rng.IntN(len(all))])
	}
	t.Logf("%d simple runes, %d in the sample", len(all), len(sample))
}

// TestPatchCellComparisons: cellEqualUV is (*uv.Cell).Equal, blankCell is
// IsZero || Equal(&uv.EmptyCell), colorSame is what it was with sameWords
// in front, on random cells whose colours include equal values of
// different types.
func TestPatchCellComparisons(t *testing.T) {
	colors := []color.Color{nil, nil, ansi.BasicColor(1), ansi.IndexedColor(1), ansi.BasicColor(9),
		ansi.IndexedColor(200), color.RGBA{1, 2, 3, 255}, ansi.RGBColor{R: 1, G: 2, B: 3}, ansi.TrueColor(0x010203),
		color.Gray{7}, color.NRGBA{1, 2, 3, 255}, color.RGBA{0x80, 0, 0, 0xff}}
	rng := rand.New(rand.NewPCG(14, 2))
	cell := func() uv.Cell {
		c := uv.Cell{Content: []string{"", " ", "a", "日", "  "}[rng.IntN(5)], Width: rng.IntN(3)}
		if rng.IntN(2) == 0 {
			c.Style = uv.Style{Fg: colors[rng.IntN(len(colors))], Bg: colors[rng.IntN(len(colors))],
				UnderlineColor: colors[rng.IntN(len(colors))], Attrs: uint8(rng.IntN(2)), Underline: uv.Underline(rng.IntN(2))}
		}
		if rng.IntN(8) == 0 {
			c.Link = uv.Link{URL: "u"}
		}
		return c
	}
	for range 200000 {
		a, b := cell(), cell()
		if rng.IntN(4) == 0 {
			b = a
		}
		if got, want := cellEqualUV(&a, &b), a.Equal(&b); got != want {
			t.Fatalf("cellEqualUV(%#v, %#v) = %v, Equal %v", a, b, got, want)
		}
		if got, want := blankCell(&a), a.IsZero() || a.Equal(&uv.EmptyCell); got != want {
			t.Fatalf("blankCell(%#v) = %v, want %v", a, got, want)
		}
		fa, fb := a.Style.Fg, b.Style.Fg
		if got, want := colorSame(fa, fb), fa == fb; got != want {
			t.Fatalf("colorSame(%#v, %#v) = %v, want %v", fa, fb, got, want)
		}
	}
}

// TestPatchFastPathAllocs: text scrolling through a full scrollback
// allocates nothing once its characters have been seen: no string per
// character (upstream: one for every non-ASCII cluster).
func TestPatchFastPathAllocs(t *testing.T) {
	e := NewEmulator(100, 30)
	e.SetScrollbackSize(100)
	line := []byte("\x1b[32m日本語の\x1b[mテキストと ascii text, ｶﾀｶﾅ and é\r\n")
	for range 200 {
		_, _ = e.Write(line)
	}
	if n := testing.AllocsPerRun(200, func() { _, _ = e.Write(line) }); n != 0 {
		t.Errorf("%.1f allocations a line, want 0", n)
	}
}

// TestPatchClusterString: the cache gives back what it was given, for
// every length and for slots taken over by other clusters.
func TestPatchClusterString(t *testing.T) {
	e := NewEmulator(1, 1)
	rng := rand.New(rand.NewPCG(14, 3))
	for range 100000 {
		b := make([]byte, rng.IntN(10))
		for i := range b {
			b[i] = byte(rng.IntN(4)) + 0xe0
		}
		if s := e.clusterString(b); s != string(b) {
			t.Fatalf("clusterString(%q) = %q", b, s)
		}
	}
	for _, s := range []string{"a", "é", "日", "🙂", "e\u0301"} {
		if got := e.clusterString([]byte(s)); got != s || !utf8.ValidString(got) {
			t.Fatalf("clusterString(%q) = %q", s, got)
		}
	}
}
