package tui

// Drawing helpers: fitting text to a width, SGR colours, the speaker colour.

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	colorful "github.com/lucasb-eyer/go-colorful"
)

const sgrReset = "\x1b[m"

// ellipsis cuts s to w cells, ending in … when something was cut: the
// one way the screen cuts a line (fit cuts through it), so a person can
// always tell a cut line from a short one.
func ellipsis(s string, w int) string {
	if w <= 0 || ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// fit makes s exactly w cells wide: cut with … (ellipsis), padded with
// spaces, attributes reset at the end.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := textWidth(s)
	if sw > w {
		s = ellipsis(s, w)
		sw = textWidth(s)
	}
	pad := w - sw
	if strings.IndexByte(s, 0x1b) >= 0 {
		s += sgrReset
	}
	if pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// style wraps s in SGR codes (such as "1" bold, "7" reverse, "2" dim).
func style(s string, codes ...string) string {
	if len(codes) == 0 || s == "" {
		return s
	}
	return "\x1b[" + strings.Join(codes, ";") + "m" + s + sgrReset
}

// fgHex is the SGR code of a #rrggbb foreground.
func fgHex(hex string) string {
	c, err := colorful.Hex(hex)
	if err != nil {
		return "39"
	}
	r, g, b := c.RGB255()
	return fmt.Sprintf("38;2;%d;%d;%d", r, g, b)
}

// hueColor is a speaker's colour: the declared hue, or one derived from
// the name.
func hueColor(hue *int, name string) string {
	h := 0
	if hue != nil {
		h = ((*hue % 360) + 360) % 360
	} else {
		f := fnv.New32a()
		_, _ = f.Write([]byte(name))
		h = int(f.Sum32() % 360)
	}
	return colorful.Hsl(float64(h), 0.65, 0.62).Hex()
}

// Panel header styles: the focused panel's is unmistakable, "▶" before
// its title, bold white on the accent colour; the others' are dim. The
// colours are given reversed (blue on white, then swapped): without colour
// (NO_COLOR) the focused header is still a bold reversed bar.
func header(title string, w int, focused bool) string {
	if focused {
		return style(fit("▶ "+title, w), "1", "7", "34", "107")
	}
	return style(fit(" "+title, w), "1", "2", "7")
}

// wrapText wraps plain (already Visible) text to width cells, keeping line
// breaks; wide characters count two.
func wrapText(s string, width int) []string {
	width = max(width, 1)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		if para == "" {
			out = append(out, "")
			continue
		}
		out = append(out, strings.Split(ansi.Wrap(para, width, ""), "\n")...)
	}
	return out
}

// textWidth is ansi.StringWidth, measured without grapheme segmentation
// while s holds only printable ASCII and CSI sequences (every screen line
// passes through fit, and segmentation was half of a frame's View).
func textWidth(s string) int {
	w := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			w++
			i++
			continue
		}
		if c == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && s[j] >= 0x30 && s[j] <= 0x3f {
				j++
			}
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			if j < len(s) && s[j] >= 0x40 && s[j] <= 0x7e {
				i = j + 1
				continue
			}
		}
		return ansi.StringWidth(s)
	}
	return w
}

// plural is "1 post", "3 posts": n and unit, plural past one.
func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return strconv.Itoa(n) + " " + unit + "s"
}
