// Package attachment holds the rules of files attached to the person's
// posts (spec 003 "添付は保存したファイルのパスで届く", #223, #318): the name a
// file is saved under (Name), saving it in a topic's folder without ever
// replacing a file (Save), the block of paths at the end of a post's body
// (Body, Parse), and the one way the screen reads such a path (Resolver):
// only a file directly inside a topic's folder under the attachments
// folder, after links and ".." are followed.
//
// It imports nothing of this module; the app says where the folders are.
package attachment

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxName is the longest name a file is saved under, in characters
// (runes), extension included: a CLI bound to Windows' 260-character paths
// can still read it (spec: 長い名前は拡張子を残して 80 文字で切る).
const MaxName = 80

// fallbackName is the name when nothing is left of the one given.
const fallbackName = "file"

// maxExt is the longest tail after the last dot kept as an extension when a
// name is cut; a longer one is part of the name.
const maxExt = 16

// Name is the name a file is saved under (topic_index::attachment_name):
// the characters Windows forbids in a name (<>:"/\|?*), control
// characters (C0, DEL, C1) and bytes that are not UTF-8 become "_", so the
// path typed into a terminal is the path on disk; "@" and "＠" become "_"
// (the room takes "@name" out of a body, #206); trailing dots and spaces
// go (Windows drops them); a device name (CON, NUL, COM1, …, also with an
// extension) gets a leading "_"; a name longer than MaxName characters is
// cut keeping its extension; an empty result is "file".
func Name(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == utf8.RuneError && n <= 1:
			b.WriteByte('_')
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
			b.WriteByte('_')
		case strings.ContainsRune(`<>:"/\|?*`, r), r == '@', r == '＠':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	name := trimEnd(cut(trimEnd(b.String()), MaxName))
	if isDevice(name) {
		name = trimEnd(cut("_"+name, MaxName))
	}
	if name == "" {
		return fallbackName
	}
	return name
}

// trimEnd drops trailing dots and spaces.
func trimEnd(s string) string { return strings.TrimRight(s, ". ") }

// splitExt parts a name into its stem and extension (with the dot). A
// leading dot (".bashrc") starts no extension, nor does a tail longer
// than maxExt characters or one holding a space.
func splitExt(name string) (stem, ext string) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		return name, ""
	}
	ext = name[i:]
	if utf8.RuneCountInString(ext) > maxExt || strings.ContainsRune(ext, ' ') {
		return name, ""
	}
	return name[:i], ext
}

// cut shortens name to at most n characters, keeping its extension.
func cut(name string, n int) string {
	if utf8.RuneCountInString(name) <= n {
		return name
	}
	stem, ext := splitExt(name)
	keep := n - utf8.RuneCountInString(ext)
	if keep < 1 {
		stem, ext, keep = name, "", n
	}
	return runes(stem, keep) + ext
}

// runes is the first n characters of s.
func runes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

// devices are the names Windows keeps for devices, in any case and with
// any extension.
var devices = map[string]bool{"CON": true, "PRN": true, "AUX": true, "NUL": true, "CONIN$": true, "CONOUT$": true}

func init() {
	for i := 1; i <= 9; i++ {
		devices["COM"+strconv.Itoa(i)] = true
		devices["LPT"+strconv.Itoa(i)] = true
	}
	for _, d := range []string{"¹", "²", "³"} {
		devices["COM"+d] = true
		devices["LPT"+d] = true
	}
}

// isDevice reports whether name is a Windows device name: the part before
// its first dot, trailing spaces dropped, in any case.
func isDevice(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	return devices[strings.ToUpper(strings.TrimRight(base, " "))]
}

// Numbered is name with the copy number n the way Explorer numbers copies
// ("image (2).png"), still at most MaxName characters (the stem is cut);
// n <= 1 is name itself.
func Numbered(name string, n int) string {
	if n <= 1 {
		return name
	}
	stem, ext := splitExt(name)
	tail := " (" + strconv.Itoa(n) + ")" + ext
	keep := MaxName - utf8.RuneCountInString(tail)
	return runes(stem, max(keep, 1)) + tail
}
