package blame

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"slices"
	"strconv"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/importuse"
)

// EnvVar names the environment variable that selects the function whose
// reference version runs, and Selector the package variable it sets.
const (
	EnvVar   = "KATA_BLAME"
	Selector = "kataBlame"
)

// SelectorFile is the source of the file that sets Selector from EnvVar,
// in package pkg.
func SelectorFile(pkg string) []byte {
	return fmt.Appendf(nil, `package %s

// Added by kata's blame: see internal/blame.

import "os"

var %s = os.Getenv(%q)
`, pkg, Selector, EnvVar)
}

// A source is one parsed file.
type source struct {
	fset *token.FileSet
	src  []byte
	f    *ast.File
}

func parse(name string, src []byte) (*source, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	return &source{fset: fset, src: src, f: f}, nil
}

// text is n's source as written.
func (s *source) text(n ast.Node) string {
	return string(s.src[s.fset.Position(n.Pos()).Offset:s.fset.Position(n.End()).Offset])
}

// canon is n printed by go/printer: the same type written with other
// spacing or line breaks reads the same.
func (s *source) canon(n ast.Node) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, s.fset, n)
	return b.String()
}

// funcKey names a function as Schema's Swappable does: "runqput", or
// "randomOrder.reset" for a method.
func funcKey(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if st, ok := t.(*ast.StarExpr); ok {
		t = st.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return "?." + fn.Name.Name
}

// signature is fn's receiver, parameter and result types, without names.
func (s *source) signature(fn *ast.FuncDecl) string {
	var b strings.Builder
	fields := func(l *ast.FieldList) {
		b.WriteString("(")
		if l != nil {
			for _, f := range l.List {
				for range max(1, len(f.Names)) {
					b.WriteString(s.canon(f.Type) + ",")
				}
			}
		}
		b.WriteString(")")
	}
	fields(fn.Recv)
	fields(fn.Type.Params)
	fields(fn.Type.Results)
	return b.String()
}

// A Schema is the file Schema writes.
type Schema struct {
	Src []byte
	// Swappable are the functions both files declare alike, by key
	// ("runqput", "randomOrder.reset"), in the reference's order: the
	// values Selector may take.
	Swappable []string
}

// Make writes the schema of a learner's file (mine) against the
// reference's file (ref) of the same lesson: see the package's doc.
func Make(name string, mine, ref []byte) (*Schema, error) {
	m, err := parse(name, mine)
	if err != nil {
		return nil, fmt.Errorf("blame: your %s: %w", name, err)
	}
	r, err := parse(name, ref)
	if err != nil {
		return nil, fmt.Errorf("blame: the reference's %s: %w", name, err)
	}
	mineFns := map[string]*ast.FuncDecl{}
	mineNames := map[string]bool{} // package-level names the learner's file declares, but methods
	for _, d := range m.f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			mineFns[funcKey(d)] = d
			if d.Recv == nil {
				mineNames[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, n := range specNames(d) {
				mineNames[n] = true
			}
		}
	}

	sc := &Schema{}
	var mineOut, refOut, dispatchers []string
	swapped := map[*ast.FuncDecl]bool{}
	for _, d := range r.f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			key := funcKey(d)
			mf, ok := mineFns[key]
			switch {
			case !ok && (d.Recv != nil || !mineNames[d.Name.Name]):
				refOut = append(refOut, r.text(d)) // a helper the learner's file lacks
			case !ok || d.Type.TypeParams != nil || mf.Type.TypeParams != nil || r.signature(d) != m.signature(mf):
				// Declared otherwise by the learner: theirs stands.
			default:
				sc.Swappable = append(sc.Swappable, key)
				swapped[mf] = true
				refOut = append(refOut, renamed(r, d, "__kataRef"))
				dispatchers = append(dispatchers, dispatcher(r, d, key))
			}
		case *ast.GenDecl:
			if d.Tok == token.IMPORT {
				continue
			}
			if t := missingSpecs(r, d, mineNames); t != "" {
				refOut = append(refOut, t)
			}
		}
	}
	for _, d := range m.f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		if fn, ok := d.(*ast.FuncDecl); ok && swapped[fn] {
			mineOut = append(mineOut, renamed(m, fn, "__kataMine"))
			continue
		}
		mineOut = append(mineOut, m.text(d))
	}

	var body strings.Builder
	body.WriteString("\n// The learner's declarations.\n\n")
	body.WriteString(strings.Join(mineOut, "\n\n"))
	body.WriteString("\n\n// The reference's.\n\n")
	body.WriteString(strings.Join(refOut, "\n\n"))
	body.WriteString("\n\n// The dispatchers.\n\n")
	body.WriteString(strings.Join(dispatchers, "\n\n"))
	src := "package " + m.f.Name.Name + "\n\n// Made by kata's blame from a learner's " + name +
		" and the reference's: see internal/blame.\n" + imports(body.String(), m, r) + body.String() + "\n"
	out, err := format.Source([]byte(src))
	if err != nil {
		return nil, fmt.Errorf("blame: the schema of %s does not parse: %w", name, err)
	}
	sc.Src = out
	return sc, nil
}

// specNames are the names a declaration of types, constants or variables
// declares.
func specNames(d *ast.GenDecl) []string {
	var names []string
	for _, s := range d.Specs {
		switch s := s.(type) {
		case *ast.TypeSpec:
			names = append(names, s.Name.Name)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				names = append(names, n.Name)
			}
		}
	}
	return names
}

// missingSpecs is d with only the specs none of whose names the learner's
// file declares, or "" if there are none. A constant spec that repeats
// the one before it (iota) is kept only with it.
func missingSpecs(r *source, d *ast.GenDecl, mine map[string]bool) string {
	var keep []string
	for _, s := range d.Specs {
		names := specNames(&ast.GenDecl{Specs: []ast.Spec{s}})
		if slices.ContainsFunc(names, func(n string) bool { return mine[n] || n == "_" }) {
			if d.Tok == token.CONST {
				return "" // iota's count would change: all or nothing
			}
			continue
		}
		keep = append(keep, r.text(s))
	}
	if len(keep) == 0 {
		return ""
	}
	return d.Tok.String() + " (\n" + strings.Join(keep, "\n") + "\n)"
}

// renamed is fn's source with suffix after its name.
func renamed(s *source, fn *ast.FuncDecl, suffix string) string {
	t := s.text(fn)
	at := s.fset.Position(fn.Name.Pos()).Offset - s.fset.Position(fn.Pos()).Offset
	return t[:at] + fn.Name.Name + suffix + t[at+len(fn.Name.Name):]
}

// dispatcher writes the function that stands in fn's place: the
// reference's body when Selector is key, else the learner's.
func dispatcher(s *source, fn *ast.FuncDecl, key string) string {
	var b strings.Builder
	b.WriteString("func ")
	call := fn.Name.Name
	if fn.Recv != nil {
		fmt.Fprintf(&b, "(kataRecv %s) ", s.canon(fn.Recv.List[0].Type))
		call = "kataRecv." + call
	}
	var params, args []string
	for _, f := range fn.Type.Params.List {
		for range max(1, len(f.Names)) {
			name := fmt.Sprintf("kataArg%d", len(params))
			params = append(params, name+" "+s.canon(f.Type))
			if _, variadic := f.Type.(*ast.Ellipsis); variadic {
				name += "..."
			}
			args = append(args, name)
		}
	}
	fmt.Fprintf(&b, "%s(%s)", fn.Name.Name, strings.Join(params, ", "))
	ret := "return "
	if fn.Type.Results != nil && len(fn.Type.Results.List) > 0 {
		var results []string
		for _, f := range fn.Type.Results.List {
			for range max(1, len(f.Names)) {
				results = append(results, s.canon(f.Type))
			}
		}
		fmt.Fprintf(&b, " (%s)", strings.Join(results, ", "))
	} else {
		ret = ""
	}
	a := strings.Join(args, ", ")
	fmt.Fprintf(&b, " {\n\tif %s == %s {\n\t\t%s%s__kataRef(%s)\n", Selector, strconv.Quote(key), ret, call, a)
	if ret == "" {
		b.WriteString("\t\treturn\n")
	}
	fmt.Fprintf(&b, "\t}\n\t%s%s__kataMine(%s)\n}", ret, call, a)
	return b.String()
}

// imports is the import declaration of the schema whose declarations are
// body: every import of either file that body uses, by the name it is
// used by (the learner's first, where both import a path).
func imports(body string, files ...*source) string {
	var specs []*ast.ImportSpec
	for _, s := range files {
		specs = append(specs, s.f.Imports...)
	}
	var lines []string
	for _, spec := range importuse.Used(specs, []byte(body)) {
		lines = append(lines, "\t"+importuse.Name(spec)+" "+spec.Path.Value)
	}
	if len(lines) == 0 {
		return ""
	}
	return "\nimport (\n" + strings.Join(lines, "\n") + "\n)\n"
}
