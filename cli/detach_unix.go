package cli

import "syscall"

// detached makes a child its own session: no terminal's hang-up reaches it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }
