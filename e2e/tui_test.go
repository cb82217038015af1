package e2e

// The terminal UI end to end (issue 5): the real pullcept binary in tmux on
// a private socket, a cli account running the scripted CLI
// (seat/testdata/scriptcli) that answers every tagged post through the
// sidecar, driven with send-keys and read with capture-pane.

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"pullcept/room/wire"
)

// tuiWait bounds every wait of the TUI test.
const tuiWait = 15 * time.Second

// tuiRun is pullcept running in a private tmux server.
type tuiRun struct {
	t      *testing.T
	socket string
	record string
	last   string // the last screen read
	// status is the file the shell around pullcept writes its exit status
	// to (startTUI).
	status string
}

// exitStatus is pullcept's exit status once it has ended ("" before).
func (r *tuiRun) exitStatus() string {
	data, _ := os.ReadFile(r.status)
	if !strings.HasSuffix(string(data), "\n") {
		return ""
	}
	return strings.TrimSpace(string(data))
}

func (r *tuiRun) tmuxCmd(args ...string) *exec.Cmd {
	return exec.Command("tmux", append([]string{"-L", r.socket, "-f", "/dev/null"}, args...)...)
}

func (r *tuiRun) tmux(args ...string) string {
	r.t.Helper()
	out, err := r.tmuxCmd(args...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("tmux %q: %v: %s", args, err, out)
	}
	return string(out)
}

func (r *tuiRun) screen() string {
	r.t.Helper()
	r.last = r.tmux("capture-pane", "-p")
	return r.last
}

// keys sends tmux key names ("C-b", "Enter", "j").
func (r *tuiRun) keys(keys ...string) {
	r.t.Helper()
	r.tmux(append([]string{"send-keys"}, keys...)...)
}

// text types s literally.
func (r *tuiRun) text(s string) {
	r.t.Helper()
	r.tmux("send-keys", "-l", s)
}

// prefix sends the prefix key, then key.
func (r *tuiRun) prefix(key string) {
	r.t.Helper()
	r.keys("C-b")
	r.keys(key)
}

