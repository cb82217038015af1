package seat

import (
	"slices"
	"testing"

	"pullcept/seat/hook"
)

// What a launch puts in its child's environment is what `pullcept hook`
// reads back (the two sides live in two packages), and a child inherits
// none of it from the app's own environment.
func TestHookEnvIsWhatTheHookReads(t *testing.T) {
	t.Parallel()
	want := hook.HookTarget{Base: "http://127.0.0.1:9/hooks", Topic: "t", Account: "a", Secret: "s"}
	env := map[string]string{}
	for _, kv := range hookEnv(want) {
		env[kv[0]] = kv[1]
		if !slices.Contains(hookEnvNames, kv[0]) {
			t.Errorf("%s is not removed from the environment a child inherits", kv[0])
		}
	}
	got, err := hook.HookTargetFromEnv(func(k string) string { return env[k] })
	if err != nil || got != want {
		t.Fatalf("read back %+v, %v; want %+v", got, err, want)
	}
	if !slices.Contains(hookEnvNames, hook.EnvStatusLine) {
		t.Errorf("%s is not removed from the environment a child inherits", hook.EnvStatusLine)
	}
}
