package seat

import "golang.org/x/sys/unix"

const ioctlGetTermios = unix.TCGETS
