package seat

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A woken seat's posts are held ("waking") until it joins the room; the
// reason ranks after every other and no word of the person's ends it
// (docs/decisions.md "Sleeping seats").
func TestWakingHoldsUntilJoined(t *testing.T) {
	t.Parallel()
	a := NewActivity(ActivityOptions{ReportsStart: true, CLI: "Lin"})
	a.Waking()
	a.Launched()
	apply(t, a, hkSessionStart) // ready, not yet in the room
	if h := a.Hold(); h.Kind != HoldByWaking || h.Text != HoldWaking {
		t.Fatalf("hold while waking = %v", h)
	}
	if ok, _ := a.Begin(); ok {
		t.Fatal("a post was typed into a waking seat")
	}
	if got := firstHold(HoldReason{HoldByWaking, HoldWaking}, unsentHold); got != unsentHold {
		t.Fatalf("waking before unsent keys: %v", got)
	}
	if HoldByWaking.Release() != ReleaseCannot {
		t.Fatalf("waking's release = %v", HoldByWaking.Release())
	}
	a.Joined()
	if h := a.Hold(); h.Kind != HoldByWaking {
		t.Fatalf("hold right after the join = %v: it settles first", h)
	}
	select {
	case <-a.Changed():
	default:
	}
	deadline := time.After(WakeSettle + 5*time.Second)
	for a.Hold().Held() { // wakeAfter signals Changed at the settle's end
		select {
		case <-a.Changed():
		case <-deadline:
			t.Fatalf("hold after the join and the settle = %v", a.Hold())
		}
	}
}

// "hibernate_after": off by default; a Go duration of at least 1s; any
// other value is a config error and seats do not sleep.
func TestHibernateAfterConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for raw, want := range map[string]time.Duration{``: 0, `,"hibernate_after":"off"`: 0, `,"hibernate_after":"20m"`: 20 * time.Minute,
		`,"hibernate_after":"500ms"`: 0, `,"hibernate_after":20`: 0, `,"hibernate_after":"soon"`: 0} {
		p := filepath.Join(dir, "config.json")
		if err := os.WriteFile(p, []byte(`{"accounts":[]`+raw+`}`), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg, errs := Load(p)
		if cfg.HibernateAfter != want {
			t.Errorf("%s: hibernate after %v, want %v", raw, cfg.HibernateAfter, want)
		}
		bad := want == 0 && raw != `` && !strings.Contains(raw, "off")
		if bad != (len(errs) == 1 && strings.Contains(errs[0].Error(), "hibernate_after")) {
			t.Errorf("%s: errors %v", raw, errs)
		}
	}
}

// TreeRSS counts a process and its children (Linux).
func TestTreeRSS(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	if n := TreeRSS(os.Getpid()); n <= 0 {
		t.Fatalf("TreeRSS(self) = %d", n)
	}
	if n := TreeRSS(0); n != 0 {
		t.Fatalf("TreeRSS(0) = %d", n)
	}
}
