package vet

import (
	"go/ast"
	"go/types"
	"slices"
)

// Rule 17, plain-atomic: sync/atomic's operations reach the reference's
// memory only as the lesson's own file does. The course's atomics (the
// ring's indexes and slots, runnext, nmspinning, the statuses...) are
// scheduling points of the hidden tests: a controlled scheduler may
// switch threads at each. sync/atomic's are not, so two threads meet on
// one only on real CPUs. A twenty-second red team used that twice: a
// "lock" of load-then-Or on a spare bit of sched.idlepMask, which no
// controlled run can split, around a racy claim (lesson 05, 100 for a
// file that earns 87); and marks counted into a G's goid with
// atomic.AddInt64, which told a controlled run (never a second thread
// there) from a real one, and ran a mistake only on real threads
// (lessons 01 and 02, 100 for 81 and 89). So:
//
//   - sync/atomic's functions (atomic.AddInt64(&x, 1), LoadUint32...),
//     which make any word of memory atomic, are refused: a correct file
//     uses the methods of the fields the lesson lists;
//   - a writing method of a sync/atomic type (Store, Add, And, Or, Swap,
//     CompareAndSwap) is refused on a field of the reference's unless the
//     lesson's API lists the field as written ("T.f.write":
//     generated where the lesson's reference, alternates or mutants write
//     it), and on memory the file cannot show is its own (a pointer, a
//     slice's element, a parameter); an atomic value the file declares
//     itself (var claimed atomic.Bool) is its own to write.
//
// Every atomic the lessons' APIs list is now one of the course's (a
// scheduling point: solutions/atomics.go), so this rule guards what is
// left: sync/atomic on plain words, and the runtime's own counters.
func (c *fileCheck) plainAtomics() {
	ast.Inspect(c.f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.Ident:
			if fn, ok := c.info.Uses[x].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "sync/atomic" && fn.Type().(*types.Signature).Recv() == nil {
				c.report(x.Pos(), RulePlainAtomic, "uses atomic.%s, which makes any word atomic outside the hidden tests' scheduling points (two threads could meet there only on real CPUs): use the atomic fields the lesson lists, through their methods", fn.Name())
			}
		case *ast.SelectorExpr:
			sel, ok := c.info.Selections[x]
			if !ok || !writesAtomic(sel.Obj()) {
				return true
			}
			if sel.Kind() == types.MethodExpr {
				c.report(x.Sel.Pos(), RulePlainAtomic, "uses %s, a method expression of sync/atomic's, which writes whatever it is handed: call the method on the atomic the lesson lists", types.ExprString(x))
				return true
			}
			if sel.Kind() != types.MethodVal {
				return true
			}
			if what, ok := c.atomicTarget(x.X); !ok || throughEmbeddedPointer(sel) {
				c.report(x.Sel.Pos(), RulePlainAtomic, "writes %s with sync/atomic's %s, memory the file cannot show is its own: write only the fields the lesson's functions write (listed in its API as T.f.write), each directly, or atomics the file declares itself", types.ExprString(x.X), x.Sel.Name)
			} else if what != "" {
				c.atomicWrites = append(c.atomicWrites, apiUse{x.Sel.Pos(), what + ".write"})
			}
		}
		return true
	})
	// A generic of the file's given a sync/atomic type writes it through
	// its constraint's methods (st[T interface{ Store(uint32) }]), which
	// are not sync/atomic's to this rule.
	for _, id := range c.instances() {
		for t := range c.info.Instances[id].TypeArgs.Types() {
			if isSyncAtomic(t) {
				c.report(id.Pos(), RulePlainAtomic, "instantiates %s with %s: a generic reaches a sync/atomic value only through its constraint's methods, past this rule: call the atomic's own methods", id.Name, t)
				break
			}
		}
	}
}

// isSyncAtomic reports whether t is a type of sync/atomic's, or a pointer
// to one.
func isSyncAtomic(t types.Type) bool {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	return ok && named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "sync/atomic"
}

// throughEmbeddedPointer reports whether method selection sel reaches its
// method through an embedded pointer (struct{ *atomic.Int32 }'s Add): the
// memory is then whatever the pointer was given.
func throughEmbeddedPointer(sel *types.Selection) bool {
	t := sel.Recv()
	for _, i := range sel.Index()[:len(sel.Index())-1] {
		if p, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
			t = p.Elem()
		}
		st, ok := types.Unalias(t).Underlying().(*types.Struct)
		if !ok {
			return true // a path this rule cannot follow: not the file's own
		}
		t = st.Field(i).Type()
		if _, ok := types.Unalias(t).Underlying().(*types.Pointer); ok {
			return true
		}
	}
	return false
}

