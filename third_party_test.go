package main

// Tests of the patched libraries in third_party/ (third_party/README.md):
// each copy is its pristine upstream module plus the patch series in
// third_party/patches/<lib>, and the terminal emulator's parser rules do not
// leak into the rest of the program through x/ansi's global table.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
	_ "github.com/charmbracelet/x/vt" // linked as in the binary: its init must leave x/ansi alone
)

// upstream is a series' UPSTREAM file: "module", "version" and "sum" lines,
// and "omit" lines naming upstream files (or folders) the copy leaves out.
type upstream struct {
	module, version, sum string
	omit                 []string
}

func readUpstream(t *testing.T, path string) upstream {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var u upstream
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, val, _ := strings.Cut(line, " ")
		val = strings.TrimSpace(val)
		switch key {
		case "module":
			u.module = val
		case "version":
			u.version = val
		case "sum":
			u.sum = val
		case "omit":
			u.omit = append(u.omit, val)
		default:
			t.Fatalf("%s: unknown line %q", path, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if u.module == "" || u.version == "" || u.sum == "" {
		t.Fatalf("%s: needs module, version and sum lines", path)
	}
	return u
}

// pristine returns the module cache's folder of u, downloading it if needed.
// It skips the test when the module cannot be had, except on CI
// (PULLCEPT_REQUIRE_CLIS), where that fails it.
func pristine(t *testing.T, u upstream) string {
	t.Helper()
	cmd := exec.Command("go", "mod", "download", "-json", u.module+"@"+u.version)
	cmd.Dir = t.TempDir() // outside the main module: its replaces do not apply
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var info struct{ Dir, Sum, Error string }
	_ = json.Unmarshal(out, &info)
	if err != nil || info.Error != "" || info.Dir == "" {
		msg := fmt.Sprintf("cannot download the pristine %s@%s to check third_party against it: %v %s %s",
			u.module, u.version, err, info.Error, strings.TrimSpace(stderr.String()))
		if os.Getenv("PULLCEPT_REQUIRE_CLIS") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	if info.Sum != u.sum {
		t.Fatalf("%s@%s: module sum %s, UPSTREAM says %s", u.module, u.version, info.Sum, u.sum)
	}
	return info.Dir
}

// TestThirdPartyIsUpstreamPlusPatches rebuilds every patched copy from its
// pristine module and its patch series (git apply, in order) and checks that
// the result is the copy, byte for byte, file for file (modes and symbolic
// links too). So every change to a copy is in a patch, and every file no
// patch touches is upstream's.
func TestThirdPartyIsUpstreamPlusPatches(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed (needed to apply the patch series)")
	}
	libs, err := os.ReadDir(filepath.Join("third_party", "patches"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range libs {
		if l.IsDir() {
			names = append(names, l.Name())
		}
	}
	if len(names) == 0 {
		t.Fatal("no patch series in third_party/patches")
	}
	for _, lib := range names {
		t.Run(lib, func(t *testing.T) {
			t.Parallel()
			series := filepath.Join("third_party", "patches", lib)
			u := readUpstream(t, filepath.Join(series, "UPSTREAM"))
			src := pristine(t, u)
			work := filepath.Join(t.TempDir(), lib)
			if err := os.CopyFS(work, os.DirFS(src)); err != nil {
				t.Fatal(err)
			}
			for _, o := range u.omit {
				p := filepath.Join(work, filepath.FromSlash(o))
				if _, err := os.Lstat(p); err != nil {
					t.Fatalf("UPSTREAM omits %s, which %s@%s does not have", o, u.module, u.version)
				}
				if err := os.RemoveAll(p); err != nil {
					t.Fatal(err)
				}
			}
			patches, err := filepath.Glob(filepath.Join(series, "[0-9][0-9][0-9][0-9]-*.patch"))
			if err != nil || len(patches) == 0 {
				t.Fatalf("no patches in %s", series)
			}
			slices.Sort(patches)
			for i, p := range patches {
				if want := fmt.Sprintf("%04d-", i); !strings.HasPrefix(filepath.Base(p), want) {
					t.Fatalf("%s: the series is not numbered 0000, 0001, ... in order", p)
				}
				abs, _ := filepath.Abs(p)
				cmd := exec.Command("git", "apply", "--whitespace=nowarn", abs)
				cmd.Dir = work
				cmd.Env = append(os.Environ(), "GIT_CEILING_DIRECTORIES="+filepath.Dir(work))
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git apply %s (onto %s@%s and the patches before it): %v\n%s",
						p, u.module, u.version, err, out)
				}
			}
			if diffs := compareTrees(t, work, filepath.Join("third_party", lib)); len(diffs) > 0 {
				t.Errorf("third_party/%s is not %s@%s plus the patches in %s; change a copy only "+
					"through its series (third_party/README.md):\n  %s",
					lib, u.module, u.version, series, strings.Join(diffs, "\n  "))
			}
		})
	}
}

type treeEntry struct {
	mode fs.FileMode // type bits and the executable bit
	data []byte      // content, or a symbolic link's target
}

func readTree(t *testing.T, root string) map[string]treeEntry {
	t.Helper()
	m := map[string]treeEntry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		var e treeEntry
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			e = treeEntry{fs.ModeSymlink, []byte(target)}
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e = treeEntry{info.Mode() & 0o100, data}
		default:
			e = treeEntry{info.Mode().Type(), nil}
		}
		m[filepath.ToSlash(rel)] = e
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&0o100 != 0:
		return "executable"
	case m.Type() == 0:
		return "not executable"
	}
	return "a " + m.Type().String() + " file"
}

