//go:build unix

package mcpserv

import (
	"os"
	"strconv"
	"sync"
	"syscall"
)

var inheritOnce sync.Once

// closeInherited marks the descriptors this process inherited
// close-on-exec, so no server gets them: Go opens its own files so, but a
// descriptor handed down by the parent is not (the server's start-up pipe,
// fd 3, which the client reads to its end — a server holding it would keep
// the client waiting as long as the server lives).
func closeInherited() {
	inheritOnce.Do(func() {
		fds := []int{}
		if ents, err := os.ReadDir("/proc/self/fd"); err == nil {
			for _, e := range ents {
				if n, err := strconv.Atoi(e.Name()); err == nil && n > 2 {
					fds = append(fds, n)
				}
			}
		} else {
			for n := 3; n < 256; n++ {
				fds = append(fds, n)
			}
		}
		for _, fd := range fds {
			syscall.CloseOnExec(fd)
		}
	})
}
