package vt

import (
	"strings"
	"testing"
	"time"
)

// replySentinel is DA2: its answer marks the end of the replies to what
// was written before it (the reply pipe keeps order).
const (
	replySentinel       = "\x1b[>c"
	replySentinelAnswer = "\x1b[>1;10;0c"
)

// repliesTo writes in to e and returns everything e answered to it.
func repliesTo(t *testing.T, e *Emulator, in string) string {
	t.Helper()
	wrote := make(chan struct{})
	go func() { defer close(wrote); _, _ = e.WriteString(in + replySentinel) }()
	defer func() { <-wrote }() // the caller may write next
	var got strings.Builder
	buf := make([]byte, 4096)
	deadline := time.After(10 * time.Second)
	for !strings.HasSuffix(got.String(), replySentinelAnswer) {
		n := make(chan int, 1)
		go func() { k, _ := e.Read(buf); n <- k }()
		select {
		case k := <-n:
			got.Write(buf[:k])
		case <-deadline:
			t.Fatalf("no sentinel answer after %q; got %q", in, got.String())
		}
	}
	return strings.TrimSuffix(got.String(), replySentinelAnswer)
}

func TestPatchQueryAnswers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"DSR 5 operating status", "\x1b[5n", "\x1b[0n"},
		{"CSI 18 t text area size", "\x1b[18t", "\x1b[8;24;80t"},
		{"CSI 14 t is not answered", "\x1b[14t", ""},
		{"DECRQM 2026 reset", "\x1b[?2026$p", "\x1b[?2026;2$y"},
		{"DECRQM 2026 set", "\x1b[?2026h\x1b[?2026$p\x1b[?2026l", "\x1b[?2026;1$y"},
		{"DECRQM 2026 after the frame", "\x1b[?2026h\x1b[?2026l\x1b[?2026$p", "\x1b[?2026;2$y"},
		{"DECRQSS SGR default", "\x1bP$qm\x1b\\", "\x1bP1$r0m\x1b\\"},
		{"DECRQSS SGR bold red on 256-colour", "\x1b[1;31;48;5;200m\x1bP$qm\x1b\\", "\x1bP1$r0;1;31;48;5;200m\x1b\\"},
		{"DECRQSS SGR true colour", "\x1b[38;2;10;20;30m\x1bP$qm\x1b\\", "\x1bP1$r0;38;2;10;20;30m\x1b\\"},
		{"DECRQSS DECSTBM full screen", "\x1bP$qr\x1b\\", "\x1bP1$r1;24r\x1b\\"},
		{"DECRQSS DECSTBM region", "\x1b[5;20r\x1bP$qr\x1b\\", "\x1bP1$r5;20r\x1b\\"},
		{"DECRQSS DECSLRM", "\x1b[?69h\x1b[3;70s\x1bP$qs\x1b\\", "\x1bP1$r3;70s\x1b\\"},
		{"DECRQSS DECSCUSR default", "\x1bP$q q\x1b\\", "\x1bP1$r1 q\x1b\\"},
		{"DECRQSS DECSCUSR steady bar", "\x1b[6 q\x1bP$q q\x1b\\", "\x1bP1$r6 q\x1b\\"},
		{"DECRQSS DECSCUSR blinking underline", "\x1b[3 q\x1bP$q q\x1b\\", "\x1bP1$r3 q\x1b\\"},
		{"DECRQSS DECSCL", "\x1bP$q\"p\x1b\\", "\x1bP1$r62;1\"p\x1b\\"},
		{"DECRQSS DECSCA", "\x1bP$q\"q\x1b\\", "\x1bP1$r0\"q\x1b\\"},
		{"DECRQSS DECSLPP", "\x1bP$qt\x1b\\", "\x1bP1$r24t\x1b\\"},
		{"DECRQSS unknown", "\x1bP$qx\x1b\\", "\x1bP0$r\x1b\\"},
		{"OSC 4 query, ST", "\x1b]4;1;?\x1b\\", "\x1b]4;1;rgb:8080/0000/0000\x1b\\"},
		{"OSC 4 query, BEL", "\x1b]4;1;?\a", "\x1b]4;1;rgb:8080/0000/0000\a"},
		{"OSC 4 query 256-colour cube", "\x1b]4;196;?\a", "\x1b]4;196;rgb:ffff/0000/0000\a"},
		{"OSC 4 two queries", "\x1b]4;0;?;15;?\a", "\x1b]4;0;rgb:0000/0000/0000\a\x1b]4;15;rgb:ffff/ffff/ffff\a"},
		{"OSC 4 set then query", "\x1b]4;3;rgb:12/34/56\a\x1b]4;3;?\a", "\x1b]4;3;rgb:1212/3434/5656\a"},
		{"OSC 4 set, 104 resets", "\x1b]4;3;rgb:12/34/56\a\x1b]104;3\a\x1b]4;3;?\a", "\x1b]4;3;rgb:8080/8080/0000\a"},
		{"OSC 4 out of range", "\x1b]4;256;?\a", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := NewEmulator(80, 24)
			t.Cleanup(func() { _ = e.Close() })
			if got := repliesTo(t, e, tc.in); got != tc.want {
				t.Errorf("%q answered %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

// The 18 t answer follows a resize.
func TestPatchTextAreaSizeAfterResize(t *testing.T) {
	t.Parallel()
	e := NewEmulator(80, 24)
	t.Cleanup(func() { _ = e.Close() })
	e.Resize(100, 30)
	if got := repliesTo(t, e, "\x1b[18t"); got != "\x1b[8;30;100t" {
		t.Errorf("after resize 18t answered %q", got)
	}
}
