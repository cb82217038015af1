package mcpserv

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// maxLineBytes bounds one message from a server (mcp-go's stdio client reads
// a line whole, however long): a longer line is skipped, said in the log.
const maxLineBytes = 16 << 20

// stdoutLines is the server's stdout as mcp-go's client reads it: each
// line that is JSON, in order. A line that is not (a runtime's banner, a
// debug print) or is too long is skipped and said through skipped, where
// mcp-go would drop it unsaid. done is closed when reading ends (the end
// of the server's stdout, or its close): every notification read by then
// was handed over.
type stdoutLines struct {
	br      *bufio.Reader
	skipped func(why string)
	done    chan struct{}
	once    sync.Once
	line    []byte // the rest of the line being handed over
	limit   int    // maxLineBytes; smaller in tests
}

func newStdoutLines(r io.Reader, skipped func(string)) *stdoutLines {
	return &stdoutLines{br: bufio.NewReader(r), skipped: skipped, done: make(chan struct{}), limit: maxLineBytes}
}

func (s *stdoutLines) Read(p []byte) (int, error) {
	for len(s.line) == 0 {
		line, err := s.next()
		if err != nil {
			s.once.Do(func() { close(s.done) })
			return 0, err
		}
		s.line = line
	}
	n := copy(p, s.line)
	s.line = s.line[n:]
	return n, nil
}

// next is the next JSON line, with its newline.
func (s *stdoutLines) next() ([]byte, error) {
	for {
		var b []byte
		over := false
		var err error
		for {
			var frag []byte
			frag, err = s.br.ReadSlice('\n')
			if !over && len(b)+len(frag) > s.limit+1 {
				over, b = true, nil
			}
			if !over {
				b = append(b, frag...)
			}
			if err != bufio.ErrBufferFull {
				break
			}
		}
		text := bytes.TrimSpace(b)
		switch {
		case over:
			s.skipped(fmt.Sprintf("a line longer than %d bytes was skipped", s.limit))
		case len(text) == 0:
		case !json.Valid(text):
			s.skipped(fmt.Sprintf("a line that is not JSON was skipped: %q", oneLine(string(text))))
		default:
			return append(text, '\n'), nil
		}
		if err != nil {
			return nil, err
		}
	}
}
