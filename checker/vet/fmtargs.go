package vet

import (
	"go/ast"
	"go/token"
	"go/types"
)

// Rule 16, fmt-args: a lesson file gives fmt's functions plain values only
// (numbers, strings, booleans, and slices, arrays or maps of them), and
// only calls them, never keeps them as func values. fmt prints anything
// else whole, by reflection: the fields the lesson does not list too. A
// twenty-first red team's file printed &pp.sched.cfg, read the P count,
// the seed and which Usleep the tests had installed, and so told a
// controlled run from a real one. A correct file prints the fields it
// needs (a G's goid, a count, a status's name) for a panic's message.
//
// fmt is the one reader by reflection a lesson file may import (reflect
// may not be); an interface value is refused too, as it may hold anything.
// Two kinds of value hold only the file's own data, and pass: a struct
// whose fields the file itself declares, each plain (a span{head, tail
// uint32} with a String method, printed as fmt prints it: a twenty-ninth
// red team's correct file that did so scored 0); and one of the file's
// sentinel errors (sentinelError), whose value is errors.New of a
// constant (wrapped with %w, as Go code does).
func (c *fileCheck) fmtArgs() {
	sentinels := c.sentinelErrors()
	own := func(pos token.Pos) bool { return c.f.FileStart <= pos && pos < c.f.FileEnd }
	direct := map[ast.Expr]bool{} // the Fun of every call of a fmt function
	ast.Inspect(c.f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || !c.isFmtFunc(call.Fun) {
			return true
		}
		direct[ast.Unparen(call.Fun)] = true
		for i, arg := range call.Args {
			t := c.info.TypeOf(arg)
			if i == 0 && c.printsTo(call) && builder(t) {
				continue // Fprint's writer: written to, never printed
			}
			if id, ok := ast.Unparen(arg).(*ast.Ident); ok && sentinels[c.info.Uses[id]] {
				continue
			}
			if t != nil && !plainOwn(t, 0, own) {
				c.report(arg.Pos(), RuleFmtArgs, "gives %s (%s) to fmt, which would print it whole by reflection, fields the lesson does not list too; give fmt only numbers, strings and booleans (a G's goid, a count)",
					types.ExprString(arg), types.TypeString(t, func(p *types.Package) string { return p.Name() }))
			}
		}
		return true
	})
	ast.Inspect(c.f, func(n ast.Node) bool {
		e, ok := n.(ast.Expr)
		switch {
		case !ok:
			return true
		case direct[e]:
			return false // the Sprint of a call fmt.Sprint(...) is no func value
		case c.isFmtFunc(e):
			c.report(e.Pos(), RuleFmtArgs, "keeps %s as a func value: call fmt's functions directly, with numbers, strings and booleans", types.ExprString(e))
			return false
		}
		return true
	})
}

// isFmtFunc reports whether e names a function or method of package fmt.
func (c *fileCheck) isFmtFunc(e ast.Expr) bool {
	var id *ast.Ident
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		id = e
	case *ast.SelectorExpr:
		id = e.Sel
	default:
		return false
	}
	fn, ok := c.info.Uses[id].(*types.Func)
	return ok && fn.Pkg() != nil && fn.Pkg().Path() == "fmt"
}

// printsTo reports whether call is fmt's Fprint, Fprintf or Fprintln,
// whose first argument is the writer the text goes to.
func (c *fileCheck) printsTo(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	switch id.Sel.Name {
	case "Fprint", "Fprintf", "Fprintln":
		return c.isFmtFunc(call.Fun)
	}
	return false
}

// builder reports whether t is *strings.Builder or *bytes.Buffer: a
// writer of the file's own that fmt writes text into (the reference's
// checkdead.go builds its message so), which reads nothing back.
func builder(t types.Type) bool {
	p, ok := types.Unalias(t).(*types.Pointer)
	if !ok {
		return false
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil {
		return false
	}
	switch n.Obj().Pkg().Path() + "." + n.Obj().Name() {
	case "strings.Builder", "bytes.Buffer":
		return true
	}
	return false
}

// sentinelErrors returns the file's sentinel errors (sentinelError).
func (c *fileCheck) sentinelErrors() map[types.Object]bool {
	set := map[types.Object]bool{}
	for _, d := range c.f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			if vs := s.(*ast.ValueSpec); c.sentinelError(vs) {
				set[c.info.Defs[vs.Names[0]]] = true
			}
		}
	}
	return set
}

// plainOwn is plain, and lets through a struct too whose fields are all
// declared where own says (in the lesson file: not a type of the
// reference's, whose fields the lesson may not list) and are plainOwn.
func plainOwn(t types.Type, depth int, own func(token.Pos) bool) bool {
	if depth > 4 {
		return false
	}
	if st, ok := types.Unalias(t).Underlying().(*types.Struct); ok {
		for f := range st.Fields() {
			if !own(f.Pos()) || !plainOwn(f.Type(), depth+1, own) {
				return false
			}
		}
		return true
	}
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Slice:
		return plainOwn(u.Elem(), depth+1, own)
	case *types.Array:
		return plainOwn(u.Elem(), depth+1, own)
	case *types.Map:
		return plainOwn(u.Key(), depth+1, own) && plainOwn(u.Elem(), depth+1, own)
	}
	return plain(t, depth)
}

// plain reports whether fmt prints a value of type t without reaching
// through a pointer, an interface or a struct.
func plain(t types.Type, depth int) bool {
	if depth > 4 {
		return false
	}
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		// A type parameter is as plain as every type its constraint
		// allows (describe[N ~uint32 | ~int64]); one that allows any
		// type is not.
		terms := constraintTerms(tp)
		for _, term := range terms {
			if !plain(term, depth+1) {
				return false
			}
		}
		return len(terms) > 0
	}
	switch u := types.Unalias(t).Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.UnsafePointer && u.Kind() != types.UntypedNil
	case *types.Slice:
		return plain(u.Elem(), depth+1)
	case *types.Array:
		return plain(u.Elem(), depth+1)
	case *types.Map:
		return plain(u.Key(), depth+1) && plain(u.Elem(), depth+1)
	}
	return false
}
