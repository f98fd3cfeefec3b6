package vet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deepRunq is the reference's runq.go with imports the rules refuse and
// an expression nested deeper than go/parser allows (the red team's A01:
// the compiler has no such limit). Only its imports can be read.
func deepRunq(t testing.TB, imports ...string) string {
	t.Helper()
	src := ref(t, "runq.go")
	if len(imports) > 0 {
		src = withImports(t, src, imports...)
	}
	const depth = 100_010
	deep := "var deepNesting = " + strings.Repeat("(", depth) + "1" + strings.Repeat(")", depth) + "\n"
	return edit(t, src, "\nfunc runqputtail(", "\n"+deep+"\nfunc runqputtail(")
}

// TestFailsClosed: a file the vetter cannot read whole is refused, never
// passed (A01: it used to return no problem at all, and the file went on
// to the compiler, which reads it). Its imports are still checked; what
// the vetter could not read is one problem of its own, with where and why.
func TestFailsClosed(t *testing.T) {
	v := courseVetter(t)
	for _, tc := range []struct {
		name string
		src  func(t testing.TB) string
		want []string // rule:part of the message
	}{
		{"nested too deep, forbidden imports", func(t testing.TB) string { return deepRunq(t, `"os"`, `"debug/elf"`) },
			[]string{`import:import "os" is not allowed`, `import:import "debug/elf" is not allowed`}},
		{"nested too deep", func(t testing.TB) string { return deepRunq(t) },
			[]string{"syntax:exceeded max nesting depth"}},
		{"a syntax error", func(t testing.TB) string {
			return edit(t, ref(t, "runq.go"), "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tif {")
		}, []string{"syntax:"}},
		{"a syntax error in the imports", func(t testing.TB) string {
			return edit(t, ref(t, "runq.go"), `import "sync/atomic"`, `import "sync/atomic`)
		}, []string{"syntax:"}},
		{"a type error", func(t testing.TB) string {
			return edit(t, ref(t, "runq.go"), "func runqputtail(pp *p, gp *g) {", "func runqputtail(pp *p, gp *g) {\n\tundefinedThing()")
		}, []string{"types:undefined: undefinedThing"}},
		{"a rule broken beside a type error", func(t testing.TB) string {
			return edit(t, ref(t, "runq.go"), "\nfunc runqputtail(", "\nfunc init() { undefinedThing() }\n\nfunc runqputtail(")
		}, []string{"init:may not declare an init function"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			probs, err := v.Sources(map[string][]byte{"runq.go": []byte(tc.src(t))})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range probs {
				got = append(got, p.String()+" ["+p.Rule+"]")
			}
			if len(probs) != len(tc.want) {
				t.Fatalf("%d problems, want %d:\n%s", len(probs), len(tc.want), strings.Join(got, "\n"))
			}
			for i, w := range tc.want {
				rule, msg, _ := strings.Cut(w, ":")
				if probs[i].Rule != rule || !strings.Contains(probs[i].Msg, msg) || probs[i].Pos.Filename != "runq.go" || probs[i].Pos.Line == 0 {
					t.Errorf("problem %d: %s\nwant rule %s at a line of runq.go, saying %q", i, got[i], rule, msg)
				}
			}
		})
	}
}

// TestSizeLimit: a lesson file larger than MaxFileSize is refused, and
// Files does not read it whole to find out (A28's 8 MiB of empty lines
// cost kata 270 MB and 31 s). A file just under the limit is vetted.
func TestSizeLimit(t *testing.T) {
	v := courseVetter(t)
	const limit = 256 << 10
	src := ref(t, "runq.go")
	under := src + strings.Repeat("\n", limit-len(src))
	probs, err := v.Sources(map[string][]byte{"runq.go": []byte(under)})
	if err != nil || len(probs) != 0 {
		t.Fatalf("a file of %d bytes: %v %v, want it vetted and passed", len(under), probs, err)
	}
	over := under + "\n"
	probs, err = v.Sources(map[string][]byte{"runq.go": []byte(over)})
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Rule != "size" || probs[0].String() != "runq.go: is larger than 256 KiB, the most a lesson file may be: make it smaller" {
		t.Fatalf("a file of %d bytes: %q, want one problem of rule size", len(over), probs)
	}

	// 256 MiB, sparse: reading it whole would cost as much memory.
	big := filepath.Join(t.TempDir(), "runq.go")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(src); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(256 << 20); err != nil {
		t.Fatal(err)
	}
	f.Close()
	probs, err = v.Files(map[string]string{"runq.go": big})
	if err != nil {
		t.Fatal(err)
	}
	if len(probs) != 1 || probs[0].Rule != "size" {
		t.Fatalf("a file of 256 MiB: %q, want one problem of rule size", probs)
	}
}
