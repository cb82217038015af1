package tui

import (
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

func TestBindingTableHasNoClashes(t *testing.T) {
	seen := map[keyCtx]map[string]string{}
	for _, b := range bindings {
		if seen[b.ctx] == nil {
			seen[b.ctx] = map[string]string{}
		}
		if b.help == "" || len(b.keys) == 0 {
			t.Errorf("binding %+v lacks keys or help", b)
		}
		for _, k := range b.keys {
			if prev, ok := seen[b.ctx][k]; ok {
				t.Errorf("%s: %q bound to %q and %q", ctxTitles[b.ctx], k, prev, b.help)
			}
			seen[b.ctx][k] = b.help
			if k == DefaultPrefix && b.ctx != ctxPrefix {
				t.Errorf("%s binds the default prefix %q", ctxTitles[b.ctx], k)
			}
		}
	}
}

// Every key after the prefix carries its handler in the actions table (esc
// only cancels the prefix); a context that has keys of its own says so in
// contextKeys.
func TestPrefixKeysHaveHandlers(t *testing.T) {
	for _, b := range bindings {
		if b.ctx == ctxPrefix && b.act != actCancel && actions[b.act] == nil {
			t.Errorf("prefix %v (%s) has no handler in actions", b.keys, b.help)
		}
	}
	for _, c := range ctxOrder {
		switch c {
		case ctxPrefix, ctxPane, ctxNumbers, ctxChips, ctxPicker: // key and doAttach read these
		default:
			if contextKeys[c] == nil {
				t.Errorf("%s has no entry in contextKeys", ctxTitles[c])
			}
		}
	}
}

func TestPrefixHandling(t *testing.T) {
	cases := []struct {
		key, prefix string
		want        action
		ok          bool
	}{
		{"c", "ctrl+b", actNewTopic, true},
		{"ctrl+b", "ctrl+b", actSendPrefix, true},
		{"ctrl+a", "ctrl+a", actSendPrefix, true},
		{"?", "ctrl+b", actHelp, true},
		{"Z", "ctrl+b", actNone, false},
	}
	for _, c := range cases {
		got, ok := lookup(ctxPrefix, c.key, c.prefix)
		if got != c.want || ok != c.ok {
			t.Errorf("lookup(prefix, %q) = %v %v", c.key, got, ok)
		}
	}
	if _, ok := lookup(ctxInput, "text", "ctrl+b"); ok {
		t.Error("a pseudo key matched")
	}

	// A configured prefix: ctrl+a arms, ctrl+b is an ordinary key.
	hs := newHarness(t, nil, 80, 24)
	hs.m.prefix = "ctrl+a"
	hs.key('b', tea.ModCtrl)
	if hs.m.armed {
		t.Error("ctrl+b armed with prefix ctrl+a")
	}
	hs.key('a', tea.ModCtrl)
	if !hs.m.armed || !strings.Contains(hs.screen(), "PREFIX") {
		t.Error("ctrl+a did not arm the prefix")
	}
	hs.send(tea.KeyPressMsg{Code: '?', Text: "?"})
	if !hs.m.help || hs.m.armed {
		t.Error("prefix ? did not open the help")
	}
	if got := prefixBytes("ctrl+a"); string(got) != "\x01" {
		t.Errorf("prefixBytes = %q", got)
	}
}

func TestKeyBytes(t *testing.T) {
	cases := []struct {
		name string
		k    tea.Key
		app  bool
		want string
	}{
		{"letter", tea.Key{Code: 'a', Text: "a"}, false, "a"},
		{"shifted", tea.Key{Code: 'a', ShiftedCode: 'A', Mod: tea.ModShift, Text: "A"}, false, "A"},
		{"japanese", tea.Key{Code: tea.KeyExtended, Text: "日本"}, false, "日本"},
		{"enter", tea.Key{Code: tea.KeyEnter}, false, "\r"},
		{"tab", tea.Key{Code: tea.KeyTab}, false, "\t"},
		{"shift+tab", tea.Key{Code: tea.KeyTab, Mod: tea.ModShift}, false, "\x1b[Z"},
		{"backspace", tea.Key{Code: tea.KeyBackspace}, false, "\x7f"},
		{"esc", tea.Key{Code: tea.KeyEscape}, false, "\x1b"},
		{"space", tea.Key{Code: tea.KeySpace, Text: " "}, false, " "},
		{"ctrl+space", tea.Key{Code: tea.KeySpace, Mod: tea.ModCtrl}, false, "\x00"},
		{"up", tea.Key{Code: tea.KeyUp}, false, "\x1b[A"},
		{"down app", tea.Key{Code: tea.KeyDown}, true, "\x1bOB"},
		{"right", tea.Key{Code: tea.KeyRight}, false, "\x1b[C"},
		{"left", tea.Key{Code: tea.KeyLeft}, false, "\x1b[D"},
		{"ctrl+left", tea.Key{Code: tea.KeyLeft, Mod: tea.ModCtrl}, false, "\x1b[1;5D"},
		{"shift+up", tea.Key{Code: tea.KeyUp, Mod: tea.ModShift}, false, "\x1b[1;2A"},
		{"home", tea.Key{Code: tea.KeyHome}, false, "\x1b[H"},
		{"end", tea.Key{Code: tea.KeyEnd}, false, "\x1b[F"},
		{"insert", tea.Key{Code: tea.KeyInsert}, false, "\x1b[2~"},
		{"delete", tea.Key{Code: tea.KeyDelete}, false, "\x1b[3~"},
		{"pgup", tea.Key{Code: tea.KeyPgUp}, false, "\x1b[5~"},
		{"pgdown", tea.Key{Code: tea.KeyPgDown}, false, "\x1b[6~"},
		{"ctrl+pgdown", tea.Key{Code: tea.KeyPgDown, Mod: tea.ModCtrl}, false, "\x1b[6;5~"},
		{"f1", tea.Key{Code: tea.KeyF1}, false, "\x1bOP"},
		{"f4", tea.Key{Code: tea.KeyF4}, false, "\x1bOS"},
		{"shift+f1", tea.Key{Code: tea.KeyF1, Mod: tea.ModShift}, false, "\x1b[1;2P"},
		{"f5", tea.Key{Code: tea.KeyF5}, false, "\x1b[15~"},
		{"f10", tea.Key{Code: tea.KeyF10}, false, "\x1b[21~"},
		{"f12", tea.Key{Code: tea.KeyF12}, false, "\x1b[24~"},
		{"ctrl+c", tea.Key{Code: 'c', Mod: tea.ModCtrl}, false, "\x03"},
		{"ctrl+z", tea.Key{Code: 'z', Mod: tea.ModCtrl}, false, "\x1a"},
		{"ctrl+[", tea.Key{Code: '[', Mod: tea.ModCtrl}, false, "\x1b"},
		{"ctrl+\\", tea.Key{Code: '\\', Mod: tea.ModCtrl}, false, "\x1c"},
		{"ctrl+_", tea.Key{Code: '_', Mod: tea.ModCtrl}, false, "\x1f"},
		{"alt+x", tea.Key{Code: 'x', Mod: tea.ModAlt}, false, "\x1bx"},
		{"alt+X", tea.Key{Code: 'x', ShiftedCode: 'X', Mod: tea.ModAlt | tea.ModShift}, false, "\x1bX"},
		{"ctrl+alt+a", tea.Key{Code: 'a', Mod: tea.ModCtrl | tea.ModAlt}, false, "\x1b\x01"},
		{"alt+enter", tea.Key{Code: tea.KeyEnter, Mod: tea.ModAlt}, false, "\x1b\r"},
		{"caps lock ignored", tea.Key{Code: tea.KeyUp, Mod: tea.ModCapsLock}, false, "\x1b[A"},
		{"no encoding", tea.Key{Code: tea.KeyMediaPlay}, false, ""},
	}
	for _, c := range cases {
		if got := string(keyBytes(c.k, c.app)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

const (
	readmeKeysBegin = "<!-- keys: generated from the binding table by TestReadmeKeys -->\n"
	readmeKeysEnd   = "<!-- end of keys -->\n"
)

// TestReadmeKeys keeps README.md's key section equal to the table.
func TestReadmeKeys(t *testing.T) {
	raw, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i, j := strings.Index(s, readmeKeysBegin), strings.Index(s, readmeKeysEnd)
	if i < 0 || j < i {
		t.Fatal("README.md lacks the key section markers")
	}
	want := readmeKeysBegin + bindingsMarkdown(DefaultPrefix) + readmeKeysEnd
	got := s[i : j+len(readmeKeysEnd)]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile("README.md", []byte(s[:i]+want+s[j+len(readmeKeysEnd):]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Error("README.md's keys differ from the binding table (go test ./tui -run TestReadmeKeys -update)")
}
