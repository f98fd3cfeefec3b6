package bench

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// A benchmark found in a lesson's bench files.
type benchFunc struct {
	name  string
	about string
}

// lessonBenchmarks lists l's benchmark functions, in the order of their
// files and lines, with the first sentence of their doc comments.
func lessonBenchmarks(l *lessons.Lesson) ([]benchFunc, error) {
	if l.Bench == nil {
		return nil, fmt.Errorf("bench: lesson %s has no benchmarks", l.ID)
	}
	names, err := fs.Glob(l.Bench, "*_test.go")
	if err != nil {
		return nil, err
	}
	var out []benchFunc
	fset := token.NewFileSet()
	for _, name := range names {
		src, err := fs.ReadFile(l.Bench, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("bench: benchmarks of %s: %w", l.ID, err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "BenchmarkL"+l.ID[:2]) {
				continue
			}
			out = append(out, benchFunc{name: fn.Name.Name, about: firstSentence(fn.Doc.Text(), fn.Name.Name)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("bench: lesson %s has no BenchmarkL%s functions", l.ID, l.ID[:2])
	}
	return out, nil
}

// firstSentence is a doc comment's first sentence, without the "Name:"
// it starts with.
func firstSentence(doc, name string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	doc = strings.TrimSpace(strings.TrimPrefix(doc, name+":"))
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	return strings.TrimSuffix(doc, ".")
}

// writeFS copies the files of fsys matching pattern into dir and returns
// them by base name.
func writeFS(fsys fs.FS, pattern, dir string) (map[string]string, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, filepath.Base(name))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		out[filepath.Base(name)] = p
	}
	return out, nil
}
