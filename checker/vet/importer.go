package vet

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// An importer gives the type checker the standard library's packages,
// type-checked from their sources, shallowly: a package of the set it
// loads is checked with the packages of that set it imports, and empty
// stand-ins for the others (their names resolve to nothing; the errors
// that makes are ignored). It also skips function bodies. What the vetter
// needs of a package is its API, and that of the packages a lesson file
// may import is whole (TestAllowedAPIsAreWhole); the rest costs time:
// checking the standard library deeply from source takes over a second,
// and runtime alone a fifth of one.
//
// Once New has loaded the set, an importer is read-only: a path outside
// the set gets a fresh empty package, never stored.
type importer struct {
	ctx    build.Context
	root   string
	fset   *token.FileSet
	load   map[string]bool // what to load from source
	pkgs   map[string]*types.Package
	sizes  types.Sizes
	frozen bool
	err    error // the first package that could not be loaded
}

func newImporter(fset *token.FileSet, goroot string, load map[string]bool, sizes types.Sizes) (*importer, error) {
	if goroot == "" {
		var err error
		if goroot, err = findGOROOT(); err != nil {
			return nil, err
		}
	}
	ctx := build.Default
	ctx.GOROOT = goroot
	ctx.GOPATH = ""
	ctx.CgoEnabled = false // no package the vetter loads needs cgo
	return &importer{ctx: ctx, root: goroot, fset: fset, load: load, pkgs: map[string]*types.Package{}, sizes: sizes}, nil
}

// findGOROOT is the GOROOT kata was built with (or $GOROOT), if it is
// there, or else the go command's. The API of the packages the vetter
// loads does not change between the Go releases kata accepts.
func findGOROOT() (string, error) {
	if root := build.Default.GOROOT; root != "" && isDir(filepath.Join(root, "src", "fmt")) {
		return root, nil
	}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		if root := strings.TrimSpace(string(out)); root != "" && isDir(filepath.Join(root, "src", "fmt")) {
			return root, nil
		}
	}
	return "", fmt.Errorf("vet: cannot find the Go standard library's sources (is the go command on PATH?)")
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func (im *importer) Import(path string) (*types.Package, error) {
	if path == "unsafe" {
		return types.Unsafe, nil
	}
	if p, ok := im.pkgs[path]; ok {
		return p, nil
	}
	if im.frozen || !im.load[path] {
		p := types.NewPackage(path, pathBase(path))
		p.MarkComplete()
		if !im.frozen {
			im.pkgs[path] = p
		}
		return p, nil
	}
	p, err := im.check(path)
	if err != nil {
		if im.err == nil {
			im.err = err
		}
		p = types.NewPackage(path, pathBase(path))
		p.MarkComplete()
	}
	im.pkgs[path] = p
	return p, nil
}

// check type-checks a standard package from its sources, without
// function bodies.
func (im *importer) check(path string) (*types.Package, error) {
	bp, err := im.ctx.ImportDir(filepath.Join(im.root, "src", filepath.FromSlash(path)), 0)
	if err != nil {
		return nil, fmt.Errorf("vet: reading the standard library's %s: %w", path, err)
	}
	var files []*ast.File
	for _, name := range bp.GoFiles {
		f, err := parser.ParseFile(im.fset, filepath.Join(bp.Dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("vet: reading the standard library's %s: %w", path, err)
		}
		stripTables(f)
		files = append(files, f)
	}
	conf := types.Config{Importer: im, Error: func(error) {}, IgnoreFuncBodies: true, FakeImportC: true, Sizes: im.sizes}
	p, _ := conf.Check(path, im.fset, files, nil)
	return p, nil
}

// stripTables drops the elements of the composite literals that
// initialise f's package-level variables, where that does not change
// their type (not [...]T{...}, whose length is its elements'): the API
// is their types, and checking the elements was most of the time loading
// unicode (its tables), strconv and math/rand/v2 took.
func stripTables(f *ast.File) {
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				ast.Inspect(v, func(n ast.Node) bool {
					lit, ok := n.(*ast.CompositeLit)
					if !ok {
						return true
					}
					if at, ok := lit.Type.(*ast.ArrayType); ok {
						if _, ok := at.Len.(*ast.Ellipsis); ok {
							return true // its length is its elements'
						}
					}
					lit.Elts = nil
					return false
				})
			}
		}
	}
}

// pathBase is the last element of an import path.
func pathBase(path string) string {
	if i := strings.LastIndex(path, "/"); i >= 0 {
		return path[i+1:]
	}
	return path
}
