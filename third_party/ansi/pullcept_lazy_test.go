package ansi

// PATCH(pullcept): tests of the zero-width tables built on first use
// (wcwidth.go, buildZeroWidth).

import (
	"os"
	"os/exec"
	"sync"
	"testing"
	"unicode"
)

// Nothing is built at package initialisation: checked in a fresh process
// (this test binary again, running only the check), since other tests of the
// package measure runes.
func TestZeroWidthNotBuiltAtInit(t *testing.T) {
	if os.Getenv("PULLCEPT_ZERO_WIDTH_CHECK") == "1" {
		if zeroWidthHigh != nil || zeroWidthBMP != [len(zeroWidthBMP)]uint64{} {
			t.Error("the zero-width tables were built at init")
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestZeroWidthNotBuiltAtInit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PULLCEPT_ZERO_WIDTH_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fresh process: %v\n%s", err, out)
	}
}

// The first measurements may race (-race), and the tables they build are
// the Unicode categories', in the BMP as above it (TestIsZeroWidthHigh).
func TestZeroWidthBuiltOnFirstUse(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// U+0301 combining acute accent, U+1D167 musical symbol mark.
			if w := StringWidthWc("e\u0301\U0001D167"); w != 1 {
				t.Errorf("StringWidthWc = %d, want 1", w)
			}
		}()
	}
	wg.Wait()
	for r := rune(0); r < 0x10000; r++ {
		if want, got := unicode.In(r, zeroWidthTables...), zeroWidthBMP[r>>6]&(1<<(r&63)) != 0; want != got {
			t.Errorf("zeroWidthBMP has %U = %v, want %v", r, got, want)
		}
	}
}
