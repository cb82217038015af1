package e2e

// The walkthrough (issue 31 point 10): every key of the binding table
// (tui.Walkthrough, tui/walkthrough.go) pressed in tmux against the real
// binary, with two cli seats running, a notice up and a second client
// attached, at 80x24 and 200x50, and checked against its expected
// outcome: most keys leave the server, both clients and every seat alive
// and change the screen as the table says; a key that ends a client, a
// seat or the server, or runs a program on the client, is checked for
// exactly that.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"pullcept/tui"
)

func TestTUIWalkthrough(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			walkthrough(t, size[0], size[1])
		})
	}
}

// walkSeats are the walkthrough's seats, in the participants' order.
var walkSeats = []string{"Ann", "Bob", "Cid"}

// walk is one run of the walkthrough.
type walk struct {
	t              *testing.T
	r              *tuiRun
	phome, dir     string
	drops, marks   string
	pids           string // a file per seat: the pids of its processes
	main, two      string // the tmux sessions of the two clients
	status2        string // where the second client's exit status goes
	stderr, status string // the first client's (when started again)
	news           string // the control socket of the MCP server news (a fake bridge)
	last           string
}

func walkthrough(t *testing.T, w, h int) {
	wk := &walk{t: t, phome: t.TempDir(), dir: t.TempDir()}
	wk.drops = filepath.Join(wk.dir, "drops")
	wk.pids = filepath.Join(wk.dir, "pids")
	wk.marks = filepath.Join(wk.dir, "marks")
	for _, d := range []string{wk.drops, wk.pids} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	mark := filepath.Join(wk.dir, "mark")
	clip := filepath.Join(wk.dir, "clip.png")
	for p, data := range map[string]string{
		filepath.Join(wk.drops, "walk-a.txt"): "a", filepath.Join(wk.drops, "walk-b.txt"): "b",
		clip: "\x89PNG\r\n\x1a\nnot really an image",
		// The program run on the client's terminal: it notes its marker.
		mark: "#!/bin/sh\necho \"$1\" >>" + shellQuote(wk.marks) + "\n",
	} {
		if err := os.WriteFile(p, []byte(data), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	cli := filepath.Join(wk.dir, "scriptcli")
	build := exec.Command("go", "build", "-o", cli, "./seat/testdata/scriptcli")
	build.Dir = repoRoot(t)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build scriptcli: %v\n%s", err, out)
	}
	// Ann runs cat; Bob and Cid the scripted CLI, which joins the room and
	// answers the person's posts only (not each other's answers).
	var accounts []map[string]any
	for _, n := range append(slices.Clone(walkSeats), "Dan") { // Dan: no seat in walk
		id, prog := strings.ToLower(n), "cat"
		if n == "Bob" || n == "Cid" {
			prog = shellQuote(cli)
		}
		accounts = append(accounts, map[string]any{"id": id, "name": n, "kind": "cli", "env": map[string]string{"SCRIPTCLI_MCP_AT_START": "1", "SCRIPTCLI_ANSWER": "admin"},
			"command": "sh -c " + shellQuote("echo $$ >>"+shellQuote(filepath.Join(wk.pids, id))+"; seq -f line-%g 300; exec "+prog)})
	}
	data, _ := json.Marshal(map[string]any{"accounts": accounts})
	writeConfig(t, wk.phome, string(data))
	// hook never answers (cat); news is a fake bridge that posts a notice
	// when told (its socket under a short folder: a Unix socket's path is short).
	short, err := os.MkdirTemp("", "walk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	wk.news = filepath.Join(short, "news.sock")
	servers, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"hook": map[string]any{"command": "cat"},
		"news": map[string]any{"command": buildFakeBridge(t), "env": map[string]string{"FAKEBRIDGE_CTL": wk.news}}}})
	if err := os.WriteFile(filepath.Join(wk.phome, "mcp-servers.json"), servers, 0o600); err != nil {
		t.Fatal(err)
	}
	env := serverEnv(t, "VISUAL="+mark+" visual", "PAGER="+mark+" pager", "PULLCEPT_OPEN="+mark+" open",
		"PULLCEPT_CLIPBOARD_IMAGE=cat "+shellQuote(clip))
	wk.r = startTUI(t, wk.phome, env, w, h, func() { t.Logf("the last screen read:\n%s", wk.last) })
	wk.main = strings.TrimSpace(wk.r.tmux("display-message", "-p", "#{session_id}")) // "$0": a bare "0" would name a window
	wk.status, wk.stderr = wk.r.status, filepath.Join(wk.dir, "stderr1")
	wk.r.tmux("set-option", "-s", "set-clipboard", "on") // OSC 52 makes a tmux buffer
	wk.setup(w, h)

	steps := tui.Walkthrough()
	// The keys that end something last, the server's the very last.
	order := map[tui.WalkKind]int{tui.WalkEndsSeat: 1, tui.WalkRestartsSeat: 1, tui.WalkEndsClient: 2, tui.WalkEndsServer: 3}
	slices.SortStableFunc(steps, func(a, b tui.WalkStep) int { return order[a.Kind] - order[b.Kind] })
	start := time.Now()
	for _, s := range steps {
		if !wk.step(s) {
			break
		}
	}
	t.Logf("%d keys in %v", len(steps), time.Since(start).Round(time.Millisecond))
}

