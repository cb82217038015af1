package room

import (
	"strings"
	"testing"
	"time"

	"pullcept/room/wire"
)

// A post's answer carries the seat's usage read after the outcome, as a
// usage request answers it (figures, none yet, or why none); a read that
// cannot finish within its bound answers an error at the bound instead of
// holding the post's answer (spec 003 #385: 追加の待ちは最大1.5秒).
func TestUsageWithinAnswersOrGivesUp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	lin := f.join(t, "Lin", "acc-claude")
	anon := f.join(t, "Anon", "")
	if r := f.e.UsageWithin(lin, time.Minute); r.Error != "" || r.FiveHour != nil || r.ReceivedAt != "" {
		t.Fatalf("nothing received yet: %+v", r)
	}
	if r := f.e.UsageWithin(anon, time.Minute); !strings.Contains(r.Error, "no account") {
		t.Fatalf("no account: %+v", r)
	}
	f.e.RecordUsage(topicA, "acc-claude", wire.UsageReport{FiveHour: &wire.Window{UsedPercentage: 85}})
	if r := f.e.UsageWithin(lin, time.Minute); r.FiveHour == nil || r.FiveHour.UsedPercentage != 85 || r.FiveHour.ReceivedAt == "" || r.Type != "" || r.RequestID != "" {
		t.Fatalf("with figures: %+v", r)
	}

	f.e.usage.mu.Lock() // the book is busy elsewhere
	start := time.Now()
	r := f.e.UsageWithin(lin, 100*time.Millisecond)
	took := time.Since(start)
	f.e.usage.mu.Unlock()
	if r.Error != "the room could not read it within 100ms" || r.FiveHour != nil {
		t.Fatalf("a read that cannot finish: %+v", r)
	}
	if took < 100*time.Millisecond || took > 10*time.Second {
		t.Fatalf("gave up after %v, want the bound", took)
	}
}
