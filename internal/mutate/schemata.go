package mutate

import (
	"fmt"
	"go/ast"
	"slices"
	"strings"
)

// Selector is the package variable the schemata's dispatchers switch on:
// 0 runs the original code, N the mutant whose ID is N.
const Selector = "kataMutant"

// EnvVar is the environment variable SelectorFile reads Selector from.
const EnvVar = "KATA_MUTANT"

// SelectorFile returns a Go file of package pkg that declares Selector,
// set from EnvVar when the package is initialised.
func SelectorFile(pkg string) []byte {
	return fmt.Appendf(nil, `package %s

// Added by kata's mutation testing: see internal/mutate.

import (
	"os"
	"strconv"
)

var %s = func() int {
	n, _ := strconv.Atoi(os.Getenv(%q))
	return n
}()
`, pkg, Selector, EnvVar)
}

// Schemata returns f's source with every mutant in it: each mutated
// function F becomes a dispatcher that calls F__kataOrig (F as it was) or
// F__kataM<ID> (F with mutant ID applied), by Selector; the functions
// variants add (FromVariants) follow, at the end. Line numbers of the
// functions that no mutant changes stay as they were.
func (f *File) Schemata() ([]byte, error) {
	byFn := map[*ast.FuncDecl][]*Mutant{}
	var fns []*ast.FuncDecl
	for _, m := range f.Mutants {
		if byFn[m.fn] == nil {
			fns = append(fns, m.fn)
		}
		byFn[m.fn] = append(byFn[m.fn], m)
	}
	var edits []edit
	for _, fn := range fns {
		start, end := f.fset.Position(fn.Pos()).Offset, f.fset.Position(fn.End()).Offset
		body := f.Src[start:end]
		nameAt := f.fset.Position(fn.Name.Pos()).Offset - start
		rename := func(src []byte, suffix string) string {
			return string(src[:nameAt]) + fn.Name.Name + suffix + string(src[nameAt+len(fn.Name.Name):])
		}
		var b strings.Builder
		d, err := f.dispatcher(fn, byFn[fn])
		if err != nil {
			return nil, err
		}
		b.WriteString(d)
		b.WriteString("\n\n")
		b.WriteString(rename(body, "__kataOrig"))
		for _, m := range byFn[fn] {
			var local []edit
			for _, e := range m.edits {
				local = append(local, edit{e.start - start, e.end - start, e.text})
			}
			fmt.Fprintf(&b, "\n\n// mutant %d: %s\n", m.ID, m.Key)
			b.WriteString(rename(applyEdits(body, local), fmt.Sprintf("__kataM%d", m.ID)))
		}
		edits = append(edits, edit{start, end, b.String()})
	}
	out := applyEdits(f.Src, edits)
	for _, a := range f.added {
		out = fmt.Appendf(out, "\n// added by mutant %d\n%s\n", a.id, a.text)
	}
	return out, nil
}

// dispatcher writes the function that stands in fn's place.
func (f *File) dispatcher(fn *ast.FuncDecl, ms []*Mutant) (string, error) {
	text := func(n ast.Node) string {
		return string(f.Src[f.fset.Position(n.Pos()).Offset:f.fset.Position(n.End()).Offset])
	}
	var b strings.Builder
	b.WriteString("func ")
	call := fn.Name.Name
	if fn.Recv != nil {
		r := fn.Recv.List[0]
		name := "kataRecv"
		if len(r.Names) == 1 && r.Names[0].Name != "_" {
			name = r.Names[0].Name
		}
		fmt.Fprintf(&b, "(%s %s) ", name, text(r.Type))
		call = name + "." + call
	}
	b.WriteString(fn.Name.Name + "(")
	var params, args []string
	for _, field := range fn.Type.Params.List {
		names := field.Names
		if len(names) == 0 {
			names = []*ast.Ident{{Name: "_"}}
		}
		for _, n := range names {
			name := n.Name
			if name == "_" {
				name = fmt.Sprintf("kataArg%d", len(params))
			}
			params = append(params, name+" "+text(field.Type))
			if _, variadic := field.Type.(*ast.Ellipsis); variadic {
				name += "..."
			}
			args = append(args, name)
		}
	}
	b.WriteString(strings.Join(params, ", ") + ")")
	var results []string
	if fn.Type.Results != nil {
		for _, field := range fn.Type.Results.List {
			for range max(1, len(field.Names)) {
				results = append(results, text(field.Type))
			}
		}
	}
	if len(results) > 0 {
		b.WriteString(" (" + strings.Join(results, ", ") + ")")
	}
	ret := "return "
	tail := ""
	if len(results) == 0 {
		ret, tail = "", "\n\t\treturn"
	}
	argList := strings.Join(args, ", ")
	fmt.Fprintf(&b, " {\n\tswitch %s {\n", Selector)
	for _, m := range slices.Clone(ms) {
		fmt.Fprintf(&b, "\tcase %d:\n\t\t%s%s__kataM%d(%s)%s\n", m.ID, ret, call, m.ID, argList, tail)
	}
	fmt.Fprintf(&b, "\t}\n\t%s%s__kataOrig(%s)\n}", ret, call, argList)
	return b.String(), nil
}
