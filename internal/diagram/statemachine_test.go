package diagram

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A transition found in the reference's code.
type found struct{ fn, from, to string }

// scanReference finds every status change in solutions/: casgstatus calls
// and CompareAndSwap/Store on a status field, with the function they are
// in, and lists every function declared.
func scanReference(t *testing.T) (gs, ps []found, funcs map[string]bool) {
	files, err := filepath.Glob("../../solutions/*.go")
	require.NoError(t, err)
	funcs = map[string]bool{}
	fset := token.NewFileSet()
	name := func(e ast.Expr) string {
		if id, ok := e.(*ast.Ident); ok {
			return id.Name
		}
		return "?"
	}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, file, nil, 0)
		require.NoError(t, err)
		for _, decl := range f.Decls {
			fd, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			funcs[fd.Name.Name] = true
			ast.Inspect(fd, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				switch fn := call.Fun.(type) {
				case *ast.Ident:
					if fn.Name == "casgstatus" && len(call.Args) == 3 {
						gs = append(gs, found{fd.Name.Name, name(call.Args[1]), name(call.Args[2])})
					}
				case *ast.SelectorExpr:
					field, ok := fn.X.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					switch {
					case field.Sel.Name == "atomicstatus" && fn.Sel.Name == "CompareAndSwap" && fd.Name.Name != "casgstatus":
						gs = append(gs, found{fd.Name.Name, name(call.Args[0]), name(call.Args[1])})
					case field.Sel.Name == "status" && fn.Sel.Name == "CompareAndSwap":
						ps = append(ps, found{fd.Name.Name, "", name(call.Args[1])})
					case field.Sel.Name == "status" && fn.Sel.Name == "Store":
						ps = append(ps, found{fd.Name.Name, "", name(call.Args[0])})
					}
				}
				return true
			})
		}
	}
	require.NotEmpty(t, gs, "found no casgstatus calls: has the reference changed shape?")
	require.NotEmpty(t, ps, "found no P status changes: has the reference changed shape?")
	return gs, ps, funcs
}

// TestGMachineIsTheReferences checks the G picture edge for edge against
// the reference's casgstatus calls: nothing missing, nothing invented.
func TestGMachineIsTheReferences(t *testing.T) {
	gs, _, _ := scanReference(t)
	var inCode, inPicture []string
	for _, f := range gs {
		inCode = append(inCode, f.from+" -> "+f.to+" by "+f.fn)
	}
	for _, e := range Machines["g"].Edges {
		for _, fn := range e.Funcs {
			inPicture = append(inPicture, e.From+" -> "+e.To+" by "+fn)
		}
	}
	slices.Sort(inCode)
	inCode = slices.Compact(inCode)
	slices.Sort(inPicture)
	require.Equal(t, inCode, inPicture, "the G state machine picture must match the reference's casgstatus calls")
}

// TestPMachineIsTheReferences checks that every P status change in the
// reference is drawn, and every drawn one is made by the function named.
func TestPMachineIsTheReferences(t *testing.T) {
	_, ps, _ := scanReference(t)
	drawn := map[string]bool{}
	for _, e := range Machines["p"].Edges {
		for _, fn := range e.Funcs {
			drawn[fn+" -> "+e.To] = true
		}
	}
	made := map[string]bool{}
	for _, f := range ps {
		made[f.fn+" -> "+f.to] = true
		require.True(t, drawn[f.fn+" -> "+f.to], "the reference's %s sets a P to %s, but the P picture has no such arrow", f.fn, f.to)
	}
	for k := range drawn {
		require.True(t, made[k], "the P picture has %s, but the reference's function sets no such status", k)
	}
}

// TestMMachineNamesRealFunctions: the M states are not a field of the
// reference, but every function on an arrow must exist.
func TestMMachineNamesRealFunctions(t *testing.T) {
	_, _, funcs := scanReference(t)
	for _, m := range Machines {
		states := map[string]bool{}
		for _, s := range m.States {
			states[s.Name] = true
		}
		for _, e := range m.Edges {
			require.True(t, states[e.From] && states[e.To], "%s machine: arrow %s -> %s between unknown states", m.Name, e.From, e.To)
			for _, fn := range e.Funcs {
				require.True(t, funcs[fn], "%s machine: %s -> %s names %s, which the reference does not declare", m.Name, e.From, e.To, fn)
			}
		}
	}
}
