package ansi

// PATCH(pullcept): the widths runewidth gives runes from U+0300 up, from a
// table of ranges made from runewidth itself (pullcept_wctable.go). Asked for
// any such rune, runewidth builds its lookup table of two 1.1 MB planes and
// keeps it: 2.2 MB resident in every program that draws a box-drawing or
// Japanese character through WcWidth (a TUI whose terminal lacks mode 2027).
// The table here answers the same (pullcept_wcwidth_test.go checks every
// rune) for the default condition; East Asian widths still go to runewidth.

import "sort"

// wcRange is a run of runes with the same width other than 1.
type wcRange struct {
	lo, hi rune
	w      uint8
}

// wcTableWidth is runewidth's width of r (U+0300 and up) with EastAsianWidth
// off and StrictEmojiNeutral on.
func wcTableWidth(r rune) int {
	if r > 0x10FFFF {
		return 0
	}
	i := sort.Search(len(wcRanges), func(i int) bool { return wcRanges[i].hi >= r })
	if i < len(wcRanges) && wcRanges[i].lo <= r {
		return int(wcRanges[i].w)
	}
	return 1
}
