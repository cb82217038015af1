package attach

import "strings"

// UpdateEnv names the variables a seat takes from the person's terminal,
// as tmux's update-environment does: the client that starts a seat sends
// them (Hello.UpdateEnv), else the most recently active client's are used
// (docs/decisions.md "A seat's environment is the person's"). A name
// ending in "*" is a prefix. Never the whole environment: each entry has
// its reason, and secrets (API keys) are not here: an account carries its
// own (`accounts add --env KEY`), so which key a seat uses never depends
// on which terminal was active last.
var UpdateEnv = []string{
	// Where the CLIs (claude, codex, node, git) are: the shell's now, not
	// the first terminal's.
	"PATH",
	// The CLI's encoding and language.
	"LANG", "LANGUAGE", "LC_*",
	// git over ssh in a seat uses the agent of the terminal now (tmux's).
	"SSH_AUTH_SOCK", "SSH_AGENT_PID",
	// A CLI opens a browser (its login) or reads the clipboard on the
	// person's desktop (tmux's, with Wayland's).
	"DISPLAY", "XAUTHORITY", "WAYLAND_DISPLAY",
	// Kerberos tickets of the login now (tmux's).
	"KRB5CCNAME",
	// The CLI reaches its model API as the person's shell does.
	"HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY",
	"http_proxy", "https_proxy", "no_proxy", "all_proxy",
	// The person's CA (a company proxy) for Node (Claude) and Rust (Codex).
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
}

// updated says whether name is one of UpdateEnv.
func updated(name string) bool {
	for _, u := range UpdateEnv {
		if p, ok := strings.CutSuffix(u, "*"); ok {
			if strings.HasPrefix(name, p) {
				return true
			}
		} else if name == u {
			return true
		}
	}
	return false
}

// PersonEnv picks UpdateEnv out of environ (the client's side).
func PersonEnv(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, _, ok := strings.Cut(kv, "="); ok && updated(k) {
			out = append(out, kv)
		}
	}
	return out
}

// ApplyPersonEnv is base with UpdateEnv's variables replaced by the
// person's (the server's side): one the person's terminal has is set to
// its value, one it lacks is removed, as tmux does; the rest of base
// stays. person is filtered again: a client sends only these.
func ApplyPersonEnv(base, person []string) []string {
	out := make([]string, 0, len(base)+len(person))
	for _, kv := range base {
		if k, _, _ := strings.Cut(kv, "="); !updated(k) {
			out = append(out, kv)
		}
	}
	return append(out, PersonEnv(person)...)
}
