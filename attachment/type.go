package attachment

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// types are the media types known by extension, so a chip says the same on
// every machine (mime.TypeByExtension reads the system's tables).
var types = map[string]string{
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif",
	".webp": "image/webp", ".svg": "image/svg+xml", ".bmp": "image/bmp", ".heic": "image/heic",
	".pdf": "application/pdf", ".zip": "application/zip", ".gz": "application/gzip", ".tar": "application/x-tar",
	".json": "application/json", ".txt": "text/plain", ".md": "text/markdown", ".csv": "text/csv",
	".html": "text/html", ".htm": "text/html", ".xml": "text/xml", ".log": "text/plain",
	".go": "text/x-go", ".py": "text/x-python", ".js": "text/javascript", ".ts": "text/typescript",
	".rs": "text/x-rust", ".c": "text/x-c", ".h": "text/x-c", ".sh": "text/x-shellscript",
	".yaml": "text/yaml", ".yml": "text/yaml", ".toml": "text/x-toml",
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".mp4": "video/mp4", ".mov": "video/quicktime",
}

// TypeOf is the media type of a file named name whose first bytes are head
// (nil: unknown): by its extension, else by its content.
func TypeOf(name string, head []byte) string {
	if t, ok := types[strings.ToLower(filepath.Ext(name))]; ok {
		return t
	}
	if head == nil {
		return "application/octet-stream"
	}
	t, _, _ := strings.Cut(http.DetectContentType(head), ";") // without its charset
	return t
}

// typeOf reads the first bytes of path (opened with open) when its
// extension says nothing.
func typeOf(path, name string, open func(string) (*os.File, error)) string {
	if _, ok := types[strings.ToLower(filepath.Ext(name))]; ok {
		return TypeOf(name, nil)
	}
	f, err := open(path)
	if err != nil {
		return TypeOf(name, nil)
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := f.Read(head)
	return TypeOf(name, head[:n])
}

// Size is a size for people: 812 B, 12.4 KiB, 3.1 MiB.
func Size(n int64) string {
	switch {
	case n < 1<<10:
		return strconv.FormatInt(n, 10) + " B"
	case n < 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " KiB"
	case n < 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MiB"
	}
	return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + " GiB"
}

// Stat describes a file to attach (not yet saved): its name and type as the
// chip shows them, and its size. Only regular files can be attached.
func Stat(path string) (File, error) {
	info, err := os.Stat(path)
	if err != nil {
		return File{}, err
	}
	if !info.Mode().IsRegular() {
		return File{}, &os.PathError{Op: "attach", Path: path, Err: errNotRegular}
	}
	name := filepath.Base(path)
	return File{Path: path, Name: name, Size: info.Size(), Type: typeOf(path, name, os.Open)}, nil
}
