package e2e

// Nicknames as a person meets them (issue 15): the real pullcept in tmux.
// Two seats whose accounts share a calling name show once in the @
// candidates, marked as addressing both; n in the participants renames one
// (config.json keeps the nickname), and the candidates follow.

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

func TestTUINames(t *testing.T) {
	t.Parallel()
	phome := t.TempDir()
	script := strconv.Quote(filepath.Join(repoRoot(t), "e2e", "testdata", "namecli.sh"))
	acct := func(id, name string) string {
		return `{"id":"` + id + `","kind":"cli","name":"` + name + `","nickname":"Twin","command":` + script +
			`,"env":{"NAMECLI_LOG":"/dev/null"}}`
	}
	writeConfig(t, phome, `{"accounts":[`+acct("tw1", "Claude Twin")+`,`+acct("tw2", "Codex Twin")+`]}`)
	r := startTUI(t, phome, serverEnv(t), 120, 30, nil)
	inRoom := regexp.MustCompile(`● Twin +in room`)
	r.prefix("a")
	for i := range 2 {
		r.keys("j")
		r.keys("s")
		r.waitFor("seat "+strconv.Itoa(i+1)+" in the room", func(scr string) bool { return len(inRoom.FindAllString(scr, -1)) == i+1 })
	}
	r.keys("i")
	r.text("@Tw")
	r.waitText("@Twin  (all 2 of that name)")
	r.keys("C-u") // not Escape first: ESC then ^U reads as alt+ctrl+u
	r.waitFor("the input line cleared", func(scr string) bool { return !strings.Contains(scr, "@Tw") })

	// Rename the first seat from the participants panel (the selection is
	// where it was left: on the second seat; k goes up to the first).
	r.prefix("a")
	r.keys("k")
	r.keys("n")
	r.waitText("nickname of tw1")
	r.keys("C-u")
	r.text("Solo")
	r.keys("Enter")
	r.waitText("the room now calls tw1 Solo")
	r.waitFor("Solo in the room", func(scr string) bool { return regexp.MustCompile(`● Solo +in room`).MatchString(scr) })
	data, err := os.ReadFile(filepath.Join(phome, "config.json"))
	if err != nil || !strings.Contains(string(data), `"nickname": "Solo"`) {
		t.Fatalf("config.json after the rename: %v\n%s", err, data)
	}
	r.keys("i")
	r.text("@")
	scr := r.waitText("@Solo", "@Twin")
	if strings.Contains(scr, "(all ") {
		t.Errorf("after the rename no name is shared, yet the popup says so:\n%s", scr)
	}
}