// setup makes the walkthrough's scene (tui/walkthrough.go): topics other,
// walk and third (listed third, walk, other), walk on screen with its
// posts, Ann and Bob running, the second client attached.
func (wk *walk) setup(w, h int) {
	wk.waitMain("the empty input line", func(scr string) bool { return inputLine(scr) == "› say something to the room…" })
	for i, name := range []string{"other topic", "walk topic", "third topic"} {
		if i > 0 {
			wk.send("C-b", "c", "wait:Room · new topic")
		}
		wk.send("text:"+name, "Enter", "wait:Room · "+name)
	}
	wk.send("C-b", "n", "wait:Room · walk topic")
	var long []string
	for i := 1; i <= 60; i++ {
		long = append(long, fmt.Sprintf("scroll-%02d", i))
	}
	wk.send("paste:"+strings.Join(long, "\n"), "wait:scroll-60", "Enter", "wait:(?m)^› say something",
		"text:hello room", "Enter", "wait:(?m)^› say something",
		"paste:'"+filepath.Join(wk.drops, "walk-a.txt")+"'", "wait:\\[walk-a\\.txt", "text:see the file", "Enter", "wait:📎 walk-a.txt")
	// The seats, started from the participants (Master, Ann, Bob, Cid).
	wk.send("C-b", "a", "wait:▶ Participants", "j", "s", "wait:● Ann +running", "j", "s", "wait:● Bob +in room", "j", "s", "wait:● Cid +in room", "C-b", "i")
	for _, s := range []string{"ann", "bob", "cid"} {
		wk.until(s+"'s process", func() bool { return processAlive(wk.seatPID(s)) })
	}
	// One MCP notice, folded in the room (e expands it).
	wk.until("the news server's socket", func() bool { _, err := os.Stat(wk.news); return err == nil })
	bridgeCue(wk.t, wk.news, bridgePush("[push] walk/news\nby walker", "ev-walk"))
	wk.waitMain("the folded notice", func(scr string) bool { return strings.Contains(scr, "▸ news 1 post") })
	wk.status2 = filepath.Join(wk.dir, "status2")
	wk.two = strings.TrimSpace(wk.r.tmux("new-session", "-d", "-P", "-F", "#{session_id}", "-x", strconv.Itoa(w), "-y", strconv.Itoa(h),
		shellQuote(pullceptBin)+" 2>"+shellQuote(filepath.Join(wk.dir, "stderr2"))+"; echo $? >"+shellQuote(wk.status2)))
	wk.until("the second client's screen", func() bool {
		return strings.Contains(wk.capture(wk.two), "say something to the room")
	})
}

// home is the scene's screen: the input line focused and empty, walk on
// screen, both panes and side panels shown, nothing open over them.
func home(scr string) bool {
	return inputLine(scr) == "› say something to the room…" && focusedTitle(scr) == "" &&
		strings.Contains(scr, "Room · walk topic") && strings.Contains(scr, "Topics ＋") && strings.Contains(scr, "Participants") &&
		strings.Contains(scr, " · cli · ") &&
		!regexp.MustCompile(`Keys — |Notices, oldest first|Quit pullcept|Delete topic|Attach a file — |scroll \d+/|zoomed|📎 \[`).MatchString(scr)
}

