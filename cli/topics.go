package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"pullcept/room"
	"pullcept/room/wire"
	"pullcept/topicstore"
)

// listTopics prints the store's topics, newest first. Names are shown
// through wire.OneLine: a name can hold no escape sequence for the screen.
func listTopics(store *topicstore.Store, asJSON bool, w io.Writer) error {
	ts, err := store.List()
	if err != nil {
		return err
	}
	if asJSON {
		out := make([]map[string]any, 0, len(ts))
		for _, t := range ts {
			m := map[string]any{"id": t.ID, "has_posts": t.HasPosts}
			if t.Name != "" {
				m["name"] = t.Name
			}
			if !t.Created.IsZero() {
				m["created"] = t.Created.UTC().Format(time.RFC3339)
			}
			if t.Missing {
				m["missing"] = true
			}
			if len(t.Sessions) > 0 {
				m["sessions"] = t.Sessions
			}
			out = append(out, m)
		}
		return writeJSON(w, out)
	}
	if len(ts) == 0 {
		fmt.Fprintln(w, "no topics yet")
		return nil
	}
	for _, t := range ts {
		name := wire.OneLine(t.Name)
		if name == "" {
			name = "(untitled)"
		}
		note := ""
		if t.Missing {
			note = "  [log file missing]"
		}
		created := ""
		if !t.Created.IsZero() {
			created = t.Created.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(w, "%s  %-16s  %s%s\n", t.ID, created, name, note)
	}
	return nil
}

// showTopic prints a topic's posts (all, or the last tail).
func showTopic(store *topicstore.Store, id string, tail int, asJSON bool, w io.Writer) error {
	if _, err := store.Get(id); err != nil {
		return err
	}
	var posts []topicstore.Post
	var skipped int
	if tail > 0 {
		page, err := store.Page(id, tail, "")
		if err != nil {
			return err
		}
		posts, skipped = page.Posts, page.Skipped
	} else {
		var err error
		if posts, skipped, err = store.ReadAll(id); err != nil {
			return err
		}
	}
	if asJSON {
		out := make([]wire.Post, len(posts))
		for i, p := range posts {
			out[i] = room.FromLogPost(p)
		}
		return writeJSON(w, map[string]any{"topic": id, "posts": out, "skipped": skipped})
	}
	for _, p := range posts {
		when := p.TS
		if t, err := time.Parse(time.RFC3339Nano, p.TS); err == nil {
			when = t.Local().Format("2006-01-02 15:04")
		}
		to := ""
		if len(p.To) > 0 {
			to = " → " + wire.OneLine(strings.Join(p.To, ", "))
		}
		fmt.Fprintf(w, "%s  %s%s\n", when, wire.OneLine(p.Speaker), to)
		for _, l := range strings.Split(wire.Visible(p.Content), "\n") {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
	if skipped > 0 {
		fmt.Fprintf(w, "(%d unreadable lines skipped)\n", skipped)
	}
	return nil
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