// writesAtomic reports whether m is a writing method of a sync/atomic type.
func writesAtomic(m types.Object) bool {
	fn, ok := m.(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg().Path() != "sync/atomic" {
		return false
	}
	return slices.Contains([]string{"Store", "Add", "And", "Or", "Swap", "CompareAndSwap"}, fn.Name())
}

// atomicTarget says whose memory a sync/atomic method's receiver e is:
// the API name of the reference's field it selects (the first met from
// the outside: sched.idlepMask[k] is schedt.idlepMask's), "" for an
// atomic value the file declares itself, or ok false for anything else
// (a pointer or a slice the file was handed, a call's result).
func (c *fileCheck) atomicTarget(e ast.Expr) (field string, ok bool) {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			if handedOn(c.info.TypeOf(x)) {
				return "", false // a pointer held in an array, slice or map: whatever it was given
			}
			e = x.X // an element: the slice's or the array's, whoever's that is
		case *ast.SelectorExpr:
			if sel, ok := c.info.Selections[x]; ok && sel.Kind() == types.FieldVal {
				if name := c.namer.name(sel.Obj(), c.inFile); name != "" {
					return name, true
				}
				if _, isPtr := types.Unalias(sel.Recv()).Underlying().(*types.Pointer); isPtr {
					return "", false // a field of the file's own struct, through a pointer
				}
				e = x.X
				continue
			}
			return "", false
		case *ast.Ident:
			v, isVar := c.info.Uses[x].(*types.Var)
			if !isVar || !c.inFile(v.Pos()) || v.IsField() {
				return "", false
			}
			if !c.declaredIn(v) {
				return "", false // a parameter: handed in
			}
			switch types.Unalias(v.Type()).Underlying().(type) {
			case *types.Pointer, *types.Slice:
				// The file's own only if it only ever holds what the
				// file made (nmask := make(pMask, words)).
				return "", c.onlyMade(v)
			}
			return "", true
		default:
			return "", false
		}
	}
}

// handedOn reports whether a value of type t refers to memory it was
// given, not memory of its own: a pointer, a slice or a map.
func handedOn(t types.Type) bool {
	if t == nil {
		return true
	}
	switch types.Unalias(t).Underlying().(type) {
	case *types.Pointer, *types.Slice, *types.Map:
		return true
	}
	return false
}

// declaredIn reports whether v is a variable a function of the file
// declares (not a parameter or a result: those are handed in). The
// parameters are gathered once per file, so a file of many writes costs
// one walk, not one each.
func (c *fileCheck) declaredIn(v *types.Var) bool {
	if c.params == nil {
		c.params = map[*types.Var]bool{}
		ast.Inspect(c.f, func(n ast.Node) bool {
			if ft, ok := n.(*ast.FuncType); ok {
				for _, fl := range []*ast.FieldList{ft.Params, ft.Results} {
					if fl == nil {
						continue
					}
					for _, f := range fl.List {
						for _, name := range f.Names {
							if pv, ok := c.info.Defs[name].(*types.Var); ok {
								c.params[pv] = true
							}
						}
					}
				}
			}
			return true
		})
	}
	return c.inFile(v.Pos()) && !v.IsField() && !c.params[v]
}

// onlyMade reports whether every value v is given in the file is made
// there: make(...), new(...), a composite literal or its address.
func (c *fileCheck) onlyMade(v *types.Var) bool {
	if known, ok := c.made[v]; ok {
		return known
	}
	if c.made == nil {
		c.made = map[*types.Var]bool{}
	}
	c.made[v] = c.onlyMadeWalk(v)
	return c.made[v]
}

// onlyMadeWalk is onlyMade's walk of the file, once per variable.
func (c *fileCheck) onlyMadeWalk(v *types.Var) bool {
	made := func(e ast.Expr) bool {
		switch x := ast.Unparen(e).(type) {
		case *ast.CompositeLit:
			return true
		case *ast.UnaryExpr:
			_, lit := ast.Unparen(x.X).(*ast.CompositeLit)
			return lit
		case *ast.CallExpr:
			id, ok := ast.Unparen(x.Fun).(*ast.Ident)
			if !ok {
				return false
			}
			b, ok := c.info.Uses[id].(*types.Builtin)
			return ok && (b.Name() == "make" || b.Name() == "new")
		}
		return false
	}
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && (c.info.Defs[id] == v || c.info.Uses[id] == v)
	}
	given, ok := 0, true
	ast.Inspect(c.f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			for i, lhs := range x.Lhs {
				if !is(lhs) {
					continue
				}
				given++
				if len(x.Rhs) != len(x.Lhs) || !made(x.Rhs[i]) {
					ok = false
				}
			}
		case *ast.ValueSpec:
			for i, name := range x.Names {
				if c.info.Defs[name] != v {
					continue
				}
				if len(x.Values) == 0 {
					continue // var m pMask: nil until given
				}
				given++
				if len(x.Values) != len(x.Names) || !made(x.Values[i]) {
					ok = false
				}
			}
		case *ast.RangeStmt:
			if (x.Key != nil && is(x.Key)) || (x.Value != nil && is(x.Value)) {
				ok = false
			}
		case *ast.UnaryExpr:
			if x.Op.String() == "&" && is(x.X) {
				ok = false // its address handed on: it may be given anything
			}
		}
		return ok
	})
	return ok && given > 0
}
