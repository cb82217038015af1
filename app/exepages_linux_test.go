package app

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

// exeRss sums the resident KiB of this process's mappings of its own
// binary, read-only ones and writable ones apart (/proc/self/smaps).
func exeRss(t testing.TB) (readOnly, writable int) {
	t.Helper()
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var perms string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 5 && strings.Contains(fields[0], "-") {
			perms = ""
			if len(fields) >= 6 && strings.Join(fields[5:], " ") == exe {
				perms = fields[1]
			}
			continue
		}
		if perms == "" || len(fields) < 2 || fields[0] != "Rss:" {
			continue
		}
		kb, _ := strconv.Atoi(fields[1])
		if perms == "r-xp" || perms == "r--p" {
			readOnly += kb
		} else {
			writable += kb
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return readOnly, writable
}

// dropProbe is written before the drop: a drop that reached the binary's
// writable mapping would discard the written copy and bring 1 back.
var dropProbe = 1

func TestDropExePagesUnmapsOnlyTheReadOnlyPages(t *testing.T) {
	dropProbe = 42
	before, _ := exeRss(t)
	if before < 1024 {
		t.Fatalf("only %d KiB of the test binary resident before the drop; the test cannot tell a drop", before)
	}
	if err := dropExePages(); err != nil {
		t.Fatal(err)
	}
	after, _ := exeRss(t)
	// What reading smaps and this test touch comes back; start-up's
	// pages (every package's initialisation) do not.
	if after*2 > before {
		t.Errorf("the binary's read-only pages went from %d to %d KiB resident; want under half", before, after)
	}
	if dropProbe != 42 {
		t.Errorf("a written variable reads %d after the drop, want 42: the writable mapping was dropped", dropProbe)
	}
}

// BenchmarkDropExePages: one drop and what the code after it faults back
// (the cost a seat's launch and every quiet release pay).
func BenchmarkDropExePages(b *testing.B) {
	for b.Loop() {
		if err := dropExePages(); err != nil {
			b.Fatal(err)
		}
	}
}
