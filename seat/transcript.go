package seat

// Where each kind's CLI keeps its conversations, and the questions asked of
// those files: does the conversation of this id exist (the third condition
// of a resume, spec 003 "再開の線は、その会話が実在するときだけ選ぶ"), and
// which session did a Codex launch just start. The dependency on the CLIs'
// storage is accepted (decision 3 of #131) and closed in this one file. Only
// a file's existence, name, size and (for Codex) its first line are read,
// never the conversation.
//
//   - Claude Code: CONFIG/projects/<slug>/<id>.jsonl, CONFIG being
//     $CLAUDE_CONFIG_DIR or ~/.claude, slug the cwd (after symlinks) with
//     every UTF-16 unit that is not an ASCII letter or digit replaced by '-';
//     a slug over 200 units is cut to 200 and suffixed with '-' and a hash.
//     This is the rule of the Claude Code 2.1.197 source, which also counts
//     an empty file as no conversation.
//   - Codex: CODEX_HOME/sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl,
//     CODEX_HOME defaulting to ~/.codex. Its first line is the session_meta
//     record: payload.id, payload.cwd, payload.timestamp (when the thread was
//     made). Codex 0.171.0 chooses the id itself; the TUI creates the thread
//     at start but writes the rollout only at the first turn (the exec mode
//     at once), and ~/.codex/session_index.jsonl gets a line only once the
//     thread has a name, so the rollout is what the capture watches.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
)

// claudeSlugMax is the longest slug Claude Code uses as it is.
const claudeSlugMax = 200

// ClaudeProjectSlug is the folder name Claude Code gives a working
// directory: every UTF-16 code unit that is not an ASCII letter or digit
// becomes '-' (so "/tmp/work.x" is "-tmp-work-x" and a character outside the
// BMP gives two), and a slug longer than 200 is cut there and suffixed with
// '-' and a base-36 hash of the path.
func ClaudeProjectSlug(path string) string {
	units := utf16.Encode([]rune(path))
	b := make([]byte, len(units))
	for i, u := range units {
		if u < 0x80 && (u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9') {
			b[i] = byte(u)
		} else {
			b[i] = '-'
		}
	}
	if len(b) <= claudeSlugMax {
		return string(b)
	}
	return string(b[:claudeSlugMax]) + "-" + strconv.FormatInt(claudePathHash(units), 36)
}

// claudePathHash is Claude Code's string hash (h = h*31 + unit in 32-bit
// arithmetic), made non-negative.
func claudePathHash(units []uint16) int64 {
	var h int32
	for _, u := range units {
		h = (h << 5) - h + int32(u)
	}
	v := int64(h)
	if v < 0 {
		v = -v
	}
	return v
}

// ClaudeTranscriptPath is where Claude Code writes the transcript of session
// id started in cwd, configDir being $CLAUDE_CONFIG_DIR or ~/.claude.
func ClaudeTranscriptPath(configDir, cwd, id string) string {
	return filepath.Join(configDir, "projects", ClaudeProjectSlug(cwd), id+".jsonl")
}

// FindClaudeTranscript looks for the transcript of session id for cwd, as
// Claude Code does on --resume: under the slug of cwd and of its real path
// (Claude resolves symlinks), and for a long slug in any folder with the
// same 200-unit prefix. Only a non-empty regular file counts.
func FindClaudeTranscript(configDir, cwd, id string) (string, bool) {
	if !safeID(id) || configDir == "" {
		return "", false
	}
	dirs := []string{cwd}
	if real, err := filepath.EvalSymlinks(cwd); err == nil && real != cwd {
		dirs = append([]string{real}, dirs...)
	}
	projects := filepath.Join(configDir, "projects")
	for _, d := range dirs {
		p := ClaudeTranscriptPath(configDir, d, id)
		if nonEmptyFile(p) {
			return p, true
		}
		slug := ClaudeProjectSlug(d)
		if len(slug) <= claudeSlugMax {
			continue
		}
		prefix := slug[:claudeSlugMax] + "-"
		entries, _ := os.ReadDir(projects)
		for _, e := range entries {
			if e.IsDir() && strings.HasPrefix(e.Name(), prefix) {
				if p := filepath.Join(projects, e.Name(), id+".jsonl"); nonEmptyFile(p) {
					return p, true
				}
			}
		}
	}
	return "", false
}

func nonEmptyFile(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.Mode().IsRegular() && info.Size() > 0
}

// safeID reports whether id can be part of a file name: letters, digits,
// '-' and '_' only.
func safeID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// codexRolloutPrefix and codexRolloutSuffix frame a rollout file's name.
const (
	codexRolloutPrefix = "rollout-"
	codexRolloutSuffix = ".jsonl"
	uuidLen            = 36
)

