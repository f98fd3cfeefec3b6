package mutate

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
)

// FromVariants makes a File of src whose mutants are whole-file variants
// of it written by hand (the lessons' testdata/mutants, applied), so that
// Schemata compiles all of them into one file, as it does the machine's.
// Mutant i+1 is variants[i].
//
// A variant fits when it differs from src only in the bodies of functions
// src has: the same declarations in the same order, every one outside a
// function body byte for byte the same (imports, types, constants, every
// signature). fits[i] says whether variants[i] did; one that does not
// (it adds a helper, an import, a field) must be built on its own. A
// variant that changes no body at all fits with no edit: it is src; a nil
// one does not fit.
func FromVariants(name string, src []byte, variants [][]byte) (f *File, fits []bool, err error) {
	fset := token.NewFileSet()
	ref, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, nil, fmt.Errorf("mutate: %w", err)
	}
	f = &File{Name: name, Src: src, fset: fset, ast: ref}
	refShell := shell(fset, ref, src)
	fits = make([]bool, len(variants))
	for i, v := range variants {
		vset := token.NewFileSet()
		va, err := parser.ParseFile(vset, name, v, parser.ParseComments)
		if err != nil || !bytes.Equal(shell(vset, va, v), refShell) || len(va.Decls) != len(ref.Decls) {
			continue
		}
		var ms []*Mutant
		fit := true
		for k, d := range ref.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			vfn := va.Decls[k].(*ast.FuncDecl) // the shells match: so do the kinds
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
		if fit {
			f.Mutants = append(f.Mutants, ms...)
			fits[i] = true
		}
	}
	return f, fits, nil
}

// shell is a file's source with every function body taken out: what a
// variant must keep unchanged to fit.
func shell(fset *token.FileSet, f *ast.File, src []byte) []byte {
	var b bytes.Buffer
	at := 0
	for _, d := range f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
			start := fset.Position(fn.Body.Pos()).Offset
			b.Write(src[at:start])
			b.WriteString("{}")
			at = fset.Position(fn.Body.End()).Offset
		}
	}
	b.Write(src[at:])
	return b.Bytes()
}

// text is n's source.
func text(fset *token.FileSet, src []byte, n ast.Node) []byte {
	return src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset]
}
