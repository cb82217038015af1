package app

import (
	"bufio"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// dropExePages unmaps from this process the pages of its own binary's
// read-only segments (code and constant data). They stay in the page cache
// and come back on their next use with a minor fault; what start-up alone
// touched (every linked package's initialisation, a page-cache window
// around each) stops counting against the server's resident set and can be
// reclaimed like any cached file (docs/performance.md "Memory"). Only
// mappings that were never written are dropped: MADV_DONTNEED on a private
// mapping discards its written copies, so a writable one is left alone.
func dropExePages() error {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return err
	}
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		// start-end perms offset dev inode path
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || (fields[1] != "r-xp" && fields[1] != "r--p") {
			continue
		}
		if path := strings.Join(fields[5:], " "); path != exe {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(start), uintptr(end-start), unix.MADV_DONTNEED); errno != 0 {
			return errno
		}
	}
	return sc.Err()
}