// waitFor polls the screen until ok holds.
func (r *tuiRun) waitFor(what string, ok func(scr string) bool) string {
	r.t.Helper()
	deadline := time.Now().Add(tuiWait)
	for {
		scr := r.screen()
		if ok(scr) {
			return scr
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (r *tuiRun) waitText(texts ...string) string {
	r.t.Helper()
	return r.waitFor(fmt.Sprintf("%q on the screen", texts), func(scr string) bool {
		for _, s := range texts {
			if !strings.Contains(scr, s) {
				return false
			}
		}
		return true
	})
}

// until polls cond (not the screen) until it holds.
func (r *tuiRun) until(what string, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(tuiWait)
	for !cond() {
		if time.Now().After(deadline) {
			r.screen()
			r.t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

// tuiRecord is what the scripted CLI recorded: its pid and arguments, the
// bytes it read, and its lines.
type tuiRecord struct {
	pid   int
	args  []string
	input []byte
	lines []string // "kind rest", without the time
}

func (r *tuiRun) readRecord() tuiRecord {
	r.t.Helper()
	var rec tuiRecord
	data, err := os.ReadFile(r.record)
	if errors.Is(err, os.ErrNotExist) {
		return rec
	}
	if err != nil {
		r.t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if !strings.HasSuffix(line, "\n") {
			break // torn: read again later
		}
		_, rest, _ := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
		rec.lines = append(rec.lines, rest)
		kind, val, _ := strings.Cut(rest, " ")
		switch kind {
		case "in":
			b, err := hex.DecodeString(val)
			if err != nil {
				r.t.Fatalf("record line %q", line)
			}
			rec.input = append(rec.input, b...)
		case "pid": // pid N args ["..."]
			n, args, _ := strings.Cut(val, " args ")
			rec.pid, _ = strconv.Atoi(n)
			rec.args = goQuotedList(args)
		}
	}
	return rec
}

// goQuotedList reads fmt's %q of a []string: ["a" "b"].
func goQuotedList(s string) []string {
	var out []string
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	for s != "" {
		q, err := strconv.QuotedPrefix(s)
		if err != nil {
			return out
		}
		v, _ := strconv.Unquote(q)
		out = append(out, v)
		s = strings.TrimPrefix(s[len(q):], " ")
	}
	return out
}

func (rec tuiRecord) has(line string) bool {
	for _, l := range rec.lines {
		if strings.HasPrefix(l, line) {
			return true
		}
	}
	return false
}

// column finds the panel whose first row holds title: the columns between
// the separators around it.
func column(scr, title string) (x0, x1 int, ok bool) {
	head, _, _ := strings.Cut(scr, "\n")
	i := strings.Index(head, title)
	if i < 0 {
		return 0, 0, false
	}
	if j := strings.LastIndex(head[:i], "│"); j >= 0 {
		x0 = ansi.StringWidth(head[:j]) + 1
	}
	x1 = ansi.StringWidth(head)
	if j := strings.Index(head[i:], "│"); j >= 0 {
		x1 = ansi.StringWidth(head[:i+j])
	}
	return x0, x1, true
}

// panel is the rows under the header of the panel titled title, trimmed
// on the right, down to the status line (where the separator on the
// panel's right ends); nil when no panel has that title.
func panel(scr, title string) (rows []string, width int) {
	x0, x1, ok := column(scr, title)
	if !ok {
		return nil, 0
	}
	for _, row := range strings.Split(scr, "\n")[1:] {
		if ansi.Cut(row, x1, x1+1) != "│" {
			break
		}
		rows = append(rows, strings.TrimRight(ansi.Cut(row, x0, x1), " "))
	}
	return rows, x1 - x0
}

// paneText is the text of the terminal pane titled title, its wrapped rows
// joined again.
func paneText(scr, title string) string {
	rows, w := panel(scr, title)
	var b strings.Builder
	for _, row := range rows {
		b.WriteString(row)
		if ansi.StringWidth(row) < w {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// roomText is the room panel's rows, without trailing empty ones.
func roomText(scr string) string {
	rows, _ := panel(scr, "Room · ")
	return strings.TrimRight(strings.Join(rows, "\n"), "\n")
}

// topicRows is the topic list, one entry per row.
func topicRows(scr string) []string {
	rows, _ := panel(scr, "Topics")
	var out []string
	for _, row := range rows {
		if row != "" {
			out = append(out, row)
		}
	}
	return out
}

func topicRow(scr, name string) (int, string) {
	for i, row := range topicRows(scr) {
		if strings.Contains(row, name) {
			return i, row
		}
	}
	return -1, ""
}

// processAlive reports whether pid is a process that has not been reaped.
func processAlive(pid int) bool {
	return pid > 0 && syscall.Kill(pid, 0) == nil
}

// sidecarsOf lists the running `pullcept sidecar` processes of topic
// (Linux /proc; nil where there is none).
func sidecarsOf(topic string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		args := strings.Split(string(cmd), "\x00")
		if len(args) < 2 || filepath.Base(args[0]) != "pullcept" || args[1] != "sidecar" {
			continue
		}
		env, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		for _, kv := range strings.Split(string(env), "\x00") {
			if kv == "PULLCEPT_ROOM_ID="+topic {
				out = append(out, pid)
			}
		}
	}
	return out
}

// childrenOf lists the processes whose parent is pid (Linux /proc).
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
			if f := strings.Fields(string(stat[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(pid) {
				out = append(out, n)
			}
		}
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// TestTUISeatExchangeTopicsDeleteQuit drives the real binary: start a cli
// seat from the participants panel, address it, see the tagged input in its
// terminal pane and its answer in the room, switch topics and back, delete
// the topic with the seat running, quit.
func TestTUISeatExchangeTopicsDeleteQuit(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		required(t, "tmux is not installed: the TUI test drives pullcept in tmux")
	}
	start := time.Now()
	dir := t.TempDir()
	cli := filepath.Join(dir, "scriptcli")
	build := exec.Command("go", "build", "-o", cli, "./seat/testdata/scriptcli")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build scriptcli: %v\n%s", err, out)
	}
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	record := filepath.Join(dir, "record")
	cfg := map[string]any{"accounts": []map[string]any{{
		"id": "bot", "name": "Bot", "kind": "cli",
		// The command names the registration file too, to check the
		// placeholder; scriptcli reads $PULLCEPT_MCP_CONFIG.
		"command": strconv.Quote(cli) + " {mcp_config}",
		"env":     map[string]string{"SCRIPTCLI_RECORD": record, "SCRIPTCLI_MCP_AT_START": "1"},
	}}}
	data, _ := json.Marshal(cfg)
	if err := os.WriteFile(filepath.Join(home, "config.json"), data, 0o600); err != nil {
		t.Fatal(err)
	}

	// The binary is built with -race: its reports (and its sidecars') go to
	// files, not onto the screen, and fail the test.
	race := filepath.Join(dir, "race")
	raceReports := func() string {
		files, _ := filepath.Glob(race + ".*")
		var b strings.Builder
		for _, f := range files {
			data, _ := os.ReadFile(f)
			fmt.Fprintf(&b, "%s:\n%s\n", f, data)
		}
		return b.String()
	}

	// Its stderr (a panic, a goroutine dump) goes to a file, not onto the
	// screen, and the shell around it writes its exit status to another
	// (tmux 3.3's pane_dead_status is sometimes left empty).
	stderr := filepath.Join(dir, "stderr")
	status := filepath.Join(dir, "status")

	r := &tuiRun{t: t, socket: fmt.Sprintf("pullcept-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), record: record}
	// remain-on-exit keeps the last screen for a failure's report.
	r.tmux("start-server", ";", "set-option", "-g", "remain-on-exit", "on", ";",
		"new-session", "-d", "-x", "160", "-y", "45",
		"-e", "PULLCEPT_HOME="+home, "-e", "PULLCEPT_NAME=Master", "-e", "PULLCEPT_PREFIX=ctrl+b",
		"-e", "GORACE=log_path="+race,
		shellQuote(pullceptBin)+" 2>"+shellQuote(stderr)+"; echo $? >"+shellQuote(status))
	t.Cleanup(func() {
		if t.Failed() {
			if out, err := r.tmuxCmd("capture-pane", "-p").CombinedOutput(); err == nil {
				r.last = string(out)
			}
			t.Logf("screen (capture-pane):\n%s", r.last)
			log, _ := os.ReadFile(filepath.Join(home, "state", "pullcept.log"))
			t.Logf("pullcept.log:\n%s", log)
			rec, _ := os.ReadFile(record)
			t.Logf("scriptcli record:\n%s", rec)
			if out, err := r.tmuxCmd("display-message", "-p", "#{pane_pid}").Output(); err == nil && !fileExists(status) {
				// Still running: have it dump its goroutines.
				sh, _ := strconv.Atoi(strings.TrimSpace(string(out)))
				for _, pid := range childrenOf(sh) {
					if syscall.Kill(pid, syscall.SIGQUIT) == nil {
						for deadline := time.Now().Add(tuiWait); !fileExists(status) && time.Now().Before(deadline); {
							time.Sleep(25 * time.Millisecond) // the dump written
						}
					}
				}
			}
			errs, _ := os.ReadFile(stderr)
			t.Logf("pullcept's stderr:\n%s", errs)
		}
		endServer(t, home, nil)
		_ = r.tmuxCmd("kill-server").Run()
		if reports := raceReports(); reports != "" {
			t.Errorf("the race detector reported:\n%s", reports)
		}
	})

	r.waitText("say something to the room", "Participants", "Bot")

	// Start Bot's seat from the participants panel (Master, then Bot).
	r.prefix("a")
	r.keys("j")
	r.keys("s")
	r.waitText("Bot · cli · running", "scriptcli READY")
	// Its sidecar is seated: the participant shows in the room.
	r.waitFor("Bot in the room", func(scr string) bool {
		return regexp.MustCompile(`● Bot +in room`).MatchString(scr)
	})
	rec := r.readRecord()
	if !rec.has("mcp connected") || rec.pid == 0 || len(rec.args) != 1 {
		t.Fatalf("scriptcli record: %q", rec.lines)
	}
	// The registration: a 0600 file under $PULLCEPT_HOME/run, named by
	// {mcp_config}, whose server is this binary's sidecar seated in the
	// topic on screen.
	regFile := rec.args[0]
	if filepath.Dir(regFile) != filepath.Join(home, "run") {
		t.Errorf("registration file %s is not under %s", regFile, filepath.Join(home, "run"))
	}
	if st, err := os.Stat(regFile); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("registration file: %v %v", st, err)
	}
	var reg struct {
		MCPServers map[string]struct {
			Command string
			Args    []string
			Env     map[string]string
		} `json:"mcpServers"`
	}
	raw, _ := os.ReadFile(regFile)
	if err := json.Unmarshal(raw, &reg); err != nil {
		t.Fatal(err)
	}
	srv := reg.MCPServers["pullcept"]
	// The server keeps its own link (or copy) of the binary in the runtime
	// folder for its whole life: a rebuilt or cleaned binary breaks no seat.
	want := filepath.Join(home, "run", "bin", "pullcept")
	if srv.Command != want || !sameBytes(t, srv.Command, pullceptBin) || strings.Join(srv.Args, " ") != "sidecar" || srv.Env["PULLCEPT_AGENT_NAME"] != "Bot" {
		t.Errorf("registered sidecar %s %q env name %q, want %s (this build) sidecar, Bot", srv.Command, srv.Args, srv.Env["PULLCEPT_AGENT_NAME"], want)
	}
	topic := srv.Env["PULLCEPT_ROOM_ID"]
	if topic == "" {
		t.Fatalf("registration names no room: %s", raw)
	}

	// Address Bot from the input line.
	r.prefix("i")
	r.text("@Bot hello")
	r.keys("Enter")
	scr := r.waitFor("Bot's tagged input in its pane and its answer in the room", func(scr string) bool {
		return regexp.MustCompile(`"to":\["Bot"\],"you":"Bot","your_full_name":"Bot"\}\n?hello\n`).MatchString(paneText(scr, "Bot · cli · running")) &&
			strings.Contains(scr, "ack: hello")
	})
	pane := paneText(scr, "Bot · cli · running")
	// A row filled to the last column and a line break look alike on the
	// screen: the tag line may or may not be followed by one here.
	m := regexp.MustCompile(`\[pullcept\] (\{[^\n]*?\})\n?hello\n`).FindStringSubmatch(pane)
	if m == nil {
		t.Fatalf("no tag line then body in Bot's pane:\n%s", pane)
	}
	var tag wire.Tag
	if err := json.Unmarshal([]byte(m[1]), &tag); err != nil {
		t.Fatalf("tag %s: %v", m[1], err)
	}
	if tag.Role != "admin" || tag.From != "Master" || strings.Join(tag.To, ",") != "Bot" || tag.MessageID == "" {
		t.Errorf("tag %+v", tag)
	}
	tagLine := "[pullcept] " + m[1]
	if !strings.HasPrefix(tagLine, `[pullcept] {"role":"admin","from":"Master",`) {
		t.Errorf("tag line %q", tagLine)
	}
	// The room: Master's post to Bot with its delivery mark (typed: the
	// scripted CLI reports no prompts), then Bot's answer; the first post
	// names the topic (listed already by the seat start).
	scr = r.waitText("Room · hello")
	if room := roomText(scr); !regexp.MustCompile(`^\d\d:\d\d ▶ Master → Bot\n  hello\n  → Bot typed \(no receipt signal\)\n\d\d:\d\d Bot\n  ack: hello$`).MatchString(room) {
		t.Errorf("the room does not show the post then the answer:\n%s", room)
	}
	r.until("the tool's answer in the record", func() bool { return r.readRecord().has(`said "Delivered to the room.`) })
	// The topic's log holds the same two posts: the one typed to Bot is
	// the one its tag names.
	show := exec.Command(pullceptBin, "topics", "show", topic, "--json")
	show.Env = append(os.Environ(), "PULLCEPT_HOME="+home)
	out, err := show.Output()
	if err != nil {
		t.Fatalf("topics show: %v", err)
	}
	var logged struct{ Posts []wire.Post }
	if err := json.Unmarshal(out, &logged); err != nil {
		t.Fatalf("topics show: %v\n%s", err, out)
	}
	if len(logged.Posts) != 2 || logged.Posts[0].MessageID != tag.MessageID || logged.Posts[0].Content != "hello" ||
		logged.Posts[1].Speaker != "Bot" || logged.Posts[1].Account != "bot" || logged.Posts[1].Content != "ack: hello" {
		t.Errorf("the topic's log:\n%s", out)
	}
	screenshot := scr

	// A new topic: its own empty room, no pane, Bot not seated there; the
	// first topic keeps its running marker.
	r.prefix("c")
	scr = r.waitText("Room · new topic", "Nothing said yet")
	if strings.Contains(scr, "Bot · cli") || strings.Contains(scr, "ack: hello") || !regexp.MustCompile(`● Bot +—`).MatchString(scr) {
		t.Errorf("the new topic shows the first topic's seat or room:\n%s", scr)
	}
	r.text("second topic words")
	r.keys("Enter")
	scr = r.waitFor("the second topic listed next to the first, with its marker", func(scr string) bool {
		_, first := topicRow(scr, "hello")
		i, _ := topicRow(scr, "second topic")
		return strings.Contains(scr, "Room · second topic words") && strings.HasPrefix(first, "● ") && i >= 0
	})
	if strings.Contains(scr, "Bot · cli") || strings.Contains(scr, "ack: hello") {
		t.Errorf("the second topic shows the first topic's seat or room:\n%s", scr)
	}
	if !processAlive(rec.pid) {
		t.Fatal("switching topics stopped Bot's seat")
	}

	// Back through the topic list: the first room, its pane and the seat
	// still running.
	r.prefix("w")
	cur, _ := topicRow(scr, "second topic")
	first, _ := topicRow(scr, "hello")
	for range first - cur {
		r.keys("j")
	}
	for range cur - first {
		r.keys("k")
	}
	r.keys("Enter")
	scr = r.waitText("Room · hello", "Bot · cli · running", "ack: hello")
	if room := roomText(scr); strings.Contains(room, "second topic words") || !strings.HasSuffix(room, "  ack: hello") ||
		!strings.Contains(paneText(scr, "Bot · cli · running"), m[1]) {
		t.Errorf("back in the first topic, the room or the pane is not its own:\n%s", scr)
	}
	if !regexp.MustCompile(`● Bot +in room`).MatchString(scr) {
		t.Errorf("Bot is not in the first topic's room any more:\n%s", scr)
	}

	// Delete it with the seat running: the dialog names the session; the
	// seat, its sidecar, its registration and the topic's log end.
	if len(sidecarsOf(topic)) == 0 && fileExists("/proc/self/cmdline") {
		t.Errorf("no sidecar process found for topic %s", topic)
	}
	r.prefix("&")
	r.waitText("Delete the topic “hello”?", "This stops 1 running session(s): Bot.", "[y] delete")
	r.keys("y")
	scr = r.waitFor("the topic gone and a new one on screen", func(scr string) bool {
		i, _ := topicRow(scr, "hello")
		j, _ := topicRow(scr, "second topic")
		return i < 0 && j >= 0 && strings.Contains(scr, "Room · new topic") && !strings.Contains(scr, "Bot · cli")
	})
	r.until("Bot's process to end", func() bool { return !processAlive(rec.pid) })
	r.until("Bot's sidecar to end", func() bool { return len(sidecarsOf(topic)) == 0 })
	if fileExists(regFile) {
		t.Error("the registration file outlived the seat")
	}
	if fileExists(filepath.Join(home, "logs", "main", topic+".jsonl")) {
		t.Error("the deleted topic's log is still there")
	}

	// Bot was typed exactly the one post addressed to it: not its own
	// answer, nothing of the other topic.
	rec = r.readRecord()
	if got, want := string(rec.input), tagLine+"\nhello\r"; got != want {
		t.Errorf("Bot read %q, want %q", got, want)
	}

	// Quit with the prefix key: pullcept ends with status 0.
	r.prefix("q")
	r.until("pullcept to end", func() bool { return fileExists(status) })
	r.until("its exit status", func() bool {
		data, _ := os.ReadFile(status)
		return strings.HasSuffix(string(data), "\n")
	})
	if data, _ := os.ReadFile(status); string(data) != "0\n" {
		t.Errorf("pullcept exited with status %s", data)
	}
	log, _ := os.ReadFile(filepath.Join(home, "state", "pullcept.log"))
	if !strings.Contains(string(log), "stopped: topic deleted") {
		t.Errorf("the app log does not record the seat stopped by the deletion:\n%s", log)
	}
	if strings.Contains(string(log), "level=ERROR") {
		t.Errorf("the app log has errors:\n%s", log)
	}
	if p := os.Getenv("PULLCEPT_TUI_SCREENSHOT"); p != "" {
		if err := os.WriteFile(p, []byte(screenshot), 0o644); err != nil {
			t.Error(err)
		}
	}
	t.Logf("took %v", time.Since(start).Round(time.Millisecond))
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// sameBytes says whether two files hold the same bytes.
func sameBytes(t *testing.T, a, b string) bool {
	t.Helper()
	x, err := os.ReadFile(a)
	if err != nil {
		t.Log(err)
		return false
	}
	y, err := os.ReadFile(b)
	if err != nil {
		t.Log(err)
		return false
	}
	return bytes.Equal(x, y)
}
