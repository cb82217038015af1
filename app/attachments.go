package app

// Attachments (spec 003 "添付は保存したファイルのパスで届く", #223, #318): the
// person's files are saved under the topic when the post is sent, one at a
// time, and the post's body names them by absolute path; the screen reads
// a path only through the resolver. The rules are the attachment
// package's; this file puts them together with the store and the room.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"pullcept/attachment"
)

// Attachment is a file the person attaches to a post (an input line's
// chip, a control post's path): the bytes come from Source (a file) or Data
// (a pasted image). Saved and SavedTopic say where it was saved already: a
// post the floor refused comes back with them, so sending it again in the
// same topic saves nothing twice, and in another topic saves it there
// (from the saved copy).
type Attachment struct {
	// Name is the name it arrived with; it is saved as attachment.Name of it.
	Name   string
	Source string
	Data   []byte
	// Saved is the path it was saved at in SavedTopic's folder.
	Saved, SavedTopic string
}

// AttachmentFile is a file as the resolver (or Stat) found it: name,
// media type, size.
type AttachmentFile = attachment.File

// ErrAttachment wraps every failure to read or save an attachment: nothing
// was posted.
var ErrAttachment = errors.New("attachment")

// AttachmentHeader is the line that starts a body's block of paths.
const AttachmentHeader = attachment.Header

// ParseAttachments finds the block of paths at the end of a body
// (attachment.Parse): the text before it, the paths, ok.
func ParseAttachments(body string) (text string, paths []string, ok bool) {
	return attachment.Parse(body)
}

// StatAttachment describes a file the person is about to attach (a regular
// file): its name, media type and size. Nothing is read but its first bytes.
func StatAttachment(path string) (AttachmentFile, error) { return attachment.Stat(path) }

// AttachmentSize is a size as the chips show it.
func AttachmentSize(n int64) string { return attachment.Size(n) }

// AttachmentType is the media type of a name and its first bytes.
func AttachmentType(name string, head []byte) string { return attachment.TypeOf(name, head) }

// resolver reads paths for the screen: files directly inside a topic's
// folder under logs/main/attachments, links and ".." followed.
func (a *App) resolver() attachment.Resolver {
	return attachment.Resolver{Root: a.dirs.Attachments()}
}

// ResolveAttachment says what an attachment path in a body is, or
// attachment.ErrOutside when it is not one (spec #318: 解決した先が添付フォル
// ダのトピックの一段下のファイル).
func (a *App) ResolveAttachment(path string) (AttachmentFile, error) {
	return a.resolver().Resolve(path)
}

// OpenAttachment opens the file an attachment path resolves to, for
// reading (the resolved file, checked again once open).
func (a *App) OpenAttachment(path string) (*os.File, AttachmentFile, error) {
	return a.resolver().Open(path)
}

// PostWith is the person's post with attachments (Post without them):
// every attachment not yet saved in topic's folder is saved there, one at
// a time, before anything reaches the room, and the body is the text, a
// blank line, "添付:" and the saved paths in order (attachment.Body). The
// attachments come back with where they were saved, whatever happened:
// after a refusal by the floor, or an error, they are given again. A
// source that cannot be read, or a save that fails, posts nothing (the
// error wraps ErrAttachment); the files saved before it stay saved and are
// remembered.
func (a *App) PostWith(topic, text, lastSeen string, atts []Attachment) (Outcome, []Attachment, error) {
	if len(atts) == 0 {
		o, err := a.Post(topic, text, lastSeen)
		return o, atts, err
	}
	if err := a.EnsureOpen(topic); err != nil {
		return Outcome{}, atts, err
	}
	dir, err := a.store.AttachmentDir(topic)
	if err != nil {
		return Outcome{}, atts, err
	}
	atts = append([]Attachment(nil), atts...)
	r := a.resolver()
	// Every source is opened before the first save: a missing or unreadable
	// file saves nothing.
	srcs := make([]io.ReadCloser, len(atts))
	defer func() {
		for _, s := range srcs {
			if s != nil {
				s.Close()
			}
		}
	}()
	for i, at := range atts {
		if at.SavedTopic == topic && at.Saved != "" {
			if _, ok := r.InTopic(at.Saved, topic); ok {
				continue
			}
		}
		if at.Saved == "" && at.Data == nil && at.Source != "" {
			// A file of this topic's folder already (a control client
			// sending again the paths a refused post answered with) is
			// named as it is.
			if _, ok := r.InTopic(at.Source, topic); ok {
				atts[i].Saved, atts[i].SavedTopic = at.Source, topic
				continue
			}
		}
		src, err := a.attachmentSource(at)
		if err != nil {
			return Outcome{}, atts, err
		}
		srcs[i] = src
	}
	paths := make([]string, len(atts))
	for i, at := range atts {
		if srcs[i] == nil {
			paths[i] = atts[i].Saved
			continue
		}
		name := at.Name
		if name == "" {
			name = "file"
		}
		p, err := attachment.Save(dir, name, srcs[i])
		if err != nil {
			return Outcome{}, atts, fmt.Errorf("%w: %v", ErrAttachment, err)
		}
		if _, ok := r.InTopic(p, topic); !ok {
			// The folder is not where the resolver looks (a link put in its
			// place): the screen could not read what the body names.
			os.Remove(p)
			return Outcome{}, atts, fmt.Errorf("%w: %s is not inside %s", ErrAttachment, p, r.Root)
		}
		atts[i].Saved, atts[i].SavedTopic = p, topic
		paths[i] = p
	}
	o, err := a.Post(topic, attachment.Body(text, paths), lastSeen)
	return o, atts, err
}

// attachmentSource opens what an attachment's bytes come from: the copy
// saved in another topic, the pasted bytes, or the source file (which must
// be a regular file).
func (a *App) attachmentSource(at Attachment) (io.ReadCloser, error) {
	if at.Saved != "" {
		if f, _, err := a.resolver().Open(at.Saved); err == nil {
			return f, nil
		}
	}
	if at.Data != nil {
		return io.NopCloser(bytes.NewReader(at.Data)), nil
	}
	if at.Source == "" {
		return nil, fmt.Errorf("%w %q: no file to read", ErrAttachment, at.Name)
	}
	// Stat before opening: opening a FIFO would wait for a writer.
	if info, err := os.Stat(at.Source); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAttachment, err)
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrAttachment, at.Source)
	}
	f, err := os.Open(at.Source)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrAttachment, err)
	}
	return f, nil
}
