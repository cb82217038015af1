package vt

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"strconv"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// PATCH(pullcept): answers to queries xterm answers and the released
// emulator ignored (README section 9): DECRQSS, OSC 4 (and 104), CSI 18 t.

// registerPatchHandlers is called last by registerDefaultHandlers.
func (e *Emulator) registerPatchHandlers() {
	e.RegisterDcsHandler(ansi.Command(0, '$', 'q'), func(_ ansi.Params, data []byte) bool {
		// Request Status String [ansi.DECRQSS]
		e.reply(e.statusString(string(data)))
		return true
	})

	e.RegisterCsiHandler('t', func(params ansi.Params) bool {
		// Window manipulation (XTWINOPS): only the text area size report.
		if n, _, _ := params.Param(0, 0); n == 18 && len(params) == 1 {
			e.reply(fmt.Sprintf("\x1b[8;%d;%dt", e.Height(), e.Width()))
			return true
		}
		return false
	})

	e.RegisterOscHandler(4, func(data []byte) bool {
		e.handlePalette(data)
		return true
	})
	e.RegisterOscHandler(104, func(data []byte) bool {
		e.resetPalette(data)
		return true
	})
}

func (e *Emulator) reply(s string) { _, _ = io.WriteString(e.pw, s) }

// statusString answers DECRQSS for pt as xterm does: DCS 1 $ r <setting>
// ST when known, DCS 0 $ r ST when not.
func (e *Emulator) statusString(pt string) string {
	var v string
	switch pt {
	case "m": // SGR
		v = sgrReport(&e.scr.cur.Pen) + "m"
	case "r": // DECSTBM
		r := e.scr.ScrollRegion()
		v = fmt.Sprintf("%d;%dr", r.Min.Y+1, r.Max.Y)
	case "s": // DECSLRM
		r := e.scr.ScrollRegion()
		v = fmt.Sprintf("%d;%ds", r.Min.X+1, r.Max.X)
	case " q": // DECSCUSR
		c := e.scr.cur
		n := int(c.Style)*2 + 1
		if c.Steady {
			n++
		}
		v = fmt.Sprintf("%d q", n)
	case "\"p": // DECSCL: the level DA1 claims (VT220), 7-bit controls
		v = "62;1\"p"
	case "\"q": // DECSCA: no protected characters
		v = "0\"q"
	case "t", "*|": // DECSLPP, DECSNLS: lines on the screen
		v = strconv.Itoa(e.Height()) + pt
	default:
		return "\x1bP0$r\x1b\\"
	}
	return "\x1bP1$r" + v + "\x1b\\"
}

// sgrReport is the pen as SGR parameters, starting with 0 as xterm's.
func sgrReport(pen *uv.Style) string {
	s := pen.String() // "\x1b[m" or "\x1b[1;31m"
	s = strings.TrimSuffix(strings.TrimPrefix(s, "\x1b["), "m")
	if s == "" || s == "0" {
		return "0"
	}
	return "0;" + s
}

// handlePalette sets or queries palette entries: "4;c;spec[;c;spec...]",
// where spec "?" asks for the colour. Each answer is its own OSC, ended as
// the query was (BEL or ST), as xterm and tmux do.
func (e *Emulator) handlePalette(data []byte) {
	parts := bytes.Split(data, []byte{';'})
	if len(parts) < 3 || len(parts)%2 == 0 {
		return // "4" then pairs
	}
	end := "\x1b\\"
	if e.cur == ansi.BEL {
		end = "\a"
	}
	for i := 1; i+1 < len(parts); i += 2 {
		n, err := strconv.Atoi(string(parts[i]))
		if err != nil || n < 0 || n > 255 {
			continue
		}
		spec := string(parts[i+1])
		if spec == "?" {
			e.reply(fmt.Sprintf("\x1b]4;%d;%s%s", n, xrgb(e.IndexedColor(n)), end))
		} else if c := ansi.XParseColor(spec); c != nil {
			e.SetIndexedColor(n, c)
		}
	}
}

// resetPalette is OSC 104: the listed entries, or all, back to default.
func (e *Emulator) resetPalette(data []byte) {
	parts := bytes.Split(data, []byte{';'})
	if len(parts) < 2 || (len(parts) == 2 && len(parts[1]) == 0) {
		e.colors = [256]color.Color{}
		return
	}
	for _, p := range parts[1:] {
		if n, err := strconv.Atoi(string(p)); err == nil && n >= 0 && n <= 255 {
			e.colors[n] = nil
		}
	}
}

// xrgb is c in xterm's rgb:rrrr/gggg/bbbb form (each 8-bit channel
// doubled, as xterm and tmux print it).
func xrgb(c color.Color) string {
	r, g, b, _ := c.RGBA() // 16-bit channels
	return fmt.Sprintf("rgb:%04x/%04x/%04x", (r>>8)*0x101, (g>>8)*0x101, (b>>8)*0x101)
}
