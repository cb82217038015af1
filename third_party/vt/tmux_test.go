package vt

// Tests that feed the same bytes to this emulator and to a real tmux and
// compare the screens row by row (plain text, trailing spaces trimmed) and
// the cursor. They are skipped when tmux is not installed.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	uv "github.com/charmbracelet/ultraviolet"
)

// tmuxEndMarker is set as the window title after the stream: tmux has drawn
// everything before it once the pane title reads it. A title leaves the
// screen untouched, so the marker cannot hide a difference.
const tmuxEndMarker = "vt-tmux-test-end"

// tmuxScreen plays data in a fresh tmux pane of w x h cells (raw tty, so
// bytes reach tmux unchanged) and returns the pane's rows and cursor.
func tmuxScreen(t *testing.T, w, h int, data []byte) ([]string, uv.Position) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux not installed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "stream")
	stream := append(append([]byte(nil), data...), "\x1b]2;"+tmuxEndMarker+"\x07"...)
	if err := os.WriteFile(file, stream, 0o600); err != nil {
		t.Fatal(err)
	}
	// A private server per test: -S with a socket in the test's temp dir.
	sock := filepath.Join(dir, "tmux.sock")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tmux := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "tmux", append([]string{"-u", "-S", sock, "-f", "/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "TMUX=", "LANG=C.UTF-8", "LC_ALL=C.UTF-8")
		var out, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &stderr
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("tmux %v: %w: %s", args, err, stderr.String())
		}
		return out.String(), nil
	}
	shell := fmt.Sprintf("stty raw -echo; cat '%s'; sleep 100", file)
	if _, err := tmux("new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), shell); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = tmux("kill-server") }()

	for {
		out, err := tmux("display-message", "-p", "#{pane_title}")
		if err != nil {
			t.Fatal(err)
		}
		if strings.TrimSpace(out) == tmuxEndMarker {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("tmux did not finish the stream: title %q", out)
		case <-time.After(20 * time.Millisecond):
		}
	}
	size, err := tmux("display-message", "-p", "#{pane_width}x#{pane_height} #{cursor_x},#{cursor_y}")
	if err != nil {
		t.Fatal(err)
	}
	var pw, ph int
	var cur uv.Position
	if _, err := fmt.Sscanf(size, "%dx%d %d,%d", &pw, &ph, &cur.X, &cur.Y); err != nil {
		t.Fatalf("tmux pane size %q: %v", size, err)
	}
	if pw != w || ph != h {
		t.Fatalf("tmux pane is %dx%d, want %dx%d", pw, ph, w, h)
	}
	out, err := tmux("capture-pane", "-p")
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	for len(rows) < h {
		rows = append(rows, "")
	}
	return rows, cur
}

// compareWithTmux feeds data to tmux and to the emulator, in chunks of the
// given size to exercise sequences and characters split across writes.
func compareWithTmux(t *testing.T, w, h int, data []byte, chunk int) {
	t.Helper()
	want, wantCur := tmuxScreen(t, w, h, data)
	e := newTestTerminal(t, w, h)
	// Applications query the terminal (vim asks for the cursor position
	// and the version): drain the replies as a pane does, or Write blocks.
	drained := make(chan struct{})
	go func() { defer close(drained); _, _ = io.Copy(io.Discard, e) }()
	defer func() { e.Close(); <-drained }()
	for p := data; len(p) > 0; {
		n := min(chunk, len(p))
		_, _ = e.Write(p[:n])
		p = p[n:]
	}
	diffRows(t, plainRows(e), want)
	cur := e.CursorPosition()
	if e.atPhantom {
		// tmux keeps a pending wrap as the column past the last one.
		cur.X++
	}
	if cur != wantCur {
		t.Errorf("cursor = %v, tmux has %v", cur, wantCur)
	}
}

func TestTmuxJapaneseWrap(t *testing.T) {
	t.Parallel()
	t.Run("10 columns", func(t *testing.T) {
		t.Parallel()
		compareWithTmux(t, 10, 5, []byte("あいうえおかきくけこさ\r\naあいうえおか"), 1<<20)
	})
	t.Run("80 columns", func(t *testing.T) {
		t.Parallel()
		var b bytes.Buffer
		// Every offset from 0 to 3 before a run of wide characters longer than
		// the line, so wide characters meet the edge with 0 and 1 columns
		// left; some coloured, one ending exactly at the edge before ASCII.
		for i := range 4 {
			fmt.Fprintf(&b, "%s\x1b[3%dm%s\x1b[m\r\n", strings.Repeat("x", i), i+1,
				strings.Repeat("日本語のテキスト", 6))
		}
		b.WriteString(strings.Repeat("端末", 20) + "ok\r\n")
		b.WriteString("abc🙂def 絵文字 éé ｶﾀｶﾅ\r\n")
		compareWithTmux(t, 80, 24, b.Bytes(), 7)
	})
}