// compareTrees lists how copy differs from want (at most 20 lines).
func compareTrees(t *testing.T, want, copy string) []string {
	w, c := readTree(t, want), readTree(t, copy)
	var diffs []string
	for name, we := range w {
		ce, ok := c[name]
		switch {
		case !ok:
			diffs = append(diffs, name+": missing from the copy")
		case ce.mode != we.mode:
			diffs = append(diffs, fmt.Sprintf("%s: %s in the copy, %s in upstream plus patches", name, kind(ce.mode), kind(we.mode)))
		case !bytes.Equal(ce.data, we.data):
			diffs = append(diffs, name+": differs from upstream plus patches")
		}
	}
	for name := range c {
		if _, ok := w[name]; !ok {
			diffs = append(diffs, name+": in the copy, not in upstream plus patches")
		}
	}
	slices.Sort(diffs)
	if len(diffs) > 20 {
		diffs = append(diffs[:20], fmt.Sprintf("... and %d more", len(diffs)-20))
	}
	return diffs
}

// TestVTLeavesAnsiTableAlone: the emulator's parser rules (third_party/vt
// README changes 6 and 9) are in its own table, not in x/ansi's global
// parser.Table, which every other x/ansi parser and ansi.StringWidth,
// ansi.Strip and ansi.Truncate (the TUI's layout) read. Fails with vt adding
// its rules to parser.Table at init.
func TestVTLeavesAnsiTableAlone(t *testing.T) {
	if !bytes.Equal(parser.Table, parser.GenerateTransitionTable()) {
		t.Error("x/ansi's parser.Table differs from its default in a binary linking x/vt")
	}
	// A UTF-8 character inside a CSI: x/ansi's default aborts the CSI and
	// counts "あm" (width 3); vt's rules swallow the whole sequence (0).
	if w := ansi.StringWidth("\x1b[0あm"); w != 3 {
		t.Errorf(`ansi.StringWidth("ESC[0あm") = %d, x/ansi's default gives 3`, w)
	}
}

// keyModel records the key presses it gets and quits after want of them.
type keyModel struct {
	want int
	keys *[]tea.Key
}

func (m keyModel) Init() tea.Cmd { return nil }

func (m keyModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok {
		*m.keys = append(*m.keys, k.Key())
		if len(*m.keys) == m.want {
			return m, tea.Quit
		}
	}
	return m, nil
}

func (m keyModel) View() tea.View { return tea.NewView("") }

// TestAltNonASCIIKeysSurvive: a terminal sends alt+é as ESC then é's UTF-8
// bytes. vt's rules ignore bytes 0x80-0xFF after ESC; if Bubble Tea's input
// decoding read x/ansi's table (it does not: ultraviolet's decoder has its
// own), the person's alt+é, alt+ж and alt+あ would arrive as plain keys or
// not at all. Through the same program input path as the TUI, with x/vt
// linked.
func TestAltNonASCIIKeysSurvive(t *testing.T) {
	in := "\x1bé\x1bж\x1bあx"
	want := []tea.Key{
		{Code: 'é', Mod: tea.ModAlt},
		{Code: 'ж', Mod: tea.ModAlt},
		{Code: 'あ', Mod: tea.ModAlt},
		{Code: 'x', Text: "x"},
	}
	var keys []tea.Key
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write([]byte(in)) }() // one read, as a terminal delivers it
	p := tea.NewProgram(keyModel{want: len(want), keys: &keys},
		tea.WithContext(ctx), tea.WithInput(pr), tea.WithOutput(io.Discard),
		tea.WithoutSignals(), tea.WithoutRenderer(), tea.WithWindowSize(80, 24))
	if _, err := p.Run(); err != nil {
		t.Fatalf("program: %v (keys so far %+v)", err, keys)
	}
	if len(keys) != len(want) {
		t.Fatalf("keys %+v, want %+v", keys, want)
	}
	for i := range want {
		if keys[i].Code != want[i].Code || keys[i].Mod != want[i].Mod {
			t.Errorf("key %d = %+v (%q), want %+v", i, keys[i], keys[i].String(), want[i])
		}
	}
}
