module pullcept

go 1.26.8

require (
	charm.land/bubbles/v2 v2.2.1
	charm.land/bubbletea/v2 v2.2.0
	charm.land/lipgloss/v2 v2.0.5
	github.com/charmbracelet/colorprofile v0.4.3
	github.com/charmbracelet/ultraviolet v0.0.0-20261125122737-8ed499892fb4
	github.com/charmbracelet/x/ansi v0.12.0
	github.com/charmbracelet/x/term v0.2.2
	github.com/charmbracelet/x/vt v0.1.0
	github.com/chromedp/cdproto v0.160.1
	github.com/chromedp/chromedp v0.23.1
	github.com/creack/pty v1.1.24
	github.com/fsnotify/fsnotify v1.10.1
	github.com/google/uuid v1.6.0
	github.com/gorilla/websocket v1.5.3
	github.com/lucasb-eyer/go-colorful v1.4.1
	github.com/mark3labs/mcp-go v1.2.1
	github.com/muesli/cancelreader v0.2.2
	github.com/rivo/uniseg v0.4.7
	golang.org/x/sys v0.47.0
)

require (
	github.com/charmbracelet/x/exp/ordered v0.1.0 // indirect
	github.com/charmbracelet/x/termios v0.1.1 // indirect
	github.com/charmbracelet/x/windows v0.2.2 // indirect
	github.com/clipperhouse/displaywidth v0.11.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/jsonschema-go v0.4.2 // indirect
	github.com/mattn/go-runewidth v0.0.30 // indirect
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.2 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	github.com/xo/terminfo v1.0.0 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.14.0 // indirect
)

replace github.com/charmbracelet/x/vt => ./third_party/vt

replace github.com/charmbracelet/ultraviolet => ./third_party/ultraviolet

replace charm.land/bubbletea/v2 => ./third_party/bubbletea

replace github.com/charmbracelet/x/ansi => ./third_party/ansi

replace github.com/santhosh-tekuri/jsonschema/v6 => ./third_party/santhosh-jsonschema

replace github.com/google/jsonschema-go => ./third_party/jsonschema-go
