package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
)

// FromVariants makes a File of src whose mutants are whole-file variants
// of it written by hand (the lessons' testdata/mutants, applied), so that
// Schemata compiles all of them into one file, as it does the machine's.
// Mutant i+1 is variants[i].
//
// A variant fits when it differs from src only in the bodies of functions
// src has, and in functions it adds: src's declarations in the same
// order, each one outside a function body the same to the byte (imports,
// types, constants, every signature), with plain functions (not methods,
// not generic) of new names between them, a mistake's helpers. The added
// functions go into the schemata as they are, so two variants that add a
// function of the same name cannot both fit: the second is built alone.
// fits[i] says whether variants[i] fit; one that does not (it adds an
// import, a type, a variable, a field, or changes a signature) must be
// built on its own. A variant that changes no body at all fits with no
// edit: it is src; a nil one does not fit.
func FromVariants(name string, src []byte, variants [][]byte) (f *File, fits []bool, err error) {
	fset := token.NewFileSet()
	ref, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, nil, fmt.Errorf("mutate: %w", err)
	}
	f = &File{Name: name, Src: src, fset: fset, ast: ref}
	taken := topLevelNames(ref)
	fits = make([]bool, len(variants))
	for i, v := range variants {
		vset := token.NewFileSet()
		va, err := parser.ParseFile(vset, name, v, parser.ParseComments)
		if err != nil || va.Name.Name != ref.Name.Name {
			continue
		}
		aligned, added, ok := alignDecls(fset, src, ref, vset, v, va)
		if !ok || slices.ContainsFunc(added, func(fn *ast.FuncDecl) bool { return taken[fn.Name.Name] }) {
			continue
		}
		var ms []*Mutant
		fit := true
		for k, d := range ref.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			vfn := aligned[k].(*ast.FuncDecl) // the shells match: so do the kinds
			body, vbody := text(fset, src, fn.Body), text(vset, v, vfn.Body)
			if bytes.Equal(body, vbody) {
				continue
			}
			if fn.Type.TypeParams != nil {
				fit = false // a generic function's dispatcher is not written
				break
			}
			start := fset.Position(fn.Body.Pos()).Offset
			ms = append(ms, &Mutant{ID: i + 1, Key: fmt.Sprintf("variant/%d", i+1), Func: funcName(fn),
				Op: "variant", Line: fset.Position(fn.Pos()).Line, fn: fn,
				edits: []edit{{start, start + len(body), string(vbody)}}})
		}
		if !fit {
			continue
		}
		for _, fn := range added {
			taken[fn.Name.Name] = true
			from := fn.Pos()
			if fn.Doc != nil {
				from = fn.Doc.Pos()
			}
			f.added = append(f.added, addedFunc{id: i + 1, text: string(v[vset.Position(from).Offset:vset.Position(fn.End()).Offset])})
		}
		f.Mutants = append(f.Mutants, ms...)
		fits[i] = true
	}
	return f, fits, nil
}

// An addedFunc is a function a variant adds, and the variant's ID.
type addedFunc struct {
	id   int
	text string // its doc comment and declaration
}

// alignDecls matches variant va's declarations to ref's: aligned[k] is
// va's declaration in the place of ref.Decls[k], the same outside any
// function body; added, va's plain functions of its own between them. ok
// is false if va has a declaration of another kind, or lacks one of ref's.
func alignDecls(fset *token.FileSet, src []byte, ref *ast.File, vset *token.FileSet, v []byte, va *ast.File) (aligned []ast.Decl, added []*ast.FuncDecl, ok bool) {
	for _, d := range va.Decls {
		if k := len(aligned); k < len(ref.Decls) && bytes.Equal(declShell(fset, src, ref.Decls[k]), declShell(vset, v, d)) {
			aligned = append(aligned, d)
			continue
		}
		fn, isFunc := d.(*ast.FuncDecl)
		if !isFunc || fn.Body == nil || fn.Recv != nil || fn.Type.TypeParams != nil || slices.ContainsFunc(added, func(a *ast.FuncDecl) bool { return a.Name.Name == fn.Name.Name }) {
			return nil, nil, false
		}
		added = append(added, fn)
	}
	return aligned, added, len(aligned) == len(ref.Decls)
}

// declShell is declaration d's source with a function's body taken out:
// what a variant must keep unchanged to fit.
func declShell(fset *token.FileSet, src []byte, d ast.Decl) []byte {
	if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
		return append(slices.Clip(src[fset.Position(fn.Pos()).Offset:fset.Position(fn.Body.Pos()).Offset]), "{}"...)
	}
	return text(fset, src, d)
}

// topLevelNames is the set of the names f declares at the top level.
func topLevelNames(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				names[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					for _, n := range s.Names {
						names[n.Name] = true
					}
				case *ast.TypeSpec:
					names[s.Name.Name] = true
				}
			}
		}
	}
	return names
}

// text is n's source.
func text(fset *token.FileSet, src []byte, n ast.Node) []byte {
	return src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset]
}
