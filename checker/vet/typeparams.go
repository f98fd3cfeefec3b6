package vet

import (
	"go/ast"
	"go/token"
	"go/types"
	"slices"
)

// Whether a generic of the file's own only points at a type parameter's
// values (genericWholes). A generic instantiated with a P, a G or
// another value that holds one of the course's atomics is refused if it
// could copy, compare or assign such a value whole; it cannot if the type
// parameter appears only behind pointers: a ring's slots are
// [256]atomic.Pointer[g], and a helper over them has T = g (a ninth red
// team's correct copySlots[T any](dst, src *[256]atomic.Pointer[T], ...)
// was refused, with advice it could not follow: make T a pointer).

// behindPointers reports whether the file's own generic obj (a function or
// a type) uses its i-th type parameter only behind pointers: in its
// declaration and its body (a type's: its underlying type and its
// methods), no value, variable, parameter, result, element or field has
// the type parameter's type or a type that holds it by value (a slice of
// it, a struct with it, a function taking it), and nothing else's generic
// is given a type that mentions it, but the atomics' pointers
// (sync/atomic's Pointer, the course's atomicPointer). Another of the
// file's own generics given the parameter is judged the same way. seen
// breaks cycles: a type parameter of a generic already being judged is
// taken as judged (each type parameter on its own: a tenth red team's
// generic called itself with its two parameters swapped, and the second
// was never judged).
func (c *fileCheck) behindPointers(obj types.Object, i int, seen map[typeParamOf]bool) bool {
	if seen[typeParamOf{obj, i}] {
		return true
	}
	seen[typeParamOf{obj, i}] = true
	switch t := obj.Type().(type) {
	case *types.Signature:
		if i >= t.TypeParams().Len() {
			return false
		}
		fd := c.funcDecl(obj)
		return fd != nil && c.bodyBehindPointers(fd, t.TypeParams().At(i), seen)
	case *types.Named:
		if i >= t.TypeParams().Len() || byValue(t.Underlying(), t.TypeParams().At(i)) {
			return false
		}
		// The generics its declaration hands the parameter to: an
		// embedded one's methods are its own (an eleventh red team's
		// wrap[T]{ box[T] } compared and wrote a whole P through box's).
		if ts := c.typeSpec(obj); ts == nil || !c.instancesBehindPointers(ts, t.TypeParams().At(i), seen) {
			return false
		}
		for m := range t.Methods() {
			sig := m.Type().(*types.Signature)
			fd := c.funcDecl(m)
			if fd == nil || i >= sig.RecvTypeParams().Len() || !c.bodyBehindPointers(fd, sig.RecvTypeParams().At(i), seen) {
				return false
			}
		}
		return true
	}
	return false
}

// typeParamOf is the i-th type parameter of generic obj.
type typeParamOf struct {
	obj types.Object
	i   int
}

// funcDecl is the file's declaration of function or method obj, or nil.
func (c *fileCheck) funcDecl(obj types.Object) *ast.FuncDecl {
	for _, d := range c.f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && c.info.Defs[fd.Name] == obj {
			return fd
		}
	}
	return nil
}

// typeSpec is the file's declaration of type obj, or nil.
func (c *fileCheck) typeSpec(obj types.Object) *ast.TypeSpec {
	for _, d := range c.f.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok && c.info.Defs[ts.Name] == obj {
					return ts
				}
			}
		}
	}
	return nil
}

// instancesBehindPointers judges every instantiation in n
// (instanceBehindPointers) for type parameter tp.
func (c *fileCheck) instancesBehindPointers(n ast.Node, tp *types.TypeParam, seen map[typeParamOf]bool) bool {
	ok := true
	ast.Inspect(n, func(n ast.Node) bool {
		if id, isID := n.(*ast.Ident); isID && ok {
			if inst, isInst := c.info.Instances[id]; isInst {
				ok = c.instanceBehindPointers(id, inst, tp, seen)
			}
		}
		return ok
	})
	return ok
}

