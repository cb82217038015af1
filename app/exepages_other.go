//go:build !linux

package app

// dropExePages is Linux's (exepages_linux.go); elsewhere the binary's
// pages are left as the system maps them.
func dropExePages() error { return nil }
