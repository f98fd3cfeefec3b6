package lessons

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strconv"
	"strings"
)

// givenDirective marks a function of a lesson file that the learner is
// given rather than asked to write (a trivial helper the rest of the
// scheduler needs): Stub leaves its body alone.
const givenDirective = "//kata:given"

// Stub returns the skeleton of a lesson-owned source file: the body of every
// function becomes a TODO and a panic("not implemented: NAME"), except the
// functions marked //kata:given. Declarations, doc comments and types stay,
// so the skeleton compiles and documents what to write; imports that only
// the bodies used are dropped.
func Stub(filename string, src []byte, lessonID string) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("lesson: stub %s: %w", filename, err)
	}
	type cut struct {
		from, to int // byte offsets of the body's braces
		name     string
	}
	var cuts []cut
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil || isGiven(fn) {
			continue
		}
		cuts = append(cuts, cut{
			from: fset.Position(fn.Body.Lbrace).Offset,
			to:   fset.Position(fn.Body.Rbrace).Offset,
			name: fn.Name.Name,
		})
	}
	if len(cuts) == 0 {
		return nil, fmt.Errorf("lesson: stub %s: no function to stub", filename)
	}
	var out bytes.Buffer
	last := 0
	for _, c := range cuts {
		out.Write(src[last : c.from+1])
		fmt.Fprintf(&out, "\n\t// TODO(%s): write %s as its comment above says.\n\t// Stuck? Run: kata hint %s\n\tpanic(\"not implemented: %s\")\n",
			lessonID, c.name, lessonID, c.name)
		last = c.to
	}
	out.Write(src[last:])
	stubbed, err := dropUnusedImports(filename, out.Bytes())
	if err != nil {
		return nil, err
	}
	return format.Source(stubbed)
}

func isGiven(fn *ast.FuncDecl) bool {
	if fn.Doc == nil {
		return false
	}
	return slices.ContainsFunc(fn.Doc.List, func(c *ast.Comment) bool {
		return strings.TrimSpace(c.Text) == givenDirective
	})
}

// dropUnusedImports removes the import lines of src whose package name is
// no longer referred to.
func dropUnusedImports(filename string, src []byte) ([]byte, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filename, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("lesson: stub %s: the stubbed file does not parse: %w", filename, err)
	}
	used := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				used[id.Name] = true
			}
		}
		return true
	})
	lines := strings.SplitAfter(string(src), "\n")
	drop := map[int]bool{}
	for _, spec := range f.Imports {
		p, _ := strconv.Unquote(spec.Path.Value)
		name := path.Base(p)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		if name == "_" || name == "." || used[name] {
			continue
		}
		drop[fset.Position(spec.Pos()).Line-1] = true
	}
	var out strings.Builder
	for i, l := range lines {
		if !drop[i] {
			out.WriteString(l)
		}
	}
	// An import declaration with one spec on its line ("import "x"") goes
	// with the spec; an emptied block "import ()" is removed by parsing
	// again.
	result := out.String()
	result = strings.Replace(result, "import (\n)\n", "", 1)
	return []byte(result), nil
}
