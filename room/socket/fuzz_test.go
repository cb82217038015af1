package socket

import (
	"testing"

	"pullcept/room/wire"
)

// FuzzParseStatus: a status hook body is outside input; a figure comes
// back only with a sane percentage, names on one line, never a panic.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(`{"rate_limits":{"five_hour":{"used_percentage":85,"resets_at":1760000000},"seven_day":{"used_percentage":1,"resets_at":"2026-10-12T00:00:00Z"}}}`))
	f.Add([]byte(`{"rate_limits":{"five_hour":{"resets_at":[1]}}}`))
	f.Add([]byte(`{"rate_limits":null}`))
	f.Add([]byte(`{"model":{"display_name":"Opus\u001b[2J"},"effort":{"level":"high"},"context_window":{"used_percentage":-3}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		r := parseStatus(body)
		for _, w := range []*wire.Window{r.FiveHour, r.SevenDay} {
			if w != nil && !sanePercent(w.UsedPercentage) {
				t.Fatalf("percentage %v accepted", w.UsedPercentage)
			}
		}
		if r.Context != nil && !sanePercent(*r.Context) {
			t.Fatalf("context %v accepted", *r.Context)
		}
		if r.Model != wire.OneLine(r.Model) || r.Effort != wire.OneLine(r.Effort) {
			t.Fatalf("model %q / effort %q not one safe line", r.Model, r.Effort)
		}
	})
}
