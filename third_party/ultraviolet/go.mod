module github.com/charmbracelet/ultraviolet

go 1.26.0

require (
	github.com/charmbracelet/colorprofile v0.4.3
	github.com/charmbracelet/x/ansi v0.11.9
	github.com/charmbracelet/x/term v0.2.2
	github.com/charmbracelet/x/termios v0.1.1
	github.com/charmbracelet/x/windows v0.2.2
	github.com/clipperhouse/uax29/v2 v2.7.0
	github.com/muesli/cancelreader v0.2.2
	github.com/rivo/uniseg v0.4.7
	github.com/xo/terminfo v1.0.0
	golang.org/x/sync v0.22.0
	golang.org/x/sys v0.47.0
)

require (
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/mattn/go-runewidth v0.0.30 // indirect
)

require github.com/lucasb-eyer/go-colorful v1.4.1
