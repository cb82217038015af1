package main

import (
	"context"
	"fmt"
	"net/http"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

const sidecars = 8

// benchRoom: 8 `pullcept sidecar` processes (MCP over stdio, mcp-go's
// client) sitting in the topic of a `pullcept serve`. Round trip: one of
// them calls say_to_room 1000 times in a row, alone. Throughput: all 8 post
// 250 each at once with honest last_seen (their own delivered id; after a
// refusal the newest missed id, sending the kept draft). Reference: the
// room socket's own benchmarks (RoundTrip and Deliver8: the same traffic
// as raw WebSocket frames from inside the test process), run now.
func benchRoom() error {
	home, err := tempHome("room", nil)
	if err != nil {
		return err
	}
	s, err := startServe(home)
	if err != nil {
		return err
	}
	ctx := context.Background()
	cs := make([]*client.Client, sidecars)
	for i := range cs {
		env := []string{
			"PULLCEPT_ROOM_URL=" + s.Ready.URL,
			"PULLCEPT_ROOM_TOKEN=" + s.Ready.Token,
			fmt.Sprintf("PULLCEPT_AGENT_NAME=agent-%d", i),
			"PULLCEPT_ROOM_ID=" + s.Ready.Topic,
		}
		c, err := client.NewStdioMCPClient(opts.bin, env, "sidecar")
		if err != nil {
			return fmt.Errorf("sidecar %d: %w", i, err)
		}
		atCleanup(func() { c.Close() })
		init := mcp.InitializeRequest{}
		init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
		init.Params.ClientInfo = mcp.Implementation{Name: "pcbench", Version: "1"}
		if _, err := c.Initialize(ctx, init); err != nil {
			return fmt.Errorf("sidecar %d initialize: %w", i, err)
		}
		cs[i] = c
	}
	// Each sidecar connects to the room on its own: wait until it can post.
	last := make([]string, sidecars)
	for i, c := range cs {
		err := waitUntil(fmt.Sprintf("sidecar %d in the room", i), 10*time.Second, 20*time.Millisecond, func() (bool, error) {
			id, _, err := say(ctx, c, fmt.Sprintf("hello from %d", i), latestID(last))
			if err != nil {
				return false, nil
			}
			last[i] = id
			return id != "", nil
		})
		if err != nil {
			return err
		}
	}

	// Round trip, one sidecar alone.
	seen := latestID(last)
	lat := make([]time.Duration, 0, scale.roundTrips)
	for i := range scale.roundTrips {
		t0 := time.Now()
		id, refused, err := say(ctx, cs[0], fmt.Sprint("ping ", i), seen)
		if err != nil || refused != "" || id == "" {
			return fmt.Errorf("round trip %d: id %q refused %q err %v", i, id, refused, err)
		}
		lat = append(lat, time.Since(t0))
		seen = id
	}
	slices.Sort(lat)

	// The MCP stdio part alone: say_to_room with no content and no draft,
	// which the sidecar answers without the room.
	pings := make([]time.Duration, 0, scale.roundTrips)
	for range scale.roundTrips {
		t0 := time.Now()
		_, _, err := say(ctx, cs[0], "", "")
		if err == nil || !strings.Contains(err.Error(), "Nothing sent") {
			return fmt.Errorf("empty say_to_room: %v", err)
		}
		pings = append(pings, time.Since(t0))
	}
	slices.Sort(pings)

	// The room socket alone, from this process to serve: the same post
	// frames the sidecar sends, without MCP.
	raw, err := rawRoundTrips(s, seen)
	if err != nil {
		return fmt.Errorf("raw socket client: %w", err)
	}
	seen = raw.last

	// Throughput, 8 at once.
	var wg sync.WaitGroup
	var mu sync.Mutex
	var firstErr error
	refusals := 0
	start := time.Now()
	for i, c := range cs {
		wg.Go(func() {
			seen := seen
			for n := 0; n < scale.postsPerSidecar; {
				id, refused, err := say(ctx, c, fmt.Sprintf("post %d-%d", i, n), seen)
				for err == nil && refused != "" { // send the kept draft
					mu.Lock()
					refusals++
					mu.Unlock()
					seen = refused
					id, refused, err = say(ctx, c, "", seen)
				}
				if err != nil {
					mu.Lock()
					firstErr = cmpErr(firstErr, fmt.Errorf("sidecar %d post %d: %w", i, n, err))
					mu.Unlock()
					return
				}
				seen, n = id, n+1
			}
		})
	}
	wg.Wait()
	el := time.Since(start)
	if firstErr != nil {
		return firstErr
	}
	rate := float64(sidecars*scale.postsPerSidecar) / el.Seconds()
	fmt.Printf("  say_to_room alone: p50 %s p90 %s p99 %s (%d calls)\n", fmtDur(percentile(lat, 50)), fmtDur(percentile(lat, 90)), fmtDur(percentile(lat, 99)), len(lat))
	fmt.Printf("  say_to_room answered by the sidecar alone (empty, no draft; MCP stdio only): p50 %s p99 %s\n", fmtDur(percentile(pings, 50)), fmtDur(percentile(pings, 99)))
	fmt.Printf("  raw WebSocket client in this process posting to serve (no MCP, no sidecar): p50 %s p99 %s\n", fmtDur(percentile(raw.lat, 50)), fmtDur(percentile(raw.lat, 99)))
	fmt.Printf("  8 sidecars: %d posts delivered in %s = %.0f posts/s; %d floor refusals (each resent as the draft), %.0f calls/s\n",
		sidecars*scale.postsPerSidecar, fmtDur(el), rate, refusals, float64(sidecars*scale.postsPerSidecar+refusals)/el.Seconds())
	s.Close()

	ref, err := goBench("./room/socket/", "RoundTrip|Deliver8", "-benchtime", "2000x")
	if err != nil {
		return err
	}
	rp50 := time.Duration(ref["p50-µs"] * 1e3)
	rp99 := time.Duration(ref["p99-µs"] * 1e3)
	fmt.Printf("  raw socket (go test -bench 'RoundTrip|Deliver8' -benchtime 2000x ./room/socket/): p50 %s p99 %s, %.0f posts/s with 8 connections\n",
		fmtDur(rp50), fmtDur(rp99), ref["posts/s"])
	p50, p99 := percentile(lat, 50), percentile(lat, 99)
	record("room", "say_to_room round trip p50 (vs raw socket)", fmtDur(p50), fmtDur(rp50), ratio(p50.Seconds(), rp50.Seconds()))
	record("room", "say_to_room round trip p99 (vs raw socket)", fmtDur(p99), fmtDur(rp99), ratio(p99.Seconds(), rp99.Seconds()))
	record("room", "  of which: raw WebSocket post → serve, from another process, p50", fmtDur(percentile(raw.lat, 50)), fmtDur(rp50), ratio(percentile(raw.lat, 50).Seconds(), rp50.Seconds()))
	record("room", "  of which: MCP stdio alone (sidecar answers, no room), p50", fmtDur(percentile(pings, 50)), "—", "—")
	record("room", "posts/s, 8 posting at once (higher is better)", fmt.Sprintf("%.0f/s", rate), fmt.Sprintf("%.0f/s", ref["posts/s"]), ratio(rate, ref["posts/s"]))
	return nil
}

// wireProtocol is room/wire.ProtocolVersion (this program may import
// nothing of the module); TestBenchSpeaksTheRoomProtocol keeps them equal.
const wireProtocol = 12

type rawResult struct {
	lat  []time.Duration
	last string
}

// rawRoundTrips posts scale.roundTrips frames over one WebSocket connection to
// serve's room socket, each waiting for its post_result, and returns the
// sorted round trips.
func rawRoundTrips(s *serveProc, seen string) (rawResult, error) {
	h := http.Header{}
	h.Set("Authorization", "Bearer "+s.Ready.Token)
	c, _, err := websocket.DefaultDialer.Dial(s.Ready.URL, h)
	if err != nil {
		return rawResult{}, err
	}
	defer c.Close()
	hello := map[string]any{"type": "hello", "protocol": wireProtocol, "name": "raw-client", "room": s.Ready.Topic}
	if err := c.WriteJSON(hello); err != nil {
		return rawResult{}, err
	}
	r := rawResult{lat: make([]time.Duration, 0, scale.roundTrips)}
	for i := range scale.roundTrips {
		id := fmt.Sprintf("raw-%d", i)
		t0 := time.Now()
		frame := map[string]any{"type": "post", "message_id": id, "content": fmt.Sprint("raw ping ", i), "last_seen": seen}
		if err := c.WriteJSON(frame); err != nil {
			return r, err
		}
		for {
			var res struct {
				Type      string `json:"type"`
				MessageID string `json:"message_id"`
				Delivered bool   `json:"delivered"`
				Error     string `json:"error"`
			}
			_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if err := c.ReadJSON(&res); err != nil {
				return r, err
			}
			if res.Type == "error" || res.Error != "" {
				return r, fmt.Errorf("post %d: %s", i, res.Error)
			}
			if res.Type != "post_result" {
				continue // a post of someone else, pushed
			}
			if !res.Delivered {
				return r, fmt.Errorf("post %d refused", i)
			}
			seen = res.MessageID
			break
		}
		r.lat = append(r.lat, time.Since(t0))
	}
	slices.Sort(r.lat)
	r.last = seen
	return r, nil
}

func cmpErr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// latestID is the last non-empty id of ids.
func latestID(ids []string) string {
	for i := len(ids) - 1; i >= 0; i-- {
		if ids[i] != "" {
			return ids[i]
		}
	}
	return ""
}

var lastSeenRe = regexp.MustCompile(`last_seen "([^"]+)"`)

// say calls say_to_room. It returns the delivered message id, or for a
// refusal the newest missed id.
func say(ctx context.Context, c *client.Client, content, lastSeen string) (id, refusedNewest string, err error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = "say_to_room"
	args := map[string]any{}
	if content != "" {
		args["content"] = content
	}
	if lastSeen != "" {
		args["last_seen"] = lastSeen
	}
	req.Params.Arguments = args
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return "", "", err
	}
	text := ""
	for _, ct := range res.Content {
		if tc, ok := ct.(mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if res.IsError {
		if m := lastSeenRe.FindStringSubmatch(text); m != nil {
			return "", m[1], nil
		}
		return "", "", fmt.Errorf("say_to_room: %s", text)
	}
	const prefix = "Delivered to the room. message_id: "
	if !strings.HasPrefix(text, prefix) || len(strings.Fields(strings.TrimPrefix(text, prefix))) == 0 {
		return "", "", fmt.Errorf("say_to_room: unexpected answer %q", text)
	}
	// The id is the first word: the sidecar adds the seat's own block
	// (name, time, usage) below every answer.
	id = strings.Fields(strings.TrimPrefix(text, prefix))[0]
	return id, "", nil
}

// goBench runs `go test -run XXX -bench pattern` on pkg in the repository
// and returns the metrics of its result lines by unit ("ns/op", "p50-µs"…;
// a unit reported twice keeps the last).
func goBench(pkg, pattern string, extra ...string) (map[string]float64, error) {
	args := append([]string{"test", "-run", "XXX", "-bench", pattern}, extra...)
	args = append(append(args, scale.benchtime...), pkg) // the last -benchtime counts
	cmd := exec.Command("go", args...)
	cmd.Dir = opts.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	m := map[string]float64{}
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "Benchmark") {
			continue
		}
		fmt.Printf("  | %s\n", strings.TrimSpace(l))
		f := strings.Fields(l)
		name := strings.TrimPrefix(f[0], "Benchmark")
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			m[f[i+1]] = v
			m[name+" "+f[i+1]] = v
		}
	}
	return m, nil
}
