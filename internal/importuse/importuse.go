package importuse

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"
)

// Name is the name by which code refers to the package spec imports.
func Name(spec *ast.ImportSpec) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	p, _ := strconv.Unquote(spec.Path.Value)
	return PathName(p)
}

// PathName is the name a package imported by path p goes by when the
// import does not name it: the last element of p, or the one before a
// major version (math/rand/v2 is rand).
func PathName(p string) string {
	base := path.Base(p)
	if dir := path.Dir(p); dir != "." && len(base) > 1 && base[0] == 'v' && strings.Trim(base[1:], "0123456789") == "" {
		return path.Base(dir)
	}
	return base
}

// Used returns those of specs that code (declarations, as in a file after
// its package clause) refers to, in their order, each name once (the first
// spec that gives it); blank and dot imports are always used. If code does
// not parse, it returns nil: the compiler of the generated file says why.
func Used(specs []*ast.ImportSpec, code []byte) []*ast.ImportSpec {
	f, err := parser.ParseFile(token.NewFileSet(), "", append([]byte("package p\n"), code...), parser.SkipObjectResolution)
	if err != nil {
		return nil
	}
	refs := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				refs[id.Name] = true
			}
		}
		return true
	})
	var out []*ast.ImportSpec
	seen := map[string]bool{}
	for _, spec := range specs {
		name := Name(spec)
		if seen[name] || !(refs[name] || name == "_" || name == ".") {
			continue
		}
		seen[name] = true
		out = append(out, spec)
	}
	return out
}
