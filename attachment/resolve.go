package attachment

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is the answer for a path that is not an attachment: it does
// not resolve to a file directly inside a topic's folder under the
// attachments folder.
var ErrOutside = errors.New("not an attachment of this room")

// PreviewMax is the largest file the screen draws as a picture (spec: 32
// MiB を超えるファイルは絵にせず札で出す).
const PreviewMax = 32 << 20

// File is an attachment as the Resolver found it.
type File struct {
	// Path is where the path resolved to (links and ".." followed).
	Path string
	// Topic is the folder under the attachments folder that holds it.
	Topic string
	// Name is its base name; Size its size in bytes.
	Name string
	Size int64
	// Type is its media type (image/png, application/pdf, …).
	Type string
}

// Image reports whether the file is an image the screen may draw: a PNG,
// JPEG or GIF of at most PreviewMax bytes.
func (f File) Image() bool {
	switch f.Type {
	case "image/png", "image/jpeg", "image/gif":
		return f.Size <= PreviewMax
	}
	return false
}

// Resolver reads paths for the screen (topic_index::resolve_attachment).
// Root is the attachments folder (logs/main/attachments).
type Resolver struct{ Root string }

// Resolve follows path and the Root to what they really are
// (filepath.EvalSymlinks: symbolic links and ".." are followed) and
// accepts it only when it is a regular file directly inside a folder
// directly inside the Root, with no other hard link to it (a hard link
// would make a file from anywhere readable through the folder; the files
// Save writes have one link). Anything else is ErrOutside. What is read is
// the resolved file, never the path as spelt.
func (r Resolver) Resolve(path string) (File, error) {
	f, _, err := r.resolve(path)
	return f, err
}

func (r Resolver) resolve(path string) (File, fs.FileInfo, error) {
	if r.Root == "" || !filepath.IsAbs(path) {
		return File{}, nil, ErrOutside
	}
	root, err := filepath.EvalSymlinks(r.Root)
	if err != nil {
		return File{}, nil, ErrOutside
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return File{}, nil, ErrOutside
	}
	rel, err := filepath.Rel(root, real)
	if err != nil {
		return File{}, nil, ErrOutside
	}
	topic, name, ok := strings.Cut(filepath.ToSlash(rel), "/")
	if !ok || topic == "" || topic == "." || topic == ".." || name == "" || strings.Contains(name, "/") || name == ".." {
		return File{}, nil, ErrOutside
	}
	info, err := os.Lstat(real)
	if err != nil || !info.Mode().IsRegular() || links(info) > 1 {
		return File{}, nil, ErrOutside
	}
	return File{Path: real, Topic: topic, Name: name, Size: info.Size(), Type: typeOf(real, name, openNoFollow)}, info, nil
}

// Open resolves path like Resolve and opens the file it resolved to, for
// reading; the file opened is checked to be the one resolved (a link put
// in its place meanwhile is not followed).
func (r Resolver) Open(path string) (*os.File, File, error) {
	f, info, err := r.resolve(path)
	if err != nil {
		return nil, File{}, err
	}
	fh, err := openNoFollow(f.Path)
	if err != nil {
		return nil, File{}, ErrOutside
	}
	got, err := fh.Stat()
	if err != nil || !os.SameFile(info, got) || !got.Mode().IsRegular() || links(got) > 1 {
		fh.Close()
		return nil, File{}, ErrOutside
	}
	f.Size = got.Size()
	return fh, f, nil
}

// InTopic reports whether path is an attachment of topic's folder.
func (r Resolver) InTopic(path, topic string) (File, bool) {
	f, err := r.Resolve(path)
	if err != nil || f.Topic != topic {
		return File{}, false
	}
	return f, true
}

// String is a short description for errors and logs.
func (f File) String() string { return fmt.Sprintf("%s (%s, %s)", f.Name, f.Type, Size(f.Size)) }

var errNotRegular = errors.New("not a regular file")
