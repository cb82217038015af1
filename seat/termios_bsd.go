//go:build darwin || freebsd || netbsd || openbsd

package seat

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TIOCGETA
