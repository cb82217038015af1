//go:build unix && !linux

package mcpserv

import "syscall"

// sysProcAttr puts the server in a process group of its own (a stop
// signals the whole group). Without Pdeathsig the end of its stdin (the
// app's pipe, closed by the OS however the app ends) is what ends it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
