package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

const topicRuns = 30

// benchTopic: the last 50 posts of a 1,000,000-post topic, as a whole
// process: `pullcept topics show ID --tail 50 --json` vs `tail -n 50` of the
// same file; 30 runs of each (after one unmeasured run warming the page
// cache), medians. The topic is made by `pullcept serve` (one post, so the
// index and the file are the app's own), then grown to 1,000,000 lines in
// the same line format. Also prints the in-process figure of
// `go test -bench . ./topicstore/`.
func benchTopic() error {
	home, err := tempHome("topic", nil)
	if err != nil {
		return err
	}
	s, err := startServe(home)
	if err != nil {
		return err
	}
	topic := s.Ready.Topic
	if _, err := s.Call(map[string]any{"cmd": "post", "topic": topic, "content": "the first post of a long topic"}); err != nil {
		return err
	}
	s.Close()
	file := filepath.Join(home, "logs", "main", topic+".jsonl")
	size, err := growTopic(file, scale.topicPosts)
	if err != nil {
		return err
	}
	fmt.Printf("  topic %s: %d posts, %.0f MiB\n", topic, scale.topicPosts, float64(size)/(1<<20))

	show := exec.Command(opts.bin, "topics", "show", topic, "--tail", "50", "--json")
	show.Env = append(os.Environ(), "PULLCEPT_HOME="+home)
	pc, err := timeRuns(show, func(out []byte) error {
		var v struct {
			Posts []json.RawMessage `json:"posts"`
		}
		if err := json.Unmarshal(out, &v); err != nil {
			return err
		}
		if len(v.Posts) != 50 {
			return fmt.Errorf("%d posts, want 50", len(v.Posts))
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pullcept topics show: %w", err)
	}
	tail := exec.Command("tail", "-n", "50", file)
	ref, err := timeRuns(tail, func(out []byte) error {
		if n := bytes.Count(out, []byte("\n")); n != 50 {
			return fmt.Errorf("%d lines, want 50", n)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("tail: %w", err)
	}
	help, err := timeRuns(exec.Command(opts.bin, "help"), func(out []byte) error {
		if len(out) == 0 {
			return fmt.Errorf("no usage text")
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("pullcept help: %w", err)
	}
	pm, rm := median(pc), median(ref)
	fmt.Printf("  pullcept topics show --tail 50 --json: median %s, min %s (%d runs)\n", fmtDur(pm), fmtDur(slices.Min(pc)), len(pc))
	fmt.Printf("  tail -n 50:                            median %s, min %s (%d runs)\n", fmtDur(rm), fmtDur(slices.Min(ref)), len(ref))
	fmt.Printf("  pullcept help (start-up alone):        median %s, min %s (%d runs)\n", fmtDur(median(help)), fmtDur(slices.Min(help)), len(help))
	record("topic", fmt.Sprintf("last 50 posts of %s, whole process", thousands(scale.topicPosts)), fmtDur(pm), fmtDur(rm), ratio(pm.Seconds(), rm.Seconds()))
	record("topic", "  of which: start-up alone (pullcept help)", fmtDur(median(help)), fmtDur(rm)+" (tail)", ratio(median(help).Seconds(), rm.Seconds()))

	m, err := goBench("./topicstore/", ".")
	if err != nil {
		return err
	}
	lp, tn := time.Duration(m["LastPage ns/op"]), time.Duration(m["TailN50 ns/op"])
	record("topic", "same, in process (go test -bench . ./topicstore/)", fmtDur(lp), fmtDur(tn)+" (tail)", ratio(lp.Seconds(), tn.Seconds()))
	return nil
}

// growTopic appends posts to the topic file, in the app's line format,
// until it holds n lines, and returns its size.
func growTopic(file string, n int) (int64, error) {
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return 0, err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	base := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	speakers := []string{"alice", "claude", "codex", "bob"}
	type line struct {
		MessageID string `json:"message_id"`
		Speaker   string `json:"speaker"`
		Account   string `json:"account,omitempty"`
		Content   string `json:"content"`
		TS        string `json:"ts"`
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := 1; i < n; i++ {
		sp := speakers[i%len(speakers)]
		l := line{
			MessageID: fmt.Sprintf("0193bench-%08d", i),
			Speaker:   sp,
			Account:   sp,
			Content:   fmt.Sprintf("post number %d: a sentence or two of ordinary chat, about the length people type", i),
			TS:        base.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano),
		}
		if err := enc.Encode(l); err != nil {
			f.Close()
			return 0, err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	st, err := os.Stat(file)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// timeRuns runs cmd (a template: copied each run) once unmeasured, then
// topicRuns times, checking each output, and returns the wall times.
func timeRuns(cmd *exec.Cmd, check func([]byte) error) ([]time.Duration, error) {
	var ds []time.Duration
	for i := range topicRuns + 1 {
		c := exec.Command(cmd.Path, cmd.Args[1:]...)
		c.Env = cmd.Env
		t0 := time.Now()
		out, err := c.Output()
		d := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if err := check(out); err != nil {
			return nil, err
		}
		if i > 0 {
			ds = append(ds, d)
		}
	}
	return ds, nil
}
