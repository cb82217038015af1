package ansi

// PATCH(pullcept): tests of the data buffer that grows to its limit.

import (
	"bytes"
	"strings"
	"testing"
)

// oscParser is a parser with a data limit of max that records the OSC
// strings it dispatches.
func oscParser(max int) (*Parser, *[]string) {
	var got []string
	p := NewParser()
	p.SetDataSize(max)
	p.SetHandler(Handler{HandleOsc: func(cmd int, data []byte) { got = append(got, string(data)) }})
	return p, &got
}

func TestDataBufferAllocatedOnUse(t *testing.T) {
	const limit = 4 << 20
	if n := testing.AllocsPerRun(10, func() { p := NewParser(); p.SetDataSize(limit) }); n > 3 {
		t.Errorf("NewParser+SetDataSize: %v allocations", n)
	}
	p, got := oscParser(limit)
	if cap(p.data) != 0 {
		t.Fatalf("SetDataSize(%d) allocated %d bytes before any data", limit, cap(p.data))
	}
	p.Parse([]byte("\x1b]2;title\x07"))
	if len(*got) != 1 || (*got)[0] != "2;title" {
		t.Fatalf("OSC data %q, want [2;title]", *got)
	}
	if cap(p.data) > 1024 {
		t.Errorf("a 7-byte OSC left a %d-byte buffer", cap(p.data))
	}
}

func TestDataBufferKeepsItsLimit(t *testing.T) {
	for _, limit := range []int{1, 300, 4096, 100_000} {
		for _, n := range []int{0, 1, limit - 3, limit - 2, limit - 1, limit, limit + 1, 3 * limit} {
			if n < 0 {
				continue
			}
			body := strings.Repeat("x", n)
			want := ("2;" + body)[:min(n+2, limit)]
			p, got := oscParser(limit)
			// Twice: the second sequence reuses (or, past dataKeep, remakes)
			// the buffer.
			p.Parse([]byte("\x1b]2;" + body + "\x1b\\" + "\x1b]2;" + body + "\x07"))
			if len(*got) != 2 || (*got)[0] != want || (*got)[1] != want {
				t.Fatalf("limit %d, %d bytes: dispatched %d strings, lengths %v, want two of %d", limit, n, len(*got), lens(*got), len(want))
			}
		}
	}
}

func TestDataBufferLargeLetGo(t *testing.T) {
	p, got := oscParser(4 << 20)
	big := bytes.Repeat([]byte("y"), 1<<20)
	p.Parse(append(append([]byte("\x1b]52;c;"), big...), 0x07))
	if len(*got) != 1 || len((*got)[0]) != 1<<20+5 {
		t.Fatalf("1 MiB OSC 52: lengths %v", lens(*got))
	}
	if len(p.Data()) != 1<<20+5 {
		t.Errorf("Data() after the dispatch: %d bytes, want the sequence's %d", len(p.Data()), 1<<20+5)
	}
	p.Parse([]byte("\x1b[m"))
	if cap(p.data) != 0 {
		t.Errorf("a parser keeps a %d-byte buffer once the next sequence started", cap(p.data))
	}
	// An abandoned one (CAN) is let go when the next string starts.
	p.Parse(append(append([]byte("\x1b]52;c;"), big...), 0x18))
	p.Parse([]byte("\x1b]0;t\x07"))
	if cap(p.data) > 64*1024 {
		t.Errorf("a parser keeps a %d-byte buffer after an abandoned 1 MiB sequence", cap(p.data))
	}
	if (*got)[len(*got)-1] != "0;t" {
		t.Errorf("last OSC %q, want 0;t", (*got)[len(*got)-1])
	}
}

func TestDecodeSequenceDataLimit(t *testing.T) {
	p := NewParser()
	p.SetDataSize(5)
	seq, _, _, _ := DecodeSequence([]byte("\x1b]2;abcdefgh\x07rest"), NormalState, p)
	if string(seq) != "\x1b]2;abcdefgh\x07" {
		t.Fatalf("sequence %q", seq)
	}
	if string(p.Data()) != "2;abc" || p.Command() != 2 {
		t.Errorf("data %q command %d, want 2;abc and 2", p.Data(), p.Command())
	}
}

func lens(ss []string) []int {
	var n []int
	for _, s := range ss {
		n = append(n, len(s))
	}
	return n
}
