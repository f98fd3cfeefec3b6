package all

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/checker/vet"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// apiHeader opens every lesson's api.txt.
const apiHeader = `# The API of lesson %[1]s: what its file (%[2]s) may use of the reference
# package (solutions/) besides what the file declares itself. The vetter
# refuses a lesson file that uses any other name of the reference
# (checker/vet, rule 8). One name a line: a package-level name (runqget,
# g, sched), or a type's field or method (g.goid, gQueue.push).
#
# %[3]s is what the reference's %[2]s and the corpus's files use: the
# alternates (right files), and the mutants (wrong ones: a plausible
# mistake must fail the tests, not the vetter); and the functions and
# methods the lessons' reference files declare that the reference's %[2]s
# leads to, by its calls and theirs (the scheduler's operations the
# course builds: a file may call what its own code reaches, not sysmon
# from a run queue). Regenerate it with
#   go test ./lessons/all -run TestAPI -update
# which keeps %[4]s as it is. %[4]s is hand-edited: names a correct
# file might reasonably reach for, each with its reason after a "#".
# Never list the tests' controls (interleaveHook, setInterleaveHook,
# schedPoint, slotPoint, setSlotHook, pointHooks, setRingIndexHook) nor
# channel internals (solutions/chan.go). A human reviews
# every change to this file: it decides what a lesson file can touch.
`

// forbiddenAPI are names no lesson's reviewed section may add: the
// controlled scheduler's hook, and every name solutions/chan.go declares
// (a sudog's elem reads and writes any memory).
func forbiddenAPI(t *testing.T) func(name string) bool {
	t.Helper()
	data, err := fs.ReadFile(gmpkata.Sources, "solutions/chan.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), "chan.go", data, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	bad := map[string]bool{"interleaveHook": true, "setInterleaveHook": true, "schedPoint": true,
		"slotHook": true, "setSlotHook": true, "slotPoint": true, "hooksMu": true,
		"pointHooks": true, "pointHooksNow": true, "setRingIndexHook": true, "changeHooks": true,
		"ringOp": true, "ringLoad": true, "ringStore": true, "ringCAS": true}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			bad[d.Name.Name] = true
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					bad[s.Name.Name] = true
				case *ast.ValueSpec:
					for _, id := range s.Names {
						bad[id.Name] = true
					}
				}
			}
		}
	}
	return func(name string) bool {
		base, _, _ := strings.Cut(name, ".")
		return bad[base]
	}
}

// referenceVetter is a vetter of the course's reference, for APIUses.
func referenceVetter(t *testing.T) *vet.Vetter {
	t.Helper()
	cfg := vet.Config{Reference: map[string][]byte{}}
	names, err := fs.Glob(gmpkata.Sources, "solutions/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fs.ReadFile(gmpkata.Sources, name)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Reference[path.Base(name)] = data
	}
	v, err := vet.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// generatedAPI is what a lesson's file uses of the reference, in the
// reference's own file and in every alternate and mutant of the corpus
// (a mutant is a mistake a learner could make: it must fail the tests,
// not the vetter).
func generatedAPI(t *testing.T, v *vet.Vetter, l *lessons.Lesson) []string {
	t.Helper()
	var all []string
	use := func(where, file string, data []byte) {
		uses, err := v.APIUses(file, data)
		if err != nil {
			t.Fatalf("lesson %s, %s: %v", l.ID, where, err)
		}
		all = append(all, uses...)
	}
	refs := map[string][]byte{}
	for _, file := range l.Files {
		data, err := fs.ReadFile(gmpkata.Sources, "solutions/"+file)
		if err != nil {
			t.Fatal(err)
		}
		refs[file] = data
		use("the reference", file, data)
		alts, err := fs.Glob(l.Alternates, "*/"+file)
		if err != nil {
			t.Fatal(err)
		}
		for _, alt := range alts {
			data, err := fs.ReadFile(l.Alternates, alt)
			if err != nil {
				t.Fatal(err)
			}
			use("alternate "+alt, file, data)
		}
	}
	all = append(all, courseOperations(t, l)...)
	mutants, err := l.ReadMutants()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mutants {
		files, err := m.Apply(refs)
		if err != nil {
			t.Fatal(err)
		}
		for file, data := range files {
			use("mutant "+m.Name, file, data)
		}
	}
	slices.Sort(all)
	return slices.Compact(all)
}

// courseOperations are the scheduler's operations the course builds
// (the functions and methods the lessons' reference files declare:
// "runqget", "schedt.globrunqputbatch") that the reference's file for l
// reaches: calls, or names as values (mcall(gp, park_m)), followed through
// every function of the reference, its own and the lessons'. A lesson file
// may call any of them, whether or not the reference's own file for the
// lesson does: a correct findRunnable that puts a batch back with
// globrunqputbatch was refused for a name lesson 03 teaches. It may not
// call an operation its lesson's code never leads to: runq.go has no
// business with sysmon, retake, preemptone or procresize, and a file that
// calls them is probing the run it is graded in (red team 32), not
// scheduling.
//
// Every lesson may also use the run queues' own types (solutions/gqueue.go:
// gQueue, gList, globalRunq, their fields and methods): a correct
// procresize that empties a destroyed P with gQueue.pop was refused.
//
// A name matches every function and method of that name (x.push is
// gQueue.push and gList.push): reach is a little wider than the calls
// the reference makes, never narrower.
func courseOperations(t *testing.T, l *lessons.Lesson) []string {
	t.Helper()
	lessonFiles := map[string]bool{}
	for _, other := range lessons.Default.All() {
		for _, file := range other.Files {
			lessonFiles[file] = true
		}
	}
	var names []string
	funcs := map[string]*ast.FuncDecl{} // every function of the reference, by its API name
	byName := map[string][]string{}     // API names, by the function's own name
	isOp := map[string]bool{}           // the lessons' operations
	var roots []string                  // l's file's functions
	files, err := fs.Glob(gmpkata.Sources, "solutions/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		base := path.Base(file)
		if strings.HasSuffix(base, "_test.go") {
			continue
		}
		data, err := fs.ReadFile(gmpkata.Sources, file)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), base, data, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if base == "gqueue.go" {
			names = append(names, typesAndFields(f)...)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			name := apiFuncName(fn)
			funcs[name] = fn
			byName[fn.Name.Name] = append(byName[fn.Name.Name], name)
			if lessonFiles[base] || base == "gqueue.go" {
				isOp[name] = true
			}
			if slices.Contains(l.Files, base) {
				roots = append(roots, name)
			}
			if base == "gqueue.go" && fn.Recv != nil {
				names = append(names, name)
			}
		}
	}
	reached := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		if reached[name] {
			return
		}
		reached[name] = true
		ast.Inspect(funcs[name], func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				for _, callee := range byName[id.Name] {
					visit(callee)
				}
			}
			return true
		})
	}
	for _, name := range roots {
		visit(name)
	}
	for name := range reached {
		if isOp[name] {
			names = append(names, name)
		}
	}
	return names
}

