package tui

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// rowsModel shows rows set by rowsMsg.
type rowsModel struct{ content string }

type rowsMsg string

func (m *rowsModel) Init() tea.Cmd { return nil }
func (m *rowsModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s, ok := msg.(rowsMsg); ok {
		m.content = string(s)
	}
	return m, nil
}
func (m *rowsModel) View() tea.View { return tea.View{AltScreen: true, Content: m.content} }

// emuOut is a terminal: what the program writes goes into an emulator.
type emuOut struct {
	mu      sync.Mutex
	emu     *vt.Emulator
	changed chan struct{}
}

func (o *emuOut) Write(p []byte) (int, error) {
	o.mu.Lock()
	// The program's output is not its own tty: "\n" is a new line (ONLCR).
	_, _ = o.emu.Write([]byte(strings.ReplaceAll(string(p), "\n", "\r\n")))
	o.mu.Unlock()
	select {
	case o.changed <- struct{}{}:
	default:
	}
	return len(p), nil
}

// framePieces are what random rows are made of: plain and wide text, styles
// ending on their row or running on into the rows below, hyperlinks, a
// combining mark, text past the right edge.
var framePieces = []string{
	"plain ", "日本語の行 ", "│", "\x1b[31m", "\x1b[1;44m", "\x1b[38;5;208m", "\x1b[38;2;10;200;30m",
	"\x1b[m", "\x1b[0m", "\x1b[7m", "\x1b]8;;https://example.com\x1b\\", "\x1b]8;;\x1b\\", "e\u0301", "x", "   ",
	"\x1b[4m",
}

// The renderer draws only the rows of a frame that changed (third_party/
// bubbletea, pullcept_rows.go); what the terminal shows after every frame is
// still exactly the frame drawn whole: the same text, widths, styles and
// links in every cell.
func TestChangedRowsOnTheTerminal(t *testing.T) {
	t.Parallel()
	const w, h = 40, 10
	out := &emuOut{emu: vt.NewEmulator(w, h), changed: make(chan struct{}, 1)}
	go func() { // the emulator's answers to queries
		buf := make([]byte, 256)
		for {
			if _, err := out.emu.Read(buf); err != nil {
				return
			}
		}
	}()
	p := tea.NewProgram(&rowsModel{content: "start"}, tea.WithInput(nil), tea.WithOutput(out), tea.WithWindowSize(w, h),
		tea.WithColorProfile(colorprofile.TrueColor), tea.WithFPS(120), tea.WithOnDemandFrames(),
		tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithoutSignalHandler())
	done := make(chan struct{})
	go func() { _, _ = p.Run(); close(done) }()
	t.Cleanup(func() {
		p.Quit()
		<-done
		out.emu.Close()
	})

	rnd := rand.New(rand.NewPCG(3, 4))
	row := func() string {
		var b strings.Builder
		for n := rnd.IntN(7); n > 0; n-- {
			b.WriteString(framePieces[rnd.IntN(len(framePieces))])
		}
		if rnd.IntN(4) == 0 {
			b.WriteString(strings.Repeat("w", rnd.IntN(w+8)))
		}
		return b.String()
	}
	lines := make([]string, h)
	for i := range lines {
		lines[i] = row()
	}
	for frame := range 300 {
		for n := rnd.IntN(3); n > 0; n-- {
			lines[1+rnd.IntN(h-1)] = row()
		}
		// Row 0 names the frame, so each frame is seen to arrive.
		lines[0] = fmt.Sprintf("\x1b[mframe %d", frame)
		content := strings.Join(lines, "\n")
		p.Send(rowsMsg(content))
		want := uv.NewScreenBuffer(w, h)
		want.Clear()
		uv.NewStyledString(content).Draw(want, want.Bounds())
		deadline := time.After(10 * time.Second)
		for {
			out.mu.Lock()
			diff := screenDiff(out.emu, want)
			out.mu.Unlock()
			if diff == "" {
				break
			}
			select {
			case <-out.changed:
				continue
			case <-deadline:
			}
			t.Fatalf("frame %d: %s\ncontent %q", frame, diff, content)
		}
	}
}

// screenDiff names the first cell where the emulator's screen differs from
// want, or is "".
func screenDiff(e *vt.Emulator, want uv.ScreenBuffer) string {
	for y := range want.Height() {
		for x := range want.Width() {
			g, c := e.CellAt(x, y), want.CellAt(x, y)
			if g == nil || c == nil {
				return fmt.Sprintf("no cell at %d,%d", x, y)
			}
			gc, cc := g.Content, ansi.Strip(c.Content)
			if gc == "" {
				gc = " "
			}
			if cc == "" {
				cc = " "
			}
			gs, cs := g.Style, c.Style
			if gc == " " && cc == " " {
				// A blank shows its background, reverse video and
				// underline only; the renderer erases runs of blanks,
				// which drops the rest (a whole draw does the same).
				gs, cs = blankLook(gs), blankLook(cs)
				g.Link, c.Link = uv.Link{}, uv.Link{}
			}
			if gc != cc || g.Width != c.Width || !gs.Equal(&cs) || g.Link.URL != c.Link.URL {
				return fmt.Sprintf("cell %d,%d on the terminal %+v, drawn whole %+v", x, y, *g, *c)
			}
		}
	}
	return ""
}

// blankLook is what of a style a blank cell shows.
func blankLook(s uv.Style) uv.Style {
	b := uv.Style{Bg: s.Bg, Attrs: s.Attrs & uv.AttrReverse, Underline: s.Underline}
	if s.Attrs&uv.AttrReverse != 0 {
		b.Fg = s.Fg
	}
	if s.Underline != 0 {
		b.UnderlineColor = s.UnderlineColor
	}
	return b
}
