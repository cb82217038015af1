package attach

// What an Exec may run (issue "Hardening 2", finding 1): the server names a
// role and the files, never a program or its flags; the client resolves
// the role from its own environment and refuses anything else, so a
// server that is not the person's (another user's socket) cannot make the
// client run a command of its choosing (`vi -c '!sh'`, `+:!id`).

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// Roles of an Exec.
const (
	// RoleEditor edits one file: $VISUAL, else $EDITOR, else vi.
	RoleEditor = "editor"
	// RolePager shows one file: $PAGER, else less.
	RolePager = "pager"
	// RoleOpener opens files: $PULLCEPT_OPEN, else the desktop's opener
	// (open on macOS, xdg-open under X or Wayland), else the pager.
	RoleOpener = "opener"
	// RoleClipboard writes the clipboard's image as PNG into one file:
	// $PULLCEPT_CLIPBOARD_IMAGE (its stdout), else pngpaste, wl-paste or
	// xclip; exit status 3 says no tool is there.
	RoleClipboard = "clipboard"
)

// MaxExecPaths bounds an opener's files.
const MaxExecPaths = 64

// The scripts are the client's own, run by sh with the paths as its
// positional parameters (never spliced into the script). The person's
// variables are the person's own commands, word-split as git and less do
// with $EDITOR and $PAGER. Editor and pager get "--" before the paths;
// open and xdg-open take no "--" (xdg-open refuses it), and an absolute
// path cannot be taken for an option.
var roleScripts = map[string]string{
	RoleEditor: `exec ${VISUAL:-${EDITOR:-vi}} -- "$@"`,
	RolePager:  `exec ${PAGER:-less} -- "$@"`,
	RoleOpener: `if [ -n "$PULLCEPT_OPEN" ]; then exec sh -c "$PULLCEPT_OPEN \"\$@\"" sh "$@"; fi
if [ "$(uname)" = Darwin ]; then exec open "$@"; fi
if [ -n "$DISPLAY$WAYLAND_DISPLAY" ] && command -v xdg-open >/dev/null 2>&1; then for f; do xdg-open "$f" >/dev/null 2>&1; done; exit 0; fi
exec ${PAGER:-less} -- "$@"`,
	RoleClipboard: `out=$1
if [ -n "$PULLCEPT_CLIPBOARD_IMAGE" ]; then exec sh -c "$PULLCEPT_CLIPBOARD_IMAGE" >"$out"; fi
if command -v pngpaste >/dev/null 2>&1; then exec pngpaste "$out"; fi
if [ -n "$WAYLAND_DISPLAY" ] && command -v wl-paste >/dev/null 2>&1; then exec wl-paste --no-newline --type image/png >"$out"; fi
if [ -n "$DISPLAY" ] && command -v xclip >/dev/null 2>&1; then exec xclip -selection clipboard -t image/png -o >"$out"; fi
exit 3`,
}

// ErrBadExec refuses an Exec the client will not run.
var ErrBadExec = errors.New("refused a program request")

// Check says whether x is an Exec this client runs: a known role, its
// number of paths, each absolute, clean, free of control characters and a
// regular file of this user (a server of another user cannot make one).
func (x Exec) Check() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadExec}, a...)...)
	}
	if _, ok := roleScripts[x.Role]; !ok {
		return bad("unknown role %q", x.Role)
	}
	most := 1
	if x.Role == RoleOpener {
		most = MaxExecPaths
	}
	if len(x.Paths) == 0 || len(x.Paths) > most {
		return bad("%s takes 1 to %d paths, not %d", x.Role, most, len(x.Paths))
	}
	for _, p := range x.Paths {
		switch {
		case strings.ContainsFunc(p, func(r rune) bool { return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) }):
			return bad("a path with a control character %q", p)
		case !filepath.IsAbs(p) || filepath.Clean(p) != p:
			return bad("%q is not an absolute, clean path", p)
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return bad("%v", err)
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !fi.Mode().IsRegular() || !ok || int(st.Uid) != os.Getuid() {
			return bad("%q is not a regular file of yours (mode %s)", p, fi.Mode())
		}
	}
	return nil
}

// Command is the program x runs on this terminal, resolved from this
// process's environment, or why x is refused.
func (x Exec) Command() (*exec.Cmd, error) {
	if err := x.Check(); err != nil {
		return nil, err
	}
	return exec.Command("sh", append([]string{"-c", roleScripts[x.Role], "sh"}, x.Paths...)...), nil
}
