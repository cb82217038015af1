package app

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pullcept/attachment"
	"pullcept/room/wire"
	"pullcept/seat"
)

// TestPostWithAttachments: files are saved under the topic's folder before
// the post, and the room, the log and the answer carry the body with the
// block of absolute paths.
func TestPostWithAttachments(t *testing.T) {
	t.Parallel()
	a := newApp(t, []seat.Account{}, nil)
	topic, _ := a.NewTopic()
	src := filepath.Join(t.TempDir(), "memo @Lin.txt")
	os.WriteFile(src, []byte("the memo"), 0o600)
	atts := []Attachment{{Name: "memo @Lin.txt", Source: src}, {Name: "image.png", Data: []byte("\x89PNG pasted")}, {Name: "image.png", Data: []byte("\x89PNG second")}}
	o, back, err := a.PostWith(topic, "look", "", atts)
	if err != nil || !o.Delivered {
		t.Fatalf("PostWith = %+v, %v", o, err)
	}
	dir, _ := a.store.AttachmentDir(topic)
	if dir != filepath.Join(a.dirs.Attachments(), topic) {
		t.Fatalf("the store's folder %s is not under dirs.Attachments %s", dir, a.dirs.Attachments())
	}
	want := []string{filepath.Join(dir, "memo _Lin.txt"), filepath.Join(dir, "image.png"), filepath.Join(dir, "image (2).png")}
	wantBody := "look\n\n添付:\n" + strings.Join(want, "\n")
	if o.Post.Content != wantBody {
		t.Fatalf("body %q, want %q", o.Post.Content, wantBody)
	}
	for i, p := range want {
		if back[i].Saved != p || back[i].SavedTopic != topic {
			t.Errorf("attachment %d came back as %+v", i, back[i])
		}
	}
	if b, _ := os.ReadFile(want[0]); string(b) != "the memo" {
		t.Errorf("saved copy holds %q", b)
	}
	if b, _ := os.ReadFile(want[2]); string(b) != "\x89PNG second" {
		t.Errorf("second image holds %q", b)
	}
	page, err := a.Page(topic, 10, "")
	if err != nil || len(page.Posts) != 1 || page.Posts[0].Content != wantBody {
		t.Fatalf("the log: %+v, %v", page, err)
	}
	f, err := a.ResolveAttachment(want[1])
	if err != nil || f.Topic != topic || f.Name != "image.png" || f.Type != "image/png" {
		t.Fatalf("ResolveAttachment = %+v, %v", f, err)
	}
	if _, err := a.ResolveAttachment(src); !errors.Is(err, attachment.ErrOutside) {
		t.Errorf("the source outside resolves: %v", err)
	}

	// Attachments alone: the block alone.
	o, _, err = a.PostWith(topic, "", o.Post.MessageID, []Attachment{{Name: "a.txt", Data: []byte("a")}})
	if err != nil || o.Post.Content != "添付:\n"+filepath.Join(dir, "a.txt") {
		t.Fatalf("attachments alone: %q, %v", o.Post.Content, err)
	}
}

// TestPostWithUnreadable: a source that cannot be read saves nothing and
// posts nothing, even after sources that could.
func TestPostWithUnreadable(t *testing.T) {
	t.Parallel()
	a := newApp(t, []seat.Account{}, nil)
	topic, _ := a.NewTopic()
	sub := a.Subscribe()
	defer sub.Close()
	tmp := t.TempDir()
	ok := filepath.Join(tmp, "ok.txt")
	os.WriteFile(ok, []byte("ok"), 0o600)
	for what, bad := range map[string]string{"missing": filepath.Join(tmp, "gone.txt"), "a folder": tmp} {
		atts := []Attachment{{Name: "ok.txt", Source: ok}, {Name: "bad", Source: bad}}
		_, back, err := a.PostWith(topic, "text", "", atts)
		if !errors.Is(err, ErrAttachment) {
			t.Fatalf("%s: err = %v", what, err)
		}
		if back[0].Saved != "" {
			t.Errorf("%s: the readable file was saved: %+v", what, back[0])
		}
	}
	dir, _ := a.store.AttachmentDir(topic)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the topic's folder exists: %v", err)
	}
	if p, _ := a.Page(topic, 10, ""); len(p.Posts) != 0 {
		t.Errorf("posts: %+v", p.Posts)
	}
	// No post was delivered: the first post event is a later marker's.
	if _, err := a.Post(topic, "marker", ""); err != nil {
		t.Fatal(err)
	}
	for {
		ev := next(t, sub)
		if ev.Kind == EventRoom && ev.Room.Kind == RoomPost {
			if ev.Room.Post.Content != "marker" {
				t.Fatalf("a post after refused attachments: %+v", ev.Room.Post)
			}
			break
		}
	}
}

