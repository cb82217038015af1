package tui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/vt"

	"pullcept/room"
	"pullcept/topicstore"
)

// ctlPane shows a fixed screen, padded to its size: the rows a pane's
// emulator rendered before it dropped C1 controls (issue 32 finding 2), and
// sequences no emulator renders, for the renderer's own defence.
type ctlPane struct {
	fakePane
	rows []string
}

func (p *ctlPane) Render() string { return p.RenderScrolled(0) }

func (p *ctlPane) RenderScrolled(int) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, p.fakePane.rows)
	for i := range out {
		if i < len(p.rows) {
			out[i] = p.rows[i]
		}
		out[i] += strings.Repeat(" ", max(p.cols-textWidth(out[i]), 0))
	}
	return strings.Join(out, "\n")
}

// No byte of a pane's screen reaches the person's terminal as a control:
// no C1 control (U+0080-U+009F, as UTF-8 or raw), no OSC but the renderer's
// own links, no DCS, APC, PM or SOS. Before: main's emulator kept C1
// controls in cells, and the frame wrote "\u009d52;c;aGk=\u009c" (an OSC
// 52 clipboard write to a terminal acting on UTF-8 C1) and "\u009b2J".
func TestPaneControlsNeverReachTheTerminal(t *testing.T) {
	t.Parallel()
	st, err := topicstore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	eng := room.New(room.Config{Log: st, PersonName: "you"})
	fs := newFakeSeats(Account{ID: "cat", Name: "cat", Kind: "cli"})
	pane := &ctlPane{rows: []string{
		"marker-one \u009d52;c;aGk=\u009c",
		"A\u009b2J B\u0090q\u009c C\u009f D\u0085",
		"\x1b_Ga=T\x1b\\apc \x1bP1$r\x1b\\dcs \x1b^pm\x1b\\ \x1bXsos\x1b\\",
		"\x1b]8;;http://x\u009c\x1b]0;t\x07\x1b\\link\x1b]8;;\x1b\\ \x9b2J raw",
	}}
	fs.seats[""] = []SeatInfo{{Account: "cat", Name: "cat", Kind: "cli", State: StateRunning, Pane: pane}}
	in, inW := io.Pipe()
	out := &stampOut{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	tb := &testBackend{eng: eng, store: st}
	go func() {
		done <- Run(ctx, Options{App: tb, Seats: anySeats{fs}, In: in, Out: out, Width: 100, Height: 30, FPS: 60})
	}()
	defer func() {
		cancel()
		_ = inW.Close()
		if err := <-done; err != nil {
			t.Error(err)
		}
		tb.close()
	}()
	out.waitFor(t, "marker-one", time.Now().Add(-time.Hour))
	out.waitQuiet(t, 300*time.Millisecond)
	out.mu.Lock()
	var all strings.Builder
	for _, w := range out.writes {
		all.WriteString(w.s)
	}
	out.mu.Unlock()
	if bad := terminalControls(all.String()); bad != "" {
		t.Errorf("the frame wrote %s:\n%q", bad, all.String())
	}
}

// terminalControls says what in out (bytes for the person's terminal) is a
// control no pane may cause, or "" when there is none: a C1 control as a
// UTF-8 character or a byte outside UTF-8, an OSC other than a link
// (OSC 8) with printable parameters and URL, a DCS, APC, PM or SOS. The
// renderer's own 7-bit CSIs and C0 controls (CR, LF, BS) are allowed.
func terminalControls(out string) string {
	if !utf8.ValidString(out) {
		return "a byte outside UTF-8"
	}
	for i, r := range out {
		if r >= 0x80 && r < 0xA0 {
			return fmt.Sprintf("C1 control U+%04X at %d", r, i)
		}
		if r != 0x1b || i+1 >= len(out) {
			continue
		}
		switch out[i+1] {
		case 'P', '_', '^', 'X':
			return fmt.Sprintf("a DCS, APC, PM or SOS at %d", i)
		case ']':
			body, _, ok := strings.Cut(out[i+2:], "\x1b\\")
			if b, _, bel := strings.Cut(out[i+2:], "\a"); bel && (!ok || len(b) < len(body)) {
				body, ok = b, true
			}
			if !ok || !strings.HasPrefix(body, "8;") || strings.ContainsFunc(body, func(r rune) bool { return r < 0x20 || r >= 0x7F && r < 0xA0 }) {
				return fmt.Sprintf("an OSC other than a link at %d", i)
			}
		}
	}
	return ""
}

// FuzzPaneNeverEmitsControls: no bytes a pane's program writes make the
// person's terminal receive a C1 control, an OSC other than a clean link, a
// DCS, APC, PM or SOS (terminalControls): the pane's emulator takes a,
// its screen is drawn as Bubble Tea draws a frame (the view's text into a
// cell buffer, the terminal renderer's diff out), then b and a second
// frame, then the whole screen again for another screen attaching later.
func FuzzPaneNeverEmitsControls(f *testing.F) {
	f.Add([]byte("\xc2\x9d0;title\xc2\x9c\r\n"), []byte("\xc2\x9d52;c;aGk=\xc2\x9c\x1b[5C\xc2\x9b2J"))
	var all []byte
	for r := rune(0x80); r < 0xA0; r++ {
		all = append(all, "x"...)
		all = utf8.AppendRune(all, r)
		all = append(all, "\x1b[C"...)
	}
	f.Add(all, []byte("\r\n\x9d0;raw\x07\x9b2J\x90q\x9c"))
	f.Add([]byte("\x1b]8;;http://x\xc2\x9c\x1b]0;t\x07\x1b\\link\x1b]8;;\x1b\\ \x1b]8;id=1;http://ok/\x1b\\ok\x1b]8;;\x1b\\"),
		[]byte("\x1b_Ga=T\x1b\\\x1bP1$r\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\\x1b]52;c;aGk=\x07"))
	f.Add([]byte("e\xcc\x81\xc2\x85\xe2\x9c\xb3\xe6\x9c\xac\x1b[31m\xc2\x9c\x1b[m"), []byte("\x1b[?1049h\xc2\x9dz\x1b[2;3H\xc2\x9e"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		const w, h = 24, 5
		e := vt.NewEmulator(w, h)
		defer e.Close()
		go func() { _, _ = io.Copy(io.Discard, e) }() // its answers to queries
		var first, later bytes.Buffer
		screen, other := newFrameRenderer(&first, w, h), newFrameRenderer(&later, w, h)
		_, _ = e.Write(a)
		screen(e.Render())
		_, _ = e.Write(b)
		screen(e.Render())
		other(e.Render())
		for _, out := range []string{first.String(), later.String()} {
			if bad := terminalControls(out); bad != "" {
				t.Fatalf("%q then %q: the terminal got %s:\n%q", a, b, bad, out)
			}
		}
	})
}

// newFrameRenderer draws frames of w x h to out as Bubble Tea's renderer
// does: the view's text into a cleared cell buffer, then the terminal
// renderer's changes since the last frame.
func newFrameRenderer(out io.Writer, w, h int) func(view string) {
	r := uv.NewTerminalRenderer(out, []string{"TERM=xterm-256color", "COLORTERM=truecolor"})
	r.SetColorProfile(colorprofile.TrueColor) // links are written
	r.SetFullscreen(true)
	buf := uv.NewScreenBuffer(w, h)
	return func(view string) {
		buf.Clear()
		uv.NewStyledString(view).Draw(buf, buf.Bounds())
		r.Render(buf.RenderBuffer)
		_ = r.Flush()
	}
}
