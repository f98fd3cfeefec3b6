package blame

import (
	"go/parser"
	"go/token"
	"slices"
	"strings"
	"testing"
)

const refFile = `package sched

import (
	"fmt"
	"strings"
)

const (
	a = iota
	b
)

type ring struct{ n int }

func (r *ring) put(x int) { r.n += x; helper() }

func get(r *ring) (int, error) {
	if r.n == 0 {
		return 0, fmt.Errorf("empty")
	}
	return r.n, nil
}

func helper() { _ = strings.ToUpper("") }

func join(sep string, xs ...string) string { return strings.Join(xs, sep) }
`

// TestMake: the functions both files declare alike are swappable, each a
// dispatcher over both bodies; a function the learner declares otherwise
// (other parameter types) is the learner's alone; a helper the learner
// inlined comes from the reference; the learner's types and constants
// stand; the imports are those the schema's code uses, and it parses.
func TestMake(t *testing.T) {
	mine := `package sched

import "strconv"

const (
	a = iota
	b
)

type ring struct{ n, spare int }

func (q *ring) put(y int) { q.n += y + 1 }

func get(r *ring) (v int, err error) { return r.n, nil }

func join(sep byte, xs ...string) string { return strconv.Itoa(int(sep)) }
`
	s, err := Make("ring.go", []byte(mine), []byte(refFile))
	if err != nil {
		t.Fatal(err)
	}
	src := string(s.Src)
	if want := []string{"ring.put", "get"}; !slices.Equal(s.Swappable, want) {
		t.Errorf("Swappable = %v, want %v", s.Swappable, want)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "schema.go", s.Src, 0)
	if err != nil {
		t.Fatalf("the schema does not parse: %v\n%s", err, src)
	}
	var imports []string
	for _, i := range f.Imports {
		imports = append(imports, i.Path.Value)
	}
	slices.Sort(imports)
	if want := []string{`"fmt"`, `"strconv"`, `"strings"`}; !slices.Equal(imports, want) {
		t.Errorf("imports %v, want %v (fmt for the reference's get, strings for its helper, strconv for the learner's join)", imports, want)
	}
	for _, want := range []string{
		"func (q *ring) put__kataMine(y int) { q.n += y + 1 }",
		"func (r *ring) put__kataRef(x int) { r.n += x; helper() }",
		"func helper() { _ = strings.ToUpper(\"\") }",
		"func join(sep byte, xs ...string) string",
		`if kataBlame == "ring.put" {`,
		"kataRecv.put__kataRef(kataArg0)",
		`if kataBlame == "get" {`,
		"return get__kataRef(kataArg0)",
		"type ring struct{ n, spare int }",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("the schema lacks %q:\n%s", want, src)
		}
	}
	for _, unwanted := range []string{"join__kata", "type ring struct{ n int }", "b\n)\n\nconst ("} {
		if strings.Contains(src, unwanted) {
			t.Errorf("the schema has %q:\n%s", unwanted, src)
		}
	}
}

// TestMakeRefusesWhatDoesNotParse: a learner's file that does not parse
// gives an error, not a schema.
func TestMakeRefusesWhatDoesNotParse(t *testing.T) {
	if _, err := Make("ring.go", []byte("package sched\nfunc {"), []byte(refFile)); err == nil || !strings.Contains(err.Error(), "your ring.go") {
		t.Errorf("err = %v, want one about your ring.go", err)
	}
}
