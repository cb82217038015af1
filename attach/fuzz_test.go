package attach_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"pullcept/attach"
)

// rw reads data and swallows writes.
type rw struct{ io.Reader }

func (rw) Write(p []byte) (int, error) { return len(p), nil }

// FuzzReadFrames: a peer's bytes are outside input. Any bytes give whole
// frames within MaxFrame, then an error; a Hello read from them is either
// refused with an error or decoded; nothing panics.
func FuzzReadFrames(f *testing.F) {
	var seed bytes.Buffer
	c := attach.NewConn(&seed)
	_ = c.WriteJSON(attach.FrameHello, attach.Hello{Proto: 1, Mode: attach.ModeTUI, Cols: 80, Rows: 24})
	_ = c.Write(attach.FrameInput, []byte("ab\r"))
	f.Add(seed.Bytes())
	f.Add([]byte{'H', 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{'H', 0, 0, 0, 3, '{', '}', 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := attach.NewConn(rw{bytes.NewReader(data)})
		var h attach.Hello
		if err := c.ReadJSON(attach.FrameHello, &h); err != nil {
			return // refused: the server answers with an error Welcome
		}
		for n := 0; ; n++ {
			_, p, err := c.Read()
			if err != nil {
				if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, attach.ErrFrameTooBig) {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			if len(p) > attach.MaxFrame || n > len(data) {
				t.Fatalf("frame of %d bytes from %d bytes of input", len(p), len(data))
			}
		}
	})
}
