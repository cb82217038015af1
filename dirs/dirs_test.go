package dirs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	d, err := Resolve(env(map[string]string{"PULLCEPT_HOME": "/p", "XDG_DATA_HOME": "/x"}))
	if err != nil || d.Logs() != "/p/logs/main" || d.ConfigFile() != "/p/config.json" || d.State != "/p/state" || d.Runtime != "/p/run" {
		t.Fatalf("PULLCEPT_HOME: %+v %v", d, err)
	}
	d, err = Resolve(env(map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/c", "XDG_RUNTIME_DIR": "/r", "XDG_DATA_HOME": "relative"}))
	if err != nil || d.Data != "/h/.local/share/pullcept" || d.Config != "/c/pullcept" || d.State != "/h/.local/state/pullcept" || d.Runtime != "/r/pullcept" {
		t.Fatalf("XDG: %+v %v", d, err)
	}
	if _, err := Resolve(env(nil)); err == nil {
		t.Fatal("no HOME and no PULLCEPT_HOME must be an error")
	}
}

func TestEnsureMakesRuntimePrivate(t *testing.T) {
	t.Parallel()
	h := t.TempDir()
	d, _ := Resolve(func(k string) string {
		if k == "PULLCEPT_HOME" {
			return h
		}
		return ""
	})
	os.MkdirAll(d.Runtime, 0o755)
	if err := d.Ensure(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(h, "run"))
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("runtime dir mode = %v %v", st.Mode(), err)
	}
}