// bodyBehindPointers is behindPointers for one function declaration fd
// and its type parameter tp.
func (c *fileCheck) bodyBehindPointers(fd *ast.FuncDecl, tp *types.TypeParam, seen map[typeParamOf]bool) bool {
	ok := true
	// An element or field whose address is taken (&s[i], &x.f, &*p) is
	// not a value of it: only the pointer is (a sixteenth red team's
	// correct firstOf[T any](s *[256]T) *T { return &s[0] }, given the
	// ring's slots, was refused).
	addressed := map[ast.Expr]bool{}
	ast.Inspect(fd, func(n ast.Node) bool {
		if !ok {
			return false
		}
		if u, isUnary := n.(*ast.UnaryExpr); isUnary && u.Op == token.AND {
			switch x := ast.Unparen(u.X).(type) {
			case *ast.IndexExpr:
				addressed[x] = true
				inPlaceStar(addressed, x.X) // &(*r)[i] is &r[i]
			case *ast.SelectorExpr:
				addressed[x] = true
				inPlaceStar(addressed, x.X) // &(*p).f is &p.f
			case *ast.StarExpr:
				addressed[x] = true
			}
		}
		if call, isCall := n.(*ast.CallExpr); isCall && c.isLenOrCap(call) {
			for _, arg := range call.Args {
				inPlaceStar(addressed, arg) // len(*r) of an array reads no element
			}
		}
		if e, isExpr := n.(ast.Expr); isExpr && addressed[e] {
			return true // its parts are judged; it is not a value
		}
		switch n := n.(type) {
		case *ast.CaseClause:
			// A type switch's variable, in each clause (an eighteenth red
			// team's switch x := v.(type) { case T: ... }): no Def.
			if v, isVar := c.info.Implicits[n].(*types.Var); isVar && byValue(v.Type(), tp) {
				ok = false
				return false
			}
		case *ast.CallExpr:
			if c.copiesElements(n, tp) {
				ok = false // copy, append or clear of a slice of it
				return false
			}
		case *ast.Ident:
			if v, isVar := c.info.Defs[n].(*types.Var); isVar && byValue(v.Type(), tp) {
				ok = false // a variable, parameter, result or field of it
				return false
			}
			if inst, isInst := c.info.Instances[n]; isInst {
				ok = c.instanceBehindPointers(n, inst, tp, seen)
			}
		case ast.Expr:
			if tv, has := c.info.Types[n]; has && !tv.IsType() && tv.Type != nil && byValue(tv.Type, tp) {
				ok = false // a value of it, or of a type that holds it
				return false
			}
		}
		return ok
	})
	return ok
}

// inPlaceStar marks e as addressed if it is a dereference, *p: indexed or
// selected in place, or measured by len or cap, it is no value of its own
// (a twentieth red team's correct &(*r)[i], len(*r), for r *[256]T or
// *R with R ~[256]T, were refused).
func inPlaceStar(addressed map[ast.Expr]bool, e ast.Expr) {
	star, ok := ast.Unparen(e).(*ast.StarExpr)
	if !ok {
		return
	}
	for p, isParen := e.(*ast.ParenExpr); isParen; p, isParen = e.(*ast.ParenExpr) {
		addressed[p] = true
		e = p.X
	}
	addressed[star] = true
}

// isLenOrCap reports whether call is of the builtin len or cap.
func (c *fileCheck) isLenOrCap(call *ast.CallExpr) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := c.info.Uses[id].(*types.Builtin)
	return ok && (b.Name() == "len" || b.Name() == "cap")
}

// copiesElements reports whether call is one of the builtins that copy,
// append or clear a slice's elements whole (copy, append, clear), given a
// slice whose elements hold tp by value.
func (c *fileCheck) copiesElements(call *ast.CallExpr, tp *types.TypeParam) bool {
	id, ok := ast.Unparen(call.Fun).(*ast.Ident)
	if !ok {
		return false
	}
	b, ok := c.info.Uses[id].(*types.Builtin)
	if !ok || (b.Name() != "copy" && b.Name() != "append" && b.Name() != "clear") {
		return false
	}
	for _, arg := range call.Args {
		tv, has := c.info.Types[arg]
		if !has || tv.Type == nil {
			continue
		}
		if sliceOfHeld(tv.Type, tp, 0) {
			return true
		}
	}
	return false
}

// sliceOfHeld reports whether t is a slice whose elements hold tp by
// value, or a type parameter that may be one (depth bounds constraints
// that name each other).
func sliceOfHeld(t types.Type, tp *types.TypeParam, depth int) bool {
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return depth < 8 && slices.ContainsFunc(constraintTerms(t), func(term types.Type) bool { return sliceOfHeld(term, tp, depth+1) })
	case *types.Named:
		return sliceOfHeld(t.Underlying(), tp, depth)
	case *types.Slice:
		return byValue(t.Elem(), tp)
	}
	return false
}

// instanceBehindPointers judges the instantiation at id, inside a generic
// whose type parameter is tp: a type argument that mentions tp is fine
// only as an atomic pointer's, or as tp itself given to another of the
// file's generics that keeps it behind pointers.
func (c *fileCheck) instanceBehindPointers(id *ast.Ident, inst types.Instance, tp *types.TypeParam, seen map[typeParamOf]bool) bool {
	origin := c.info.Uses[id]
	for j := range inst.TypeArgs.Len() {
		arg := inst.TypeArgs.At(j)
		if !mentions(arg, tp) {
			continue
		}
		switch {
		case origin != nil && c.atomicPointerType(origin):
			// Holds a *T: judged by how its values are used.
		case origin != nil && c.inFile(origin.Pos()) && types.Identical(arg, tp):
			if !c.behindPointers(origin, j, seen) {
				return false
			}
		case origin != nil && origin.Pkg() != nil && origin.Pkg().Path() != c.v.pkgName && !c.inFile(origin.Pos()) && onlyPointersTo(arg, tp):
			// A standard generic given only pointers to it (slices.Contains
			// over a []*T, with a *T: a seventeenth red team's correct
			// file) copies no value of it: only the pointers.
		default:
			return false
		}
	}
	return true
}