// TestRefusedThenResent: a post the floor refuses comes back with where its
// files were saved; sent again in the same topic nothing is saved twice;
// sent in another topic, they are saved there.
func TestRefusedThenResent(t *testing.T) {
	t.Parallel()
	a := newApp(t, []seat.Account{}, nil)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	bot := joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	if err := bot.WriteJSON(wire.PostFrame{Type: wire.TypePost, MessageID: "b1", Content: "meanwhile"}); err != nil {
		t.Fatal(err)
	}
	for {
		if ev := next(t, sub); ev.Kind == EventRoom && ev.Room.Kind == RoomPost {
			break
		}
	}
	src := filepath.Join(t.TempDir(), "shot.png")
	os.WriteFile(src, []byte("png"), 0o600)
	o, back, err := a.PostWith(topic, "see", "", []Attachment{{Name: "shot.png", Source: src}})
	if err != nil || o.Delivered || len(o.Missed) != 1 {
		t.Fatalf("want a refusal: %+v, %v", o, err)
	}
	dir, _ := a.store.AttachmentDir(topic)
	saved := filepath.Join(dir, "shot.png")
	if back[0].Saved != saved || back[0].SavedTopic != topic {
		t.Fatalf("came back as %+v", back[0])
	}
	os.Remove(src) // the original may go: the saved copy is what is sent
	o, back2, err := a.PostWith(topic, "see", "b1", back)
	if err != nil || !o.Delivered || o.Post.Content != "see\n\n添付:\n"+saved {
		t.Fatalf("resent: %+v, %v", o, err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 || back2[0].Saved != saved {
		t.Fatalf("saved twice: %v, %+v", ents, back2[0])
	}

	// Another topic: saved again, there, from the saved copy.
	other, _ := a.NewTopic()
	o, back3, err := a.PostWith(other, "again", "", back2)
	otherDir, _ := a.store.AttachmentDir(other)
	if err != nil || !o.Delivered || o.Post.Content != "again\n\n添付:\n"+filepath.Join(otherDir, "shot.png") || back3[0].SavedTopic != other {
		t.Fatalf("in another topic: %+v, %+v, %v", o, back3, err)
	}
	if b, _ := os.ReadFile(filepath.Join(otherDir, "shot.png")); string(b) != "png" {
		t.Errorf("the other topic's copy holds %q", b)
	}
	// A control client sending the saved path itself: used as it is.
	o, _, err = a.PostWith(other, "by path", o.Post.MessageID, []Attachment{{Name: "shot.png", Source: back3[0].Saved}})
	if err != nil || !strings.HasSuffix(o.Post.Content, "\n"+back3[0].Saved) {
		t.Fatalf("by saved path: %+v, %v", o, err)
	}
	if ents, _ := os.ReadDir(otherDir); len(ents) != 1 {
		t.Fatalf("a saved path was copied again: %v", ents)
	}
}

// TestDeleteRemovesAttachments: deleting a topic deletes its folder of
// attachments and leaves another topic's.
func TestDeleteRemovesAttachments(t *testing.T) {
	t.Parallel()
	a := newApp(t, []seat.Account{}, nil)
	topic, _ := a.NewTopic()
	other, _ := a.NewTopic()
	for _, tp := range []string{topic, other} {
		if _, _, err := a.PostWith(tp, "x", "", []Attachment{{Name: "f.txt", Data: []byte("f")}}); err != nil {
			t.Fatal(err)
		}
	}
	dir, _ := a.store.AttachmentDir(topic)
	keep, _ := a.store.AttachmentDir(other)
	if err := a.Delete(context.Background(), topic); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the deleted topic's attachments stay: %v", err)
	}
	if _, err := os.Stat(filepath.Join(keep, "f.txt")); err != nil {
		t.Errorf("the other topic's attachment went: %v", err)
	}
}

// TestAttachmentsTypedIntoSeat: the block reaches a seated CLI's terminal
// as the room has it, one path a line, then the \r.
func TestAttachmentsTypedIntoSeat(t *testing.T) {
	t.Parallel()
	typed := filepath.Join(t.TempDir(), "typed")
	st := &fakeStarter{argv: []string{"/bin/sh", "-c", "stty raw -echo; cat >" + typed}}
	a := newApp(t, []seat.Account{{ID: "bot", Name: "Bot", Kind: seat.KindCLI, Command: "my-cli"}}, st)
	sub := a.Subscribe()
	defer sub.Close()
	topic, _ := a.NewTopic()
	if _, err := a.StartSeat(context.Background(), topic, "bot"); err != nil {
		t.Fatal(err)
	}
	joinAsSidecar(t, a, sub, topic, "bot", "Bot")
	o, _, err := a.PostWith(topic, "@Bot look", "", []Attachment{{Name: "image.png", Data: []byte("png")}})
	if err != nil || !o.Delivered {
		t.Fatalf("%+v %v", o, err)
	}
	dir, _ := a.store.AttachmentDir(topic)
	want := "look\n\n添付:\n" + filepath.Join(dir, "image.png") + "\r"
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(typed)
		if strings.HasSuffix(string(b), want) && strings.HasPrefix(string(b), "[pullcept] ") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("typed %q, want it to end in %q", b, want)
		}
		time.Sleep(10 * time.Millisecond) // cat writes the file: no event says it did
	}
}
