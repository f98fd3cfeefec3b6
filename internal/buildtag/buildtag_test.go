package buildtag

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"runtime"
	"slices"
	"strings"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
)

func TestMatch(t *testing.T) {
	other := "windows"
	if runtime.GOOS == "windows" {
		other = "linux"
	}
	cases := []struct {
		name, src  string
		plain, tag bool
	}{
		{"a.go", "package p\n", true, true},
		{"a.go", "//go:build kata_interleave\n\npackage p\n", false, true},
		{"a.go", "//go:build !kata_interleave\n\npackage p\n", true, false},
		{"a_" + runtime.GOOS + ".go", "package p\n", true, true},
		{"a_" + other + ".go", "package p\n", false, false},
		{"a.go", "//go:build " + other + " && kata_interleave\n\npackage p\n", false, false},
	}
	for _, c := range cases {
		for _, tagged := range []bool{false, true} {
			got, err := Match(c.name, []byte(c.src), tagged)
			want := c.plain
			if tagged {
				want = c.tag
			}
			if err != nil || got != want {
				t.Errorf("Match(%s, %q, %v) = %v, %v; want %v", c.name, c.src, tagged, got, err, want)
			}
		}
	}
}

// TestReferenceBuilds: the reference's hook and setter are in the tagged
// build only, and every other file is in both (what the vetter and the
// mutants' check rely on).
func TestReferenceBuilds(t *testing.T) {
	names, err := fs.Glob(gmpkata.Sources, "solutions/*.go")
	if err != nil {
		t.Fatal(err)
	}
	var onlyTagged, onlyPlain []string
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(gmpkata.Sources, name)
		if err != nil {
			t.Fatal(err)
		}
		plain, err1 := Match(name, src, false)
		tagged, err2 := Match(name, src, true)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		switch {
		case tagged && !plain:
			onlyTagged = append(onlyTagged, name)
		case plain && !tagged:
			onlyPlain = append(onlyPlain, name)
		}
	}
	if !slices.Equal(onlyTagged, []string{"solutions/interleave.go"}) || !slices.Equal(onlyPlain, []string{"solutions/nointerleave.go"}) {
		t.Errorf("tagged-only files %v, untagged-only %v; want [solutions/interleave.go] and [solutions/nointerleave.go]", onlyTagged, onlyPlain)
	}
}

// TestSameAPIBothBuilds: a lesson file that compiles in one build compiles
// in the other. A method the files of one build only declare, the other
// build's file declares too, on the same type (sched.lock's Lock, Unlock
// and TryLock: scheduling points in the tagged build, sync.Mutex's in the
// other), so that no type has a method in one build and not the other;
// and every name the untagged build alone declares the tagged one declares
// too (a learner may use it). What the tagged build alone declares (the
// hook) the vetter keeps from lesson files.
func TestSameAPIBothBuilds(t *testing.T) {
	tagged, taggedMethods := declared(t, "solutions/interleave.go")
	plain, plainMethods := declared(t, "solutions/nointerleave.go")
	for name := range plain {
		if !tagged[name] {
			t.Errorf("nointerleave.go declares %s and interleave.go does not: a lesson file using it would not compile in the hidden tests' build", name)
		}
	}
	for m := range taggedMethods {
		if !plainMethods[m] {
			t.Errorf("interleave.go declares the method %s and nointerleave.go does not: it would exist in the hidden tests' build only; declare it in both, or in atomics.go", m)
		}
	}
	for m := range plainMethods {
		if !taggedMethods[m] {
			t.Errorf("nointerleave.go declares the method %s and interleave.go does not: it would exist outside the hidden tests' build only; declare it in both, or in atomics.go", m)
		}
	}
}

// declared is the package-level names file declares, and its methods as
// "Type.Method".
func declared(t *testing.T, file string) (names, methods map[string]bool) {
	t.Helper()
	src, err := fs.ReadFile(gmpkata.Sources, file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	names, methods = map[string]bool{}, map[string]bool{}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				recv := d.Recv.List[0].Type
				if star, ok := recv.(*ast.StarExpr); ok {
					recv = star.X
				}
				if id, ok := recv.(*ast.Ident); ok {
					methods[id.Name+"."+d.Name.Name] = true
				} else {
					t.Errorf("%s: the method %s has a receiver this test cannot name", file, d.Name.Name)
				}
				continue
			}
			names[d.Name.Name] = true
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch spec := spec.(type) {
				case *ast.ValueSpec:
					for _, n := range spec.Names {
						names[n.Name] = true
					}
				case *ast.TypeSpec:
					names[spec.Name.Name] = true
				}
			}
		}
	}
	return names, methods
}
