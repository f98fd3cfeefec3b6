package lessons

import (
	"strings"
	"testing"
)

func TestParseAndApplyMutant(t *testing.T) {
	src := "# takes all\n# (not half)\n=== runq.go\n<<<<<<<\n\tn = n - n/2\n=======\n>>>>>>>\n<<<<<<<\n\treturn n\n=======\n\treturn n + 1\n>>>>>>>\n"
	m, err := ParseMutant("grab-all", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.Why != "takes all (not half)" || len(m.Edits) != 2 {
		t.Fatalf("ParseMutant = %+v", m)
	}
	if got := string(FormatMutant(m)); !strings.Contains(got, "=== runq.go\n<<<<<<<\n\tn = n - n/2\n=======\n>>>>>>>\n") {
		t.Errorf("FormatMutant does not round-trip:\n%s", got)
	}
	ref := map[string][]byte{"runq.go": []byte("func f(n int) int {\n\tn = n - n/2\n\treturn n\n}\n")}
	out, err := m.Apply(ref)
	if err != nil {
		t.Fatal(err)
	}
	if want := "func f(n int) int {\n\treturn n + 1\n}\n"; string(out["runq.go"]) != want {
		t.Errorf("Apply = %q, want %q", out["runq.go"], want)
	}
	if _, err := m.Apply(map[string][]byte{"runq.go": []byte("something else\n")}); err == nil || !strings.Contains(err.Error(), "no longer matches") {
		t.Errorf("Apply to a moved reference: err = %v, want 'no longer matches'", err)
	}
	for _, bad := range []string{
		"=== runq.go\n<<<<<<<\nx\n=======\ny\n>>>>>>>\n", // no why
		"# why\n<<<<<<<\nx\n=======\ny\n>>>>>>>\n",       // no file
		"# why\n=== runq.go\n<<<<<<<\nx\n=======\ny\n",   // unterminated
	} {
		if _, err := ParseMutant("bad", []byte(bad)); err == nil {
			t.Errorf("ParseMutant(%q) succeeded, want an error", bad)
		}
	}
}
