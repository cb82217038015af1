package socket

import "testing"

// FuzzParseStatus: a status hook body is outside input; a window comes back
// only with a used percentage, never a panic.
func FuzzParseStatus(f *testing.F) {
	f.Add([]byte(`{"rate_limits":{"five_hour":{"used_percentage":85,"resets_at":1760000000},"seven_day":{"used_percentage":1,"resets_at":"2026-10-12T00:00:00Z"}}}`))
	f.Add([]byte(`{"rate_limits":{"five_hour":{"resets_at":[1]}}}`))
	f.Add([]byte(`{"rate_limits":null}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		five, seven := parseStatus(body)
		if (five != nil && five.UsedPercentage != five.UsedPercentage) || (seven != nil && seven.UsedPercentage != seven.UsedPercentage) {
			t.Fatal("NaN percentage accepted") // JSON has no NaN: cannot happen unless parsing is wrong
		}
	})
}
