package cli

// The binary the seats launch (docs/decisions.md "One binary"): one
// `pullcept` runs every command. The server keeps it in the home's runtime
// folder, run/bin/pullcept, and runs from there itself, so a rebuilt or
// removed binary (`go run .`'s own is deleted when `go run` ends) breaks
// neither the server nor its seats' sidecars and hooks.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// BinaryName is the kept binary's name in run/bin.
const BinaryName = "pullcept"

// KeptBinary puts this binary in the runtime folder's bin/ (keepCopy) and
// returns that path: what a background server is started as, and what the
// seats launch as their sidecar and hooks for the server's whole life.
func KeptBinary(runtime string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this binary: %w", err)
	}
	dir := filepath.Join(runtime, "bin")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	removeDeadTemps(dir)
	dst := filepath.Join(dir, BinaryName)
	return dst, keepCopy(self, dst)
}

// keepCopy puts the binary src at dst, whole or not at all (issue 32: at
// every start 16.5 MB were copied, and a full disk left a partial file):
// nothing to do when dst is src (a link) or the copy made last time (same
// size and modification time, which a copy takes from src; a rebuilt
// binary has a new one); else a hard link, else a copy, each made under a
// temporary name renamed into place and removed on failure.
func keepCopy(src, dst string) error {
	src, err := filepath.EvalSymlinks(src)
	if err != nil {
		return err
	}
	si, err := os.Stat(src)
	if err != nil {
		return err
	}
	if di, err := os.Lstat(dst); err == nil && di.Mode().IsRegular() &&
		(os.SameFile(si, di) || di.Size() == si.Size() && di.ModTime().Equal(si.ModTime())) {
		return nil
	}
	tmp := dst + ".tmp" + strconv.Itoa(os.Getpid())
	_ = os.Remove(tmp)
	if err := os.Link(src, tmp); err != nil {
		if err := copyFile(src, tmp, si); err != nil {
			os.Remove(tmp)
			return fmt.Errorf("cannot keep the server's binary in %s for the seats (so that a rebuild does not break them): copying %s (%.1f MB) there failed: %w. "+
				"Free space there, or set PULLCEPT_HOME (or XDG_RUNTIME_DIR) to a folder on a disk with room, ideally the binary's own disk, where a link costs nothing",
				filepath.Dir(dst), src, float64(si.Size())/(1<<20), err)
		}
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

func copyFile(src, dst string, si os.FileInfo) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o700)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, si.ModTime(), si.ModTime())
}

// removeDeadTemps removes the temporary files of a start that was killed
// while it linked or copied (NAME.tmpPID, PID no longer running).
func removeDeadTemps(dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, "*.tmp*"))
	for _, n := range names {
		pid, err := strconv.Atoi(n[strings.LastIndex(n, ".tmp")+len(".tmp"):])
		if err == nil && pid > 0 && syscall.Kill(pid, 0) == syscall.ESRCH {
			os.Remove(n)
		}
	}
}