func TestTmuxScrollRegionInsertDeleteLine(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	for i := range 24 {
		fmt.Fprintf(&b, "\x1b[%d;1Hrow %02d 行", i+1, i)
	}
	// After IL/DL xterm (and this emulator) put the cursor in column 0 and
	// tmux 3.3a leaves the column alone, so each write after IL/DL starts
	// with CR: the row it lands on is what is compared.
	b.WriteString("\x1b[5;20r")                     // region rows 5-20
	b.WriteString("\x1b[8;10H\x1b[2L\rIL2")         // insert 2 at row 8, then write
	b.WriteString("\x1b[12;30H\x1b[3M\rDL3")        // delete 3 at row 12, then write
	b.WriteString("\x1b[5;7H\x1b[L\rtopIL")         // insert at the region top
	b.WriteString("\x1b[20;3H\x1b[M\rbotDL")        // delete at the region bottom
	b.WriteString("\x1b[41m\x1b[15;3H\x1b[L\x1b[m") // insert with a coloured pen
	b.WriteString("\x1b[20;1H\r\nscrolled 1\n")     // line feeds at the region bottom
	b.WriteString("\x1b[5;1H\x1bMreverse")          // reverse index at the region top
	b.WriteString("\x1b[?6h\x1b[3;4Hab\rorigin\x1b[?6l")
	b.WriteString("\x1b[r\x1b[24;1H\r\nfull-screen scroll")
	compareWithTmux(t, 80, 24, b.Bytes(), 5)
}

func TestTmuxLessRecording(t *testing.T) {
	t.Parallel()
	// A real `less -R` session on Japanese text with colours at 80x24,
	// recorded from a tmux pane with pipe-pane (see README.md).
	data, err := os.ReadFile(filepath.Join("testdata", "less-ja.bin"))
	if err != nil {
		t.Fatal(err)
	}
	compareWithTmux(t, 80, 24, data, 4096)
}

func TestTmuxVimRecording(t *testing.T) {
	t.Parallel()
	// A real `vim -u NONE` session on Japanese text at 80x24 (moving,
	// paging, searching, inserting Japanese, a split window), recorded from
	// a tmux pane with pipe-pane by testdata/record-vim.sh.
	data, err := os.ReadFile(filepath.Join("testdata", "vim-ja.bin"))
	if err != nil {
		t.Fatal(err)
	}
	compareWithTmux(t, 80, 24, data, 4096)
}

// plainRows returns the screen as plain text, one string per row, with
// trailing spaces trimmed: what `tmux capture-pane -p` prints.
func plainRows(e *Emulator) []string {
	rows := make([]string, e.Height())
	for y := range rows {
		var b strings.Builder
		for x := 0; x < e.Width(); x++ {
			c := e.CellAt(x, y)
			switch {
			case c == nil || c.IsZero():
				// The columns a wide character covers after its first.
			case c.Content == "":
				b.WriteByte(' ')
			default:
				b.WriteString(c.Content)
			}
		}
		rows[y] = strings.TrimRight(b.String(), " ")
	}
	return rows
}

func diffRows(t *testing.T, got, want []string) {
	t.Helper()
	n := max(len(got), len(want))
	for y := range n {
		var g, w string
		if y < len(got) {
			g = got[y]
		}
		if y < len(want) {
			w = want[y]
		}
		if g != w {
			t.Errorf("row %d:\n got %q\nwant %q", y, g, w)
		}
	}
}

// TestTmuxScrollRegionPastScreen: DECSTBM with a bottom past the screen
// gives a region to the last row (line feeds there scroll it), and regions
// with their top past the screen or of one row are ignored (change 15).
func TestTmuxScrollRegionPastScreen(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	b.WriteString("a1\r\nb2\r\nc3\r\nd4\r\ne5")
	b.WriteString("\x1b[2;100r")                  // rows 2-5
	b.WriteString("\x1b[5;1H\nX")                 // a line feed on the last row scrolls the region
	b.WriteString("\x1b[104;92r\x1b[3;3r")        // ignored: the cursor stays
	b.WriteString("\n\nY")                        // still rows 2-5
	b.WriteString("\x1b[?6h\x1b[9;9HZ\x1b[?6l")   // origin mode: row 9 is the region's last
	b.WriteString("\x1b[1;1H\x1b[2;99r\x1b[99BW") // CUD stops at the region's (the screen's) bottom
	compareWithTmux(t, 10, 5, b.Bytes(), 3)
}

// TestTmuxInsertDeleteCharAnyRow: ICH and DCH on rows outside the DECSTBM
// region (change 16).
func TestTmuxInsertDeleteCharAnyRow(t *testing.T) {
	t.Parallel()
	compareWithTmux(t, 6, 5, []byte("abcdef\r\nghijkl\r\nmnopqr\r\nstuvwx\r\nyz"+
		"\x1b[2;4r\x1b[1;2H\x1b[2@\x1b[5;1H\x1b[P\x1b[3;3H\x1b[@"), 4)
}

// TestTmuxCountsToTheLineEnd: REP repeats to the end of the line at most,
// and not at all at a pending wrap; ECH and CBT with counts past the line
// (change 17; tmux 3.3a has no CHT).
func TestTmuxCountsToTheLineEnd(t *testing.T) {
	t.Parallel()
	compareWithTmux(t, 8, 5, []byte("ab\x1b[10b|\r\nabcdefgh\x1b[3b\r\nxxxxxxxx\x1b[3;3H\x1b[999999999X"+
		"\x1b[4;6Hxx\x1b[999999999Zd\x1b[5;3Hq\x1b[2b"), 3)
}
