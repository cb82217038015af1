//go:build linux

package mcpserv

import "syscall"

// sysProcAttr puts the server in a process group of its own (a stop
// signals the whole group) and has the kernel kill it when the thread that
// started it goes: the app's crash, its kill -9 (Pdeathsig; the starting
// goroutine keeps its thread locked while the server lives).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
