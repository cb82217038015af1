package server

// config.json's "push_url" (issue 37 point 7, off by default): each new
// needs-you item is POSTed there as one short line — its kind, the seat
// and the topic's id, never a command or a post's text (a topic's name is
// its first post's start, so it stays too) — with the page's address (no
// token) when the page is open, e.g. to an ntfy topic.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"pullcept/app"
	"pullcept/room/wire"
)

// push posts new needs-you items to url until ctx ends.
func (s *Server) push(ctx context.Context, url string) {
	sub := s.a.Subscribe()
	defer sub.Close()
	sent := map[string]bool{} // items already pushed: a change is not news
	client := &http.Client{Timeout: 10 * time.Second}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-sub.C:
			if !ok {
				return
			}
			if ev.Kind != app.EventNeedsList {
				continue
			}
			it := ev.List.Item
			if ev.List.Gone {
				delete(sent, it.ID)
				continue
			}
			if sent[it.ID] {
				continue
			}
			sent[it.ID] = true
			s.pushOne(ctx, client, url, s.pushLine(it))
		}
	}
}

// pushLine is what leaves the machine: the kind, the seat (or speaker)
// and the end of the topic's id (the random part of a UUIDv7).
func (s *Server) pushLine(it app.NeedItem) string {
	topic := it.Topic
	if len(topic) > 8 {
		topic = topic[len(topic)-8:]
	}
	who := it.Name
	if who == "" {
		who = it.Account
	}
	return wire.OneLine(fmt.Sprintf("pullcept needs you: %s · %s · topic …%s", it.Kind, who, topic))
}

func (s *Server) pushOne(ctx context.Context, client *http.Client, url, line string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(line))
	if err != nil {
		return // checked when config.json was read
	}
	req.Header.Set("Content-Type", "text/plain; charset=utf-8")
	s.mu.Lock()
	if s.web != nil {
		req.Header.Set("Click", s.web.Address()) // ntfy's link; the token stays on the machine
	}
	s.mu.Unlock()
	res, err := client.Do(req)
	if err != nil {
		// The address may hold a secret (an ntfy topic): not logged.
		s.log.Warn("push_url: the POST failed", "err", "no answer")
		return
	}
	res.Body.Close()
	if res.StatusCode >= 300 {
		s.log.Warn("push_url: the POST was refused", "status", res.StatusCode)
	}
}