// CodexRolloutID is the session id in a rollout file's name
// ("rollout-2026-11-30T23-30-38-<uuid>.jsonl").
func CodexRolloutID(name string) (string, bool) {
	if !strings.HasPrefix(name, codexRolloutPrefix) || !strings.HasSuffix(name, codexRolloutSuffix) {
		return "", false
	}
	rest := strings.TrimSuffix(name, codexRolloutSuffix)
	if len(rest) < len(codexRolloutPrefix)+uuidLen+1 {
		return "", false
	}
	id := rest[len(rest)-uuidLen:]
	if rest[len(rest)-uuidLen-1] != '-' || !isUUID(id) {
		return "", false
	}
	return id, true
}

// isUUID checks the 8-4-4-4-12 hex form.
func isUUID(s string) bool {
	if len(s) != uuidLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// uuidV7Time is the creation time in a version 7 UUID.
func uuidV7Time(id string) (time.Time, bool) {
	if !isUUID(id) || id[14] != '7' {
		return time.Time{}, false
	}
	ms, err := strconv.ParseInt(id[0:8]+id[9:13], 16, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(ms), true
}

// codexDayDirs are the sessions/YYYY/MM/DD folders of the local dates from
// the day before from to the day after to.
func codexDayDirs(codexHome string, from, to time.Time) []string {
	var dirs []string
	seen := map[string]bool{}
	start := time.Date(from.Year(), from.Month(), from.Day(), 0, 0, 0, 0, time.Local).AddDate(0, 0, -1)
	end := to.AddDate(0, 0, 1)
	for d := start; !d.After(end); d = d.AddDate(0, 0, 1) {
		p := filepath.Join(codexHome, "sessions", d.Format("2006"), d.Format("01"), d.Format("02"))
		if !seen[p] {
			seen[p] = true
			dirs = append(dirs, p)
		}
	}
	return dirs
}

// FindCodexRollout finds the rollout file of session id under codexHome
// ($CODEX_HOME or ~/.codex): first in the date folders the id's own time
// points to (Codex ids are UUID v7), then anywhere in the sessions tree.
// ok is false when there is none; err reports a tree that could not be read.
func FindCodexRollout(codexHome, id string) (path string, ok bool, err error) {
	if !isUUID(id) || codexHome == "" {
		return "", false, nil
	}
	suffix := "-" + strings.ToLower(id) + codexRolloutSuffix
	match := func(name string) bool {
		return strings.HasPrefix(name, codexRolloutPrefix) && strings.HasSuffix(strings.ToLower(name), suffix)
	}
	if t, v7 := uuidV7Time(id); v7 {
		for _, d := range codexDayDirs(codexHome, t, t) {
			entries, _ := os.ReadDir(d)
			for _, e := range entries {
				if match(e.Name()) && e.Type().IsRegular() {
					return filepath.Join(d, e.Name()), true, nil
				}
			}
		}
	}
	root := filepath.Join(codexHome, "sessions")
	werr := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root && errors.Is(err, fs.ErrNotExist) {
				return fs.SkipAll
			}
			return nil // an unreadable folder is skipped
		}
		if !d.IsDir() && d.Type().IsRegular() && match(d.Name()) {
			path, ok = p, true
			return fs.SkipAll
		}
		return nil
	})
	if werr != nil {
		return "", false, fmt.Errorf("codex sessions %s: %w", root, werr)
	}
	return path, ok, nil
}

// CodexSessionMeta is the first line of a rollout file.
type CodexSessionMeta struct {
	ID  string
	Cwd string
	// Created is when the thread was made (payload.timestamp).
	Created    time.Time
	Originator string
}

// errIncomplete reports a rollout whose first line is not all written yet.
var errIncomplete = errors.New("first line incomplete")

// maxMetaBytes bounds the first line read (it carries the base
// instructions, some tens of KiB).
const maxMetaBytes = 8 << 20

