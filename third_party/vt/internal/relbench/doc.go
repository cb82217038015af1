// Package vt (module relbench) holds only a benchmark of the released
// github.com/charmbracelet/x/vt v0.1.0; see ../../README.md. It is named vt
// so that it can share benchinput_test.go with the patched copy.
package vt
