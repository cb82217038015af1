package e2e

// The sleeping seats' benchmark (issue 35, point 6; docs/performance.md
// "Sleeping seats"): N topics, each with a real Claude Code and a real
// Codex seat against the scripted model endpoint, each answers once, goes
// idle and sleeps (hibernate_after 3s). It reports the resident memory of
// serve's process tree (serve, the CLIs and their sidecars) with every seat
// awake and idle and with every seat asleep, and the time from a post
// addressed to a sleeping seat to its answer. Run it by hand:
//
//	PULLCEPT_BENCH_SLEEP=4 go test -count=1 -run TestBenchSleepingSeats -v ./e2e/
//
// (without -race for figures; the newest Claude with PULLCEPT_BENCH_LATEST=1).

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pullcept/e2e/clihome"
	"pullcept/seat"
)

func TestBenchSleepingSeats(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("PULLCEPT_BENCH_SLEEP"))
	if n <= 0 {
		t.Skip("set PULLCEPT_BENCH_SLEEP=N to run the sleeping seats' benchmark with N topics of a Claude and a Codex seat")
	}
	bins, err := clihome.FindBins()
	if os.Getenv("PULLCEPT_BENCH_LATEST") != "" {
		bins, err = clihome.FindLatestBins()
	}
	if err != nil {
		t.Skip(err)
	}
	// Off while the seats start: measured awake, then turned on (the server
	// reads config.json again when it changes).
	c := newCLIRoomWith(t, roomAgent(nil), roomOptions{bins: bins, config: `"hibernate_after":"off"`})
	var topics []string
	for i := range n {
		topic := c.topic()
		if i > 0 {
			r := c.do(map[string]any{"cmd": "new"})
			topic = r["topic"].(string)
		}
		topics = append(topics, topic)
		answerOnce(t, c, topic)
	}
	// Awake and idle: every seat has answered.
	time.Sleep(5 * time.Second) // the last turns' tails (usage, transcripts) settle
	awake := seat.TreeRSS(c.serve.cmd.Process.Pid)
	cfgFile := filepath.Join(c.phome, "config.json")
	cfg, err := os.ReadFile(cfgFile)
	if err != nil {
		t.Fatal(err)
	}
	writeConfig(t, c.phome, strings.Replace(string(cfg), `"hibernate_after":"off"`, `"hibernate_after":"3s"`, 1))
	for _, topic := range topics {
		for _, acc := range []string{"claude", "codex"} {
			c.waitActivity(t, 0, topic, acc, func(a map[string]any) bool { return a["state"] == "asleep" })
		}
	}
	asleep := seat.TreeRSS(c.serve.cmd.Process.Pid)
	t.Logf("pullcept ls:\n%s", run(t, c.phome, "ls"))

	var wakes []time.Duration
	for _, topic := range topics {
		for _, name := range []string{claudeName, codexName} {
			from := c.mark()
			c.post(t, topic, "@"+name+" what was the number?", c.lastPostID(topic))
			asked := c.waitFrom(from, func(m map[string]any) bool {
				p, _ := m["post"].(map[string]any)
				return m["event"] == "post" && p != nil && p["speaker"] == "Master"
			})
			woke := c.waitFrom(from, func(m map[string]any) bool {
				p, _ := m["post"].(map[string]any)
				return m["event"] == "post" && p != nil && p["speaker"] == name
			})
			wakes = append(wakes, sinceTS(t, asked, woke))
		}
	}
	slices.Sort(wakes)
	t.Logf("%d seats (%d Claude at %s, %d Codex): serve's tree %s MB awake and idle, %s MB asleep; addressed post to the woken seat's answer: median %s, max %s",
		2*n, n, bins.Claude, n, mb(awake), mb(asleep), wakes[len(wakes)/2], wakes[len(wakes)-1])
}

func mb(b int64) string { return fmt.Sprintf("%.0f", float64(b)/(1<<20)) }