// ReadCodexSessionMeta reads the session_meta record on the first line of a
// rollout file, and nothing after it.
func ReadCodexSessionMeta(path string) (CodexSessionMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return CodexSessionMeta{}, err
	}
	defer f.Close()
	var line struct {
		Type    string `json:"type"`
		Payload struct {
			ID         string `json:"id"`
			SessionID  string `json:"session_id"`
			Cwd        string `json:"cwd"`
			Timestamp  string `json:"timestamp"`
			Originator string `json:"originator"`
		} `json:"payload"`
	}
	if err := json.NewDecoder(io.LimitReader(f, maxMetaBytes)).Decode(&line); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return CodexSessionMeta{}, fmt.Errorf("%s: %w", path, errIncomplete)
		}
		return CodexSessionMeta{}, fmt.Errorf("%s: first line: %w", path, err)
	}
	if line.Type != "session_meta" {
		return CodexSessionMeta{}, fmt.Errorf("%s: first line is %q, not session_meta", path, line.Type)
	}
	m := CodexSessionMeta{ID: line.Payload.ID, Cwd: line.Payload.Cwd, Originator: line.Payload.Originator}
	if m.ID == "" {
		m.ID = line.Payload.SessionID
	}
	if t, err := time.Parse(time.RFC3339Nano, line.Payload.Timestamp); err == nil {
		m.Created = t
	}
	return m, nil
}

// codexClockSlack allows for the thread's timestamp and the launch time
// being read from clocks of different precision.
const codexClockSlack = 2 * time.Second

// codexScan finds, across calls, the rollout a Codex launch wrote. It
// remembers files already judged.
type codexScan struct {
	home, cwd string
	since     time.Time
	judged    map[string]bool // path -> was a match candidate (only final verdicts)
	metas     map[string]CodexSessionMeta
}

func newCodexScan(codexHome, cwd string, since time.Time) *codexScan {
	return &codexScan{home: codexHome, cwd: cwd, since: since, judged: map[string]bool{}, metas: map[string]CodexSessionMeta{}}
}

// find returns the id of the earliest thread made since the launch in the
// seat's folder whose rollout exists and that taken does not claim.
func (s *codexScan) find(now time.Time, taken func(string) bool) (string, bool) {
	var best CodexSessionMeta
	dirs := codexDayDirs(s.home, s.since, s.since)
	dirs = append(dirs, codexDayDirs(s.home, now, now)...)
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			continue
		}
		seen[d] = true
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			id, ok := CodexRolloutID(e.Name())
			if !ok || !e.Type().IsRegular() || (taken != nil && taken(id)) {
				continue
			}
			p := filepath.Join(d, e.Name())
			match, judged := s.judged[p]
			if !judged {
				m, err := ReadCodexSessionMeta(p)
				if errors.Is(err, errIncomplete) {
					continue // look again next time
				}
				match = err == nil && samePath(m.Cwd, s.cwd) && !m.Created.Before(s.since.Add(-codexClockSlack))
				s.judged[p] = match
				if match {
					s.metas[p] = m
				}
			}
			if !match {
				continue
			}
			m := s.metas[p]
			if best.ID == "" || m.Created.Before(best.Created) {
				best = m
			}
		}
	}
	return best.ID, best.ID != ""
}

// FindCodexSession looks once for the session a Codex launch started: a
// rollout under codexHome made at or after since (the launch time) whose
// session_meta cwd is cwd, and whose id taken (ids other seats hold) does
// not claim. With several, the earliest made wins.
func FindCodexSession(codexHome, cwd string, since time.Time, taken func(string) bool) (string, bool) {
	return newCodexScan(codexHome, cwd, since).find(time.Now(), taken)
}

// CodexPollInterval is how often WatchSessionID looks for the rollout.
var CodexPollInterval = 250 * time.Millisecond

// ErrNoSessionID reports a launch that has no session id and whose CLI does
// not choose one either.
var ErrNoSessionID = errors.New("launch hands out no session id")

// WatchSessionID returns the launch's session id. A launch that has one
// returns it at once. For a CLI that chooses its own (Codex) it waits until
// the conversation's file appears — for the Codex TUI that is at the first
// turn, which may be long after the start — and returns its id; started is
// when the process was started, taken reports ids other running seats
// already hold (nil: none; it is called from the watching goroutine). When
// ctx ends (cancel it when the process exits) it looks one last time, so a
// CLI that quit right after its first turn is not missed, and otherwise
// returns ctx's error.
func (l Launch) WatchSessionID(ctx context.Context, started time.Time, taken func(string) bool) (string, error) {
	if l.SessionID != "" {
		return l.SessionID, nil
	}
	if !l.CaptureID || l.TranscriptRoot == "" {
		return "", ErrNoSessionID
	}
	scan := newCodexScan(l.TranscriptRoot, l.Dir, started)
	tick := time.NewTicker(CodexPollInterval)
	defer tick.Stop()
	for {
		if id, ok := scan.find(time.Now(), taken); ok {
			return id, nil
		}
		select {
		case <-ctx.Done():
			if id, ok := scan.find(time.Now(), taken); ok {
				return id, nil
			}
			return "", ctx.Err()
		case <-tick.C:
		}
	}
}

// samePath reports whether a and b name the same folder, as written or
// after symlinks.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
