package socket

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"pullcept/room/wire"
)

// BenchmarkDeliver8 measures delivered posts/s with 8 connections posting
// concurrently over the socket (each resending after a floor refusal), with
// the real topic store appending to disk.
func BenchmarkDeliver8(b *testing.B) {
	v := newEnv(b)
	const conns = 8
	cs := make([]*websocket.Conn, conns)
	for i := range cs {
		cs[i] = v.join(b, fmt.Sprint("a", i), v.topic)
	}
	per := b.N/conns + 1
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			seen := ""
			for n := 0; n < per; {
				id := fmt.Sprintf("%d-%d", i, n)
				c.WriteJSON(wire.PostFrame{Type: wire.TypePost, MessageID: id, Content: "benchmark post " + id, LastSeen: seen})
				var pr wire.PostResult
				if err := c.ReadJSON(&pr); err != nil {
					b.Error(err)
					return
				}
				if pr.Delivered {
					seen, n = id, n+1
				} else if len(pr.Missed) > 0 {
					seen = pr.Missed[len(pr.Missed)-1].MessageID
				}
			}
		}()
	}
	wg.Wait()
	el := time.Since(start)
	b.ReportMetric(float64(per*conns)/el.Seconds(), "posts/s")
}

// BenchmarkRoundTrip measures a say_to_room-style round trip (post frame
// out, post_result back) for one connection: p50 and p99.
func BenchmarkRoundTrip(b *testing.B) {
	v := newEnv(b)
	c := v.join(b, "solo", v.topic)
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		c.WriteJSON(wire.PostFrame{Type: wire.TypePost, MessageID: fmt.Sprint("r", i), Content: "ping"})
		var pr wire.PostResult
		if err := c.ReadJSON(&pr); err != nil || !pr.Delivered {
			b.Fatalf("%v %+v", err, pr)
		}
		lat = append(lat, time.Since(t0))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
