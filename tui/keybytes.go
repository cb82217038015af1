package tui

// keyBytes converts a Bubble Tea v2 key press into the bytes an xterm sends
// for it, for typing into a terminal pane's PTY.

import (
	"strconv"

	tea "charm.land/bubbletea/v2"
)

// xtermMod is xterm's modifier parameter: 1 + shift(1) + alt(2) + ctrl(4).
func xtermMod(m tea.KeyMod) int {
	n := 1
	if m.Contains(tea.ModShift) {
		n++
	}
	if m.Contains(tea.ModAlt) {
		n += 2
	}
	if m.Contains(tea.ModCtrl) {
		n += 4
	}
	return n
}

// keyBytes returns the bytes for k; appCursor is DECCKM (arrows as SS3).
// A key with no terminal encoding returns nil.
func keyBytes(k tea.Key, appCursor bool) []byte {
	mod := k.Mod &^ (tea.ModCapsLock | tea.ModNumLock | tea.ModScrollLock)
	// Cursor and editing keys.
	if final, ok := cursorFinal[k.Code]; ok {
		if m := xtermMod(mod); m > 1 {
			return []byte("\x1b[1;" + strconv.Itoa(m) + string(final))
		}
		if appCursor && k.Code != tea.KeyHome && k.Code != tea.KeyEnd {
			return []byte{0x1b, 'O', final}
		}
		return []byte{0x1b, '[', final}
	}
	if n, ok := tildeKeys[k.Code]; ok {
		if m := xtermMod(mod); m > 1 {
			return []byte("\x1b[" + strconv.Itoa(n) + ";" + strconv.Itoa(m) + "~")
		}
		return []byte("\x1b[" + strconv.Itoa(n) + "~")
	}
	if final, ok := ss3Keys[k.Code]; ok { // F1-F4
		if m := xtermMod(mod); m > 1 {
			return []byte("\x1b[1;" + strconv.Itoa(m) + string(final))
		}
		return []byte{0x1b, 'O', final}
	}

	alt := mod.Contains(tea.ModAlt)
	ctrl := mod.Contains(tea.ModCtrl)
	var out []byte
	switch k.Code {
	case tea.KeyEnter, tea.KeyKpEnter:
		out = []byte{'\r'}
	case tea.KeyTab:
		if mod.Contains(tea.ModShift) {
			return []byte("\x1b[Z")
		}
		out = []byte{'\t'}
	case tea.KeyBackspace:
		out = []byte{0x7f}
		if ctrl {
			out = []byte{0x08}
		}
	case tea.KeyEscape:
		out = []byte{0x1b}
	case tea.KeySpace:
		out = []byte{' '}
		if ctrl {
			out = []byte{0}
		}
	default:
		switch {
		case ctrl:
			c, ok := ctrlByte(k.Code)
			if !ok {
				return nil
			}
			out = []byte{c}
		case k.Text != "":
			out = []byte(k.Text)
		case k.Code >= 0x20 && k.Code != tea.KeyExtended && k.Code < 0x10FFFF && !isSpecialCode(k.Code):
			r := k.Code
			if mod.Contains(tea.ModShift) && k.ShiftedCode != 0 {
				r = k.ShiftedCode
			}
			out = []byte(string(r))
		default:
			return nil
		}
	}
	if alt {
		return append([]byte{0x1b}, out...)
	}
	return out
}

// isSpecialCode reports codes Bubble Tea uses for keys with no text.
func isSpecialCode(r rune) bool { return r >= tea.KeyExtended }

// ctrlByte is the C0 byte of ctrl+r.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r-'a') + 1, true
	case r >= 'A' && r <= 'Z':
		return byte(r-'A') + 1, true
	case r == '@' || r == '2' || r == ' ':
		return 0, true
	case r == '[' || r == '3':
		return 0x1b, true
	case r == '\\' || r == '4':
		return 0x1c, true
	case r == ']' || r == '5':
		return 0x1d, true
	case r == '^' || r == '6':
		return 0x1e, true
	case r == '_' || r == '-' || r == '7' || r == '/':
		return 0x1f, true
	case r == '?' || r == '8':
		return 0x7f, true
	}
	return 0, false
}

var cursorFinal = map[rune]byte{
	tea.KeyUp: 'A', tea.KeyDown: 'B', tea.KeyRight: 'C', tea.KeyLeft: 'D',
	tea.KeyHome: 'H', tea.KeyEnd: 'F',
}

var tildeKeys = map[rune]int{
	tea.KeyInsert: 2, tea.KeyDelete: 3, tea.KeyPgUp: 5, tea.KeyPgDown: 6,
	tea.KeyF5: 15, tea.KeyF6: 17, tea.KeyF7: 18, tea.KeyF8: 19,
	tea.KeyF9: 20, tea.KeyF10: 21, tea.KeyF11: 23, tea.KeyF12: 24,
}

var ss3Keys = map[rune]byte{tea.KeyF1: 'P', tea.KeyF2: 'Q', tea.KeyF3: 'R', tea.KeyF4: 'S'}