// step walks one key; false ends the walk (the server ended, or the scene
// could not be made again).
func (wk *walk) step(s tui.WalkStep) bool {
	t := wk.t
	name := fmt.Sprintf("%s %q (%s)", s.Context, s.Key, s.Kind)
	if s.Kind == tui.WalkMissing {
		t.Errorf("%s: %s", name, s.Why)
		return true
	}
	if s.Kind == tui.WalkUnchecked {
		t.Logf("not checked: %s: %s", name, s.Why)
		return true
	}
	if !wk.backHome(name) {
		return false
	}
	if f := os.Getenv("PULLCEPT_WALK_TRACE"); f != "" { // a developer's progress log
		if tf, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600); err == nil {
			fmt.Fprintf(tf, "%s %s\n", time.Now().Format("15:04:05.000"), name)
			tf.Close()
		}
	}
	server := serverPID(wk.phome)
	seats := map[string]int{}
	wk.r.tmux("set-buffer", "walk: nothing copied")
	marks, _ := os.ReadFile(wk.marks)
	if !wk.send(append(slices.Clone(s.Reach), s.Pre...)...) {
		t.Errorf("%s: could not reach the context (last screen:\n%s)", name, wk.last)
		return wk.restore(s)
	}
	before := wk.capture(wk.main)
	want, gone := regexp.MustCompile(s.Want), regexp.MustCompile(s.Gone)
	if s.Want != "" && want.MatchString(before) {
		t.Errorf("%s: %q is on the screen before the key: the check cannot fail\n%s", name, s.Want, before)
		return wk.restore(s)
	}
	if s.Gone != "" && !gone.MatchString(before) {
		t.Errorf("%s: %q is not on the screen before the key\n%s", name, s.Gone, before)
		return wk.restore(s)
	}
	for _, s := range []string{"ann", "bob", "cid"} {
		seats[s] = 0 // the seats running when the key is pressed (Pre may have stopped one)
		if p := wk.seatPID(s); processAlive(p) {
			seats[s] = p
		}
	}
	wk.send(s.Press...)
	wk.send(s.Post...)
	ok := true
	check := func(what string, cond func() bool) {
		if !ok {
			return
		}
		for deadline := time.Now().Add(tuiWait); !cond(); time.Sleep(25 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Errorf("%s: %s (screen:\n%s)", name, what, wk.capture(wk.main))
				ok = false
				return
			}
		}
	}
	lives := func(skipSeat string) {
		if !processAlive(server) {
			t.Errorf("%s: the server ended", name)
			ok = false
		}
		if fileExists(wk.status) {
			t.Errorf("%s: the client ended", name)
			ok = false
		}
		if fileExists(wk.status2) {
			t.Errorf("%s: the second client ended", name)
			ok = false
		}
		for seat, pid := range seats {
			if seat != skipSeat && pid > 0 && (!processAlive(pid) || wk.seatPID(seat) != pid) {
				t.Errorf("%s: seat %s's process %d ended", name, seat, pid)
				ok = false
			}
		}
	}
	screenOK := func() bool {
		scr := wk.capture(wk.main)
		return (s.Want == "" || want.MatchString(scr)) && (s.Gone == "" || !gone.MatchString(scr))
	}
	switch s.Kind {
	case tui.WalkLives:
		check(fmt.Sprintf("want %q, gone %q", s.Want, s.Gone), screenOK)
		if s.Clip != "" {
			check(fmt.Sprintf("the clipboard holds %q", s.Clip), func() bool {
				out, _ := wk.r.tmuxCmd("show-buffer").Output()
				return strings.Contains(string(out), s.Clip)
			})
		}
		lives("")
	case tui.WalkRuns:
		check(fmt.Sprintf("the program ran (marker %q)", s.Marker), func() bool {
			now, _ := os.ReadFile(wk.marks)
			return strings.Contains(strings.TrimPrefix(string(now), string(marks)), s.Marker+"\n")
		})
		check("the screen back", func() bool { return strings.Contains(wk.capture(wk.main), "Participants") })
		lives("")
	case tui.WalkEndsSeat, tui.WalkRestartsSeat:
		seat := strings.ToLower(s.Seat)
		old := seats[seat]
		check(fmt.Sprintf("%s's process %d ended", s.Seat, old), func() bool { return old > 0 && !processAlive(old) })
		if s.Kind == tui.WalkRestartsSeat {
			check(s.Seat+" running again", func() bool { p := wk.seatPID(seat); return p != old && processAlive(p) })
		}
		lives(seat)
	case tui.WalkEndsClient:
		check("the client ended", func() bool { return fileExists(wk.status) })
		if got := strings.TrimSpace(readFile(wk.status)); got != "0" {
			t.Errorf("%s: the client's exit status is %q, want 0", name, got)
		}
		if !processAlive(server) || fileExists(wk.status2) {
			t.Errorf("%s: the server or the second client ended", name)
		}
		for seat, pid := range seats {
			if !processAlive(pid) {
				t.Errorf("%s: seat %s ended", name, seat)
			}
		}
		// Attach again.
		_ = os.Remove(wk.status)
		wk.r.tmux("respawn-pane", "-k", "-t", wk.main,
			shellQuote(pullceptBin)+" 2>>"+shellQuote(wk.stderr)+"; echo $? >"+shellQuote(wk.status))
		return true
	case tui.WalkEndsServer:
		check("the server ended", func() bool { return !processAlive(server) })
		check("both clients ended", func() bool { return fileExists(wk.status) && fileExists(wk.status2) })
		for seat, pid := range seats {
			check("seat "+seat+" ended", func() bool { return !processAlive(pid) })
		}
		return false
	}
	return wk.restore(s)
}