// atomicPointerType reports whether obj is sync/atomic's Pointer or the
// course's atomicPointer: generic types whose values hold a *T.
func (c *fileCheck) atomicPointerType(obj types.Object) bool {
	tn, ok := obj.(*types.TypeName)
	if !ok || tn.Pkg() == nil {
		return false
	}
	switch tn.Pkg().Path() {
	case "sync/atomic":
		return tn.Name() == "Pointer"
	case c.v.pkgName:
		return tn.Name() == "atomicPointer"
	}
	return false
}

// byValue reports whether a value of type t holds a value of type
// parameter tp: is one, or has one as an element, key, field, parameter
// or result, not behind a pointer.
func byValue(t types.Type, tp *types.TypeParam) bool {
	return holdsParam(t, tp, true, map[types.Type]bool{})
}

// mentions reports whether tp appears anywhere in t, behind a pointer or
// not.
func mentions(t types.Type, tp *types.TypeParam) bool {
	return holdsParam(t, tp, false, map[types.Type]bool{})
}

// holdsParam is byValue, or, if not byValue, mentions. A type it does not
// know holds tp, to be safe.
func holdsParam(t types.Type, tp *types.TypeParam, byValue bool, seen map[types.Type]bool) bool {
	in := func(t types.Type) bool { return holdsParam(t, tp, byValue, seen) }
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		// Another type parameter holds tp as its constraint's types do
		// (a seventeenth red team's A ~[1]E: a value of A is an E).
		if t == tp {
			return true
		}
		if seen[t] {
			return false
		}
		seen[t] = true
		return slices.ContainsFunc(constraintTerms(t), in)
	case *types.Pointer, *types.Slice:
		// A slice's elements are behind its pointer, as a pointer's
		// value is; what copies them whole, the builtins copy, append
		// and clear, is judged where they are called (bodyBehindPointers).
		return !byValue && in(t.(interface{ Elem() types.Type }).Elem())
	case *types.Basic, *types.Interface:
		return false
	case *types.Named:
		if !byValue {
			return slices.ContainsFunc(slices.Collect(t.TypeArgs().Types()), in)
		}
		if t.TypeArgs().Len() == 0 || seen[t] {
			return false // no type parameter of this file's in it, or already looked into
		}
		seen[t] = true
		return in(t.Underlying())
	case *types.Array:
		return in(t.Elem())
	case *types.Chan:
		return in(t.Elem())
	case *types.Map:
		return in(t.Key()) || in(t.Elem())
	case *types.Struct:
		for f := range t.Fields() {
			if in(f.Type()) {
				return true
			}
		}
		return false
	case *types.Signature:
		return in(t.Params()) || in(t.Results())
	case *types.Tuple:
		for v := range t.Variables() {
			if in(v.Type()) {
				return true
			}
		}
		return false
	}
	return true
}

// constraintTerms are the types type parameter t's constraint lists (its
// union's terms and embedded types): what t's values may be.
func constraintTerms(t *types.TypeParam) []types.Type {
	var out []types.Type
	var walk func(iface *types.Interface, depth int)
	walk = func(iface *types.Interface, depth int) {
		for e := range iface.EmbeddedTypes() {
			switch e := e.(type) {
			case *types.Union:
				for i := range e.Len() {
					out = append(out, e.Term(i).Type())
				}
			default:
				// An embedded interface, named or not, lists its own
				// (an eighteenth red team's interface{ holder[E] }, with
				// type holder[E any] interface{ ~chan E }).
				if inner, isIface := e.Underlying().(*types.Interface); isIface {
					if depth < 8 {
						walk(inner, depth+1)
					}
					continue
				}
				out = append(out, e)
			}
		}
	}
	if iface, ok := t.Constraint().Underlying().(*types.Interface); ok {
		walk(iface, 0)
	}
	return out
}

// onlyPointersTo reports whether tp appears in t only as what a pointer
// points at: *T, []*T, map[K]*T. A generic that is not the file's own
// may copy anything else it is given whole (a []T's elements, with
// slices.Clone), and a named type's insides are not looked into.
func onlyPointersTo(t types.Type, tp *types.TypeParam) bool {
	var bare func(t types.Type) bool // tp appears other than behind a pointer
	bare = func(t types.Type) bool {
		switch t := types.Unalias(t).(type) {
		case *types.Pointer, *types.Basic:
			return false
		case *types.TypeParam:
			return true // tp itself, or another that may hold it
		case *types.Slice, *types.Array:
			return bare(t.(interface{ Elem() types.Type }).Elem())
		case *types.Map:
			return bare(t.Key()) || bare(t.Elem())
		}
		return mentions(t, tp)
	}
	return !bare(t)
}
