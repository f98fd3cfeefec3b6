package mutate

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
)

// A Package is the rest of a mutated file's package: what a mutant must
// type-check with.
type Package struct {
	fset  *token.FileSet
	files []*ast.File
	imp   types.Importer
}

// NewPackage parses the package's other files (name → source).
func NewPackage(others map[string][]byte) (*Package, error) {
	p := &Package{fset: token.NewFileSet()}
	p.imp = importer.ForCompiler(p.fset, "source", nil)
	names := make([]string, 0, len(others))
	for name := range others {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f, err := parser.ParseFile(p.fset, name, others[name], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("mutate: %w", err)
		}
		p.files = append(p.files, f)
	}
	return p, nil
}

// Compiles type-checks the package with src as the file name.
func (p *Package) Compiles(name string, src []byte) error {
	f, err := parser.ParseFile(p.fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return err
	}
	conf := types.Config{Importer: p.imp, Error: func(error) {}}
	_, err = conf.Check("sched", p.fset, append(slices.Clone(p.files), f), nil)
	return err
}

// Check drops the mutants of f that do not type-check in p, and numbers
// the rest from 1 again. It returns how many it dropped.
func (p *Package) Check(f *File) (dropped int, err error) {
	if err := p.Compiles(f.Name, f.Src); err != nil {
		return 0, fmt.Errorf("mutate: %s does not type-check as it is: %w", f.Name, err)
	}
	var keep []*Mutant
	for _, m := range f.Mutants {
		if p.Compiles(f.Name, f.Apply(m)) == nil {
			keep = append(keep, m)
		}
	}
	dropped = len(f.Mutants) - len(keep)
	f.Mutants = keep
	for i, m := range f.Mutants {
		m.ID = i + 1
	}
	return dropped, nil
}