// restore presses the step's way back (the scene is checked by the next
// step's backHome).
func (wk *walk) restore(s tui.WalkStep) bool {
	wk.send(s.Restore...)
	return true
}

// backHome waits for the scene's screen; when a step left it elsewhere,
// it goes back to the input line and clears it.
func (wk *walk) backHome(name string) bool {
	if !wk.seatsRunning(name) {
		return false
	}
	if wk.poll(2*time.Second, home) {
		return true
	}
	for _, k := range []string{"Escape", "q", "C-b", "i", "C-u", "BSpace", "C-u", "C-k"} {
		wk.send(k)
		if wk.poll(300*time.Millisecond, home) {
			return true
		}
	}
	if wk.poll(tuiWait, home) {
		return true
	}
	wk.t.Errorf("before %s: the scene could not be made again:\n%s", name, wk.last)
	return false
}

// seatsRunning starts again a seat a step left stopped.
func (wk *walk) seatsRunning(name string) bool {
	for i, n := range walkSeats {
		s := strings.ToLower(n)
		if processAlive(wk.seatPID(s)) {
			continue
		}
		keys := []string{"C-b", "a", "wait:▶ Participants", "k", "k", "k", "k", "k"}
		for range i + 1 {
			keys = append(keys, "j")
		}
		wk.send(append(keys, "s", "wait:● "+n+" +(running|in room)", "C-b", "i")...)
		if !wk.poll(tuiWait, func(string) bool { return processAlive(wk.seatPID(s)) }) {
			wk.t.Errorf("before %s: %s could not be started again", name, n)
			return false
		}
	}
	return true
}

// send sends keys to the first client: tmux key names, "text:S", "paste:S"
// and "wait:RE" (tui.WalkStep). False when a wait timed out.
func (wk *walk) send(keys ...string) bool {
	for _, k := range keys {
		k = strings.ReplaceAll(k, "{drops}", wk.drops)
		switch {
		case strings.HasPrefix(k, "text:"):
			text := strings.TrimPrefix(k, "text:")
			wk.r.tmux("send-keys", "-t", wk.main, "-l", text)
			// Seen before the next key (or a moment, typed where it
			// does not show).
			wk.poll(time.Second, func(scr string) bool { return strings.Contains(scr, text) })
		case strings.HasPrefix(k, "paste:"):
			wk.r.tmux("set-buffer", strings.TrimPrefix(k, "paste:"))
			wk.r.tmux("paste-buffer", "-p", "-t", wk.main)
		case k == "settle":
			prev := wk.capture(wk.main)
			for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
				time.Sleep(150 * time.Millisecond)
				scr := wk.capture(wk.main)
				if scr == prev {
					break
				}
				prev = scr
			}
		case strings.HasPrefix(k, "wait:"):
			re := regexp.MustCompile(strings.TrimPrefix(k, "wait:"))
			if !wk.poll(tuiWait, re.MatchString) {
				return false
			}
		default:
			before := wk.capture(wk.main)
			wk.r.tmux("send-keys", "-t", wk.main, k)
			if k == "Escape" {
				// A key within 50 ms of Escape reads as alt+key (the
				// terminal reader's escape timeout): wait for the screen to
				// take it, and at least the gap a person leaves.
				sent := time.Now()
				wk.poll(500*time.Millisecond, func(scr string) bool { return scr != before })
				time.Sleep(time.Until(sent.Add(200 * time.Millisecond)))
			}
		}
	}
	return true
}

func (wk *walk) capture(session string) string {
	out, err := wk.r.tmuxCmd("capture-pane", "-p", "-t", session).CombinedOutput()
	if err != nil {
		return ""
	}
	if session == wk.main {
		wk.last = string(out)
	}
	return string(out)
}

// poll reads the first client's screen until ok holds, for at most d.
func (wk *walk) poll(d time.Duration, ok func(scr string) bool) bool {
	for deadline := time.Now().Add(d); ; time.Sleep(25 * time.Millisecond) {
		if ok(wk.capture(wk.main)) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

func (wk *walk) waitMain(what string, ok func(scr string) bool) {
	wk.t.Helper()
	if !wk.poll(tuiWait, ok) {
		wk.t.Fatalf("timed out waiting for %s", what)
	}
}

func (wk *walk) until(what string, cond func() bool) {
	wk.t.Helper()
	for deadline := time.Now().Add(tuiWait); !cond(); time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			wk.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// seatPID is the pid of the seat's newest process (0 when none started).
func (wk *walk) seatPID(seat string) int {
	lines := strings.Fields(readFile(filepath.Join(wk.pids, seat)))
	if len(lines) == 0 {
		return 0
	}
	pid, _ := strconv.Atoi(lines[len(lines)-1])
	return pid
}

func readFile(p string) string {
	b, _ := os.ReadFile(p)
	return string(b)
}
