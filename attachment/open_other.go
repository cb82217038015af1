//go:build !unix

package attachment

import "os"

func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

func links(os.FileInfo) uint64 { return 1 }
