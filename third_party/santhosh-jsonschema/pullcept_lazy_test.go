package jsonschema

// PATCH(pullcept): tests of the lazy meta-schemas (draft.go, loadMetaSchemas).

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Nothing is compiled at package initialisation: checked in a fresh process
// (this test binary again, running only the check), since other tests of the
// package compile schemas.
func TestMetaSchemasNotCompiledAtInit(t *testing.T) {
	if os.Getenv("PULLCEPT_LAZY_META_CHECK") == "1" {
		for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
			if d.sch != nil {
				t.Errorf("%s: meta-schema compiled at init", d)
			}
			for name, s := range d.allVocabs {
				if s != nil {
					t.Errorf("%s: vocabulary %s compiled at init", d, name)
				}
			}
		}
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMetaSchemasNotCompiledAtInit$", "-test.count=1")
	cmd.Env = append(os.Environ(), "PULLCEPT_LAZY_META_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fresh process: %v\n%s", err, out)
	}
}

// Every draft's schemas still compile and validate when the first uses race.
func TestMetaSchemasCompiledOnFirstUse(t *testing.T) {
	drafts := map[string]string{
		"http://json-schema.org/draft-04/schema#":      `{"$schema":"http://json-schema.org/draft-04/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		"http://json-schema.org/draft-06/schema#":      `{"$schema":"http://json-schema.org/draft-06/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		"http://json-schema.org/draft-07/schema#":      `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		"https://json-schema.org/draft/2019-09/schema": `{"$schema":"https://json-schema.org/draft/2019-09/schema","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		"https://json-schema.org/draft/2020-12/schema": `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
		"default (2020-12)":                            `{"type":"object","properties":{"n":{"type":"integer","minimum":1}}}`,
	}
	var wg sync.WaitGroup
	for name, src := range drafts {
		name, src := name, src // go 1.21 loop variables (this module's go.mod)
		wg.Add(1)
		go func() {
			defer wg.Done()
			doc, err := UnmarshalJSON(strings.NewReader(src))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			c := NewCompiler()
			if err := c.AddResource("schema.json", doc); err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			sch, err := c.Compile("schema.json")
			if err != nil {
				t.Errorf("%s: %v", name, err)
				return
			}
			if err := sch.Validate(map[string]any{"n": 2}); err != nil {
				t.Errorf("%s: a valid value refused: %v", name, err)
			}
			if err := sch.Validate(map[string]any{"n": 0}); err == nil {
				t.Errorf("%s: an invalid value accepted", name)
			}
		}()
	}
	// An invalid schema is still refused by its meta-schema.
	wg.Add(1)
	go func() {
		defer wg.Done()
		doc, _ := UnmarshalJSON(strings.NewReader(`{"type":"object","properties":{"n":{"minimum":"one"}}}`))
		c := NewCompiler()
		if err := c.AddResource("bad.json", doc); err != nil {
			t.Error(err)
			return
		}
		if _, err := c.Compile("bad.json"); err == nil {
			t.Error("a schema breaking its meta-schema compiled")
		}
	}()
	wg.Wait()
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch == nil {
			t.Errorf("%s: meta-schema not compiled after use", d)
		}
	}
}
