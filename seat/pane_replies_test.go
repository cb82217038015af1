package seat

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// da1Answer is the emulator's answer to ESC[c.
const da1Answer = "\x1b[?62;1;6;22c"

// A CLI floods ESC[c and does not read its input (issue 13: the replies
// grew the process to 1 GB and a post waited 13.7 s behind them). The
// queue stays within maxReplyBytes, the rest is dropped, and a post the
// typist writes then goes before the replies still queued: when the CLI
// reads at last, the post comes after at most what was already in the
// kernel's buffer and the one write in flight, and queued replies follow it.
func TestPaneReplyFloodIsBoundedAndPostsGoFirst(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flood := filepath.Join(dir, "flood")
	const queries = 100_000 // 1.4 MB of answers
	if err := os.WriteFile(flood, bytes.Repeat([]byte("\x1b[c"), queries), 0o600); err != nil {
		t.Fatal(err)
	}
	gofile, rec := filepath.Join(dir, "go"), filepath.Join(dir, "rec")
	script := `stty raw -echo; cat "$1"; printf 'FLOODED'; while [ ! -e "$2" ]; do sleep 0.01; done; exec cat > "$3"`
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", script, "sh", flood, gofile, rec}, Grace: time.Second})
	waitScreen(t, p, "FLOODED")

	p.inMu.Lock()
	peak, dropped, queued := p.replyPeak, p.replyDrop, p.replyLen
	p.inMu.Unlock()
	if peak > maxReplyBytes {
		t.Errorf("reply queue reached %d bytes, limit %d", peak, maxReplyBytes)
	}
	if dropped == 0 || queued == 0 {
		t.Fatalf("dropped %d, queued %d: the flood did not fill the queue", dropped, queued)
	}

	// The post is queued while replies wait; then the CLI starts reading.
	posted := make(chan error, 1)
	if err := p.enqueue([]byte("POST-MARKER"), inputRoom, posted); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gofile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-posted:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(testWait):
		t.Fatal("the post was never written")
	}
	// An end marker behind every queued reply (queued past the limit on
	// purpose): once the CLI has it, it has all the replies.
	p.inMu.Lock()
	p.replies = append(p.replies, []byte("END-MARKER"))
	p.replyLen += len("END-MARKER")
	p.inMu.Unlock()
	notifyChan(p.inReady)
	got := waitFileContains(t, rec, "END-MARKER")

	before, after, ok := strings.Cut(strings.TrimSuffix(got, "END-MARKER"), "POST-MARKER")
	if !ok {
		t.Fatalf("the CLI never read the post; it read %d bytes", len(got))
	}
	for _, part := range []string{before, after} {
		if strings.ReplaceAll(part, da1Answer, "") != "" {
			t.Fatalf("the input holds more than whole answers and the post: %q…", part[:min(len(part), 80)])
		}
	}
	if after == "" {
		t.Error("no reply came after the post: it waited behind the queue")
	}
	total := len(before) + len(after)
	t.Logf("replies read: %d before the post, %d after, %d dropped of %d", len(before), len(after), dropped, queries)
	if total >= queries*len(da1Answer) {
		t.Errorf("the CLI read every answer (%d bytes): none was dropped", total)
	}
}

// waitFileContains waits, watching path grow, until it contains want.
func waitFileContains(t *testing.T, path, want string) string {
	t.Helper()
	deadline := time.Now().Add(testWait)
	for {
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, []byte(want)) {
			return string(b)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held %q (%d bytes)", path, want, len(b))
		}
		time.Sleep(5 * time.Millisecond) // polling the file, not waiting for time
	}
}

// The person's keys and the typist's writes are never dropped, however
// full the reply queue is.
func TestPaneKeysNotDroppedWhenRepliesAre(t *testing.T) {
	t.Parallel()
	p := startPane(t, PaneSpec{Argv: []string{"sh", "-c", "sleep 100"}, Grace: time.Second})
	p.inMu.Lock()
	p.replyLen = maxReplyBytes // as if full
	p.inMu.Unlock()
	if err := p.enqueue([]byte("x"), inputReply, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write([]byte("key")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testWait)
	defer cancel()
	if err := p.TypeRoom(ctx, []byte("post")); err != nil {
		t.Fatal(err)
	}
	p.inMu.Lock()
	defer p.inMu.Unlock()
	if p.replyDrop != 1 || len(p.replies) != 0 {
		t.Errorf("reply past the limit: dropped %d, queued %d; want 1, 0", p.replyDrop, len(p.replies))
	}
}
