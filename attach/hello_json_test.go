package attach

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// The hand-written Hello is byte for byte what encoding/json writes (with
// HTML escaping off: `<` stays `<`, which any JSON reader reads the same),
// for every field set or empty and for strings that need escaping.
func TestHelloJSONIsEncodingJSONs(t *testing.T) {
	strs := []string{"", "tui", "xterm-256color", "quote \" back \\", "ctl \x00\x1f\n\t", "é 😀 \u2028", "bad \xff utf-8", "<a&b>"}
	pick := func(r *rand.Rand) string { return strs[r.IntN(len(strs))] }
	list := func(r *rand.Rand) []string {
		var l []string
		for range r.IntN(4) {
			l = append(l, pick(r))
		}
		if l == nil && r.IntN(2) == 0 {
			l = []string{} // empty but not nil: omitted as well
		}
		return l
	}
	num := func(r *rand.Rand) int { return []int{0, 1, -3, 80, 1 << 40}[r.IntN(5)] }
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		h := Hello{Proto: num(r), Mode: pick(r), Build: pick(r), Env: list(r), UpdateEnv: list(r), Cols: num(r), Rows: num(r),
			Args: list(r), PID: num(r), TTY: pick(r), Terminal: r.IntN(2) == 0}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(h); err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := h.appendJSON(nil); string(got) != string(want) {
			t.Fatalf("round %d: %+v\nhand:          %s\nencoding/json: %s", i, h, got, want)
		}
	}
}