// apiFuncName is fn's name as an API names it: runqget, gQueue.push.
func apiFuncName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) != 1 {
		return fn.Name.Name
	}
	rt := fn.Recv.List[0].Type
	if st, ok := rt.(*ast.StarExpr); ok {
		rt = st.X
	}
	if ix, ok := rt.(*ast.IndexExpr); ok { // a generic type's method
		rt = ix.X
	}
	if id, ok := rt.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// typesAndFields are the types f declares and their fields ("gQueue",
// "gQueue.size").
func typesAndFields(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, sp := range gd.Specs {
			ts := sp.(*ast.TypeSpec)
			names = append(names, ts.Name.Name)
			st, ok := ts.Type.(*ast.StructType)
			if !ok {
				continue
			}
			for _, fld := range st.Fields.List {
				for _, id := range fld.Names {
					names = append(names, ts.Name.Name+"."+id.Name)
				}
				if len(fld.Names) == 0 { // embedded: named by its type
					if id, ok := fld.Type.(*ast.Ident); ok {
						names = append(names, ts.Name.Name+"."+id.Name)
					}
				}
			}
		}
	}
	return names
}

// TestAPI fails when a lesson's api.txt is stale: its generated section
// is not what the reference's file and the alternates use (so a name the
// reference's file uses is missing), or its reviewed section lists a name
// the reference does not have, one already generated, or one no lesson
// may have. Run `go test ./lessons/all -run TestAPI -update` to rewrite
// the generated sections, and review the diff.
func TestAPI(t *testing.T) {
	v := referenceVetter(t)
	known := v.APINames()
	forbidden := forbiddenAPI(t)
	for _, l := range lessons.Default.All() {
		p := filepath.Join("..", l.ID, "api.txt")
		old, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		gen := generatedAPI(t, v, l)
		if *update {
			if err := os.WriteFile(p, []byte(apiFile(l, gen, string(old))), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got := lessons.APISection(string(old), lessons.APIGenerated); !slices.Equal(got, gen) {
			t.Errorf("lessons/%s/api.txt is stale: its generated section is not what the reference's %s, the alternates and the mutants use (run: go test ./lessons/all -run TestAPI -update, and review the diff)\nmissing: %v\nnot used: %v",
				l.ID, strings.Join(l.Files, ", "), missing(gen, got), missing(got, gen))
		}
		if string(old) != apiFile(l, lessons.APISection(string(old), lessons.APIGenerated), string(old)) {
			t.Errorf("lessons/%s/api.txt is not in its generated form (header, sorted sections): run go test ./lessons/all -run TestAPI -update", l.ID)
		}
		reviewed := lessons.APISection(string(old), lessons.APIReviewed)
		if !slices.IsSorted(reviewed) {
			t.Errorf("lessons/%s/api.txt: the reviewed section is not sorted", l.ID)
		}
		for _, name := range reviewed {
			switch {
			case !known[name]:
				t.Errorf("lessons/%s/api.txt lists %s, which the reference does not declare", l.ID, name)
			case slices.Contains(gen, name):
				t.Errorf("lessons/%s/api.txt: %s is in both sections: remove it from the reviewed one", l.ID, name)
			case forbidden(name):
				t.Errorf("lessons/%s/api.txt lists %s, one of the tests' controls or channel internals, which no lesson file may use", l.ID, name)
			}
		}
	}
}

// apiFile is a lesson's api.txt: the header, the generated names, and the
// reviewed section of old as it is.
func apiFile(l *lessons.Lesson, gen []string, old string) string {
	var b strings.Builder
	fmt.Fprintf(&b, apiHeader, l.ID, strings.Join(l.Files, ", "), lessons.APIGenerated, lessons.APIReviewed)
	b.WriteString("\n" + lessons.APIGenerated + "\n")
	for _, name := range gen {
		b.WriteString(name + "\n")
	}
	b.WriteString("\n" + lessons.APIReviewed + "\n")
	if _, rest, ok := strings.Cut(old, "\n"+lessons.APIReviewed+"\n"); ok {
		b.WriteString(strings.TrimLeft(rest, "\n"))
	}
	return b.String()
}

// missing is what of want is not in have.
func missing(want, have []string) []string {
	var out []string
	for _, w := range want {
		if !slices.Contains(have, w) {
			out = append(out, w)
		}
	}
	return out
}
