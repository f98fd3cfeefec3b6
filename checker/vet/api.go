package vet

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"slices"
	"strings"
)

// A LessonAPI is what a lesson file may use of the reference package
// (rule 8): the names its lesson lists, besides the file's own
// declarations. Names are as API names them: a package-level name (runqget,
// g, sched), or a type's field or method (g.goid, gQueue.push; a field of
// an unnamed struct inside one: schedt.gFree.lock; of a package-level
// variable of an unnamed struct type: sched.lock).
type LessonAPI struct {
	Lesson string   // the lesson's ID, for messages: 01-ringbuffer
	Names  []string // sorted
}

// apiNamer names the reference package's objects as a LessonAPI does, in
// one type-checked package (the objects are new at each check).
type apiNamer struct {
	pkg    *types.Package
	fields map[*types.Var]string  // every field of the package's types, by its name
	ifaces map[*types.Func]string // the methods of its named interfaces
	// structs is every struct type of the package's declarations (the
	// underlying types of its named types, and the unnamed ones inside
	// them), by fieldNames: a struct type with the same field names,
	// declared in a lesson file, is identical to one (or unifies with it)
	// once its field types match.
	structs map[string][]*types.Struct
}

func newAPINamer(pkg *types.Package) *apiNamer {
	n := &apiNamer{pkg: pkg, fields: map[*types.Var]string{}, ifaces: map[*types.Func]string{}, structs: map[string][]*types.Struct{}}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		switch obj := scope.Lookup(name).(type) {
		case *types.TypeName:
			if obj.IsAlias() {
				continue // its fields are named by the type it stands for
			}
			n.walk(name, obj.Type().Underlying(), 0)
			if it, ok := obj.Type().Underlying().(*types.Interface); ok {
				for i := range it.NumExplicitMethods() {
					n.ifaces[it.ExplicitMethod(i)] = name + "." + it.ExplicitMethod(i).Name()
				}
			}
		case *types.Var:
			n.walk(name, obj.Type(), 0) // only an unnamed struct type gives fields
		}
	}
	return n
}

// walk names the fields of t, an unnamed struct type (or one made of
// it: an array, a pointer), prefix.field, and those of the unnamed structs
// inside it prefix.field.inner.
func (n *apiNamer) walk(prefix string, t types.Type, depth int) {
	if depth > 8 {
		return
	}
	switch t := t.(type) {
	case *types.Struct:
		if t.NumFields() > 0 {
			key := fieldNames(t)
			n.structs[key] = append(n.structs[key], t)
		}
		for i := range t.NumFields() {
			f := t.Field(i)
			if _, ok := n.fields[f]; !ok {
				n.fields[f] = prefix + "." + f.Name()
				n.walk(prefix+"."+f.Name(), f.Type(), depth+1)
			}
		}
	case *types.Pointer:
		n.walk(prefix, t.Elem(), depth+1)
	case *types.Array:
		n.walk(prefix, t.Elem(), depth+1)
	case *types.Slice:
		n.walk(prefix, t.Elem(), depth+1)
	}
}

// name is obj's API name, if obj is of the reference package and declared
// outside the files being vetted (inFile says whether a position is in
// one of them): "" if it is not the reference's, or the file's own.
func (n *apiNamer) name(obj types.Object, inFile func(token.Pos) bool) string {
	if obj == nil || obj.Pkg() != n.pkg || inFile(obj.Pos()) {
		return ""
	}
	switch o := obj.(type) {
	case *types.Var:
		o = o.Origin()
		if !o.IsField() {
			if n.pkg.Scope().Lookup(o.Name()) == o {
				return o.Name()
			}
			return "?" + o.Name() // a local of the reference's: not reachable by name
		}
		if name, ok := n.fields[o]; ok {
			return name
		}
		return "?." + o.Name() // a field of a struct type declared in a function
	case *types.Func:
		o = o.Origin()
		if name, ok := n.ifaces[o]; ok {
			return name
		}
		sig, _ := o.Type().(*types.Signature)
		if sig == nil || sig.Recv() == nil {
			return o.Name()
		}
		if base := namedBase(sig.Recv().Type()); base != "" {
			return base + "." + o.Name()
		}
		return "?." + o.Name()
	case *types.PkgName, *types.Label:
		return ""
	}
	if obj.Parent() == n.pkg.Scope() {
		return obj.Name() // a type, a constant
	}
	return "?" + obj.Name() // a type parameter or a local type of the reference's
}

// namedBase is the name of the defined type t is, or points to.
func namedBase(t types.Type) string {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	if nt, ok := types.Unalias(t).(*types.Named); ok {
		return nt.Origin().Obj().Name()
	}
	return ""
}

// An apiUse is one use of a name of the reference's API.
type apiUse struct {
	pos  token.Pos
	name string
}

// apiUses lists every use file f makes of the reference's API: the
// package-level names, fields and methods it refers to, those a selector
// goes through to reach a promoted field or method, and the fields an
// unkeyed composite literal sets.
func apiUses(f *ast.File, info *types.Info, n *apiNamer, inFile func(token.Pos) bool) []apiUse {
	var out []apiUse
	add := func(pos token.Pos, obj types.Object) {
		if name := n.name(obj, inFile); name != "" {
			out = append(out, apiUse{pos, name})
		}
	}
	ast.Inspect(f, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.Ident:
			add(x.Pos(), info.Uses[x])
		case *ast.SelectorExpr:
			if sel, ok := info.Selections[x]; ok {
				for _, field := range embeddedPath(sel) {
					add(x.Sel.Pos(), field)
				}
			}
		case *ast.CompositeLit:
			if len(x.Elts) == 0 || isKeyed(x) {
				break
			}
			if st, ok := underStruct(info.Types[x].Type); ok {
				for i := range min(st.NumFields(), len(x.Elts)) {
					add(x.Elts[i].Pos(), st.Field(i))
				}
			}
		}
		return true
	})
	return out
}

// embeddedPath is the embedded fields a selection goes through, before
// the field or method it selects.
func embeddedPath(sel *types.Selection) []*types.Var {
	idx := sel.Index()
	t := sel.Recv()
	var out []*types.Var
	for _, i := range idx[:len(idx)-1] {
		st, ok := underStruct(t)
		if !ok || i >= st.NumFields() {
			break
		}
		out = append(out, st.Field(i))
		t = st.Field(i).Type()
	}
	return out
}

func underStruct(t types.Type) (*types.Struct, bool) {
	if t == nil {
		return nil, false
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, ok := t.Underlying().(*types.Struct)
	return st, ok
}

func isKeyed(lit *ast.CompositeLit) bool {
	_, ok := lit.Elts[0].(*ast.KeyValueExpr)
	return ok
}

// methodNames is the names of every method the reference's types declare,
// with the API names of each (an interface of a lesson file that asks for
// one reaches it by a type assertion).
func (n *apiNamer) methodNames(inFile func(token.Pos) bool) map[string][]refMethod {
	out := map[string][]refMethod{}
	scope := n.pkg.Scope()
	for _, name := range scope.Names() {
		tn, ok := scope.Lookup(name).(*types.TypeName)
		if !ok || inFile(tn.Pos()) {
			continue
		}
		if nt, ok := types.Unalias(tn.Type()).(*types.Named); ok {
			for i := range nt.NumMethods() {
				m := nt.Method(i)
				out[m.Name()] = append(out[m.Name()], refMethod{name + "." + m.Name(), m})
			}
		}
	}
	for f, name := range n.ifaces {
		if !inFile(f.Pos()) {
			out[f.Name()] = append(out[f.Name()], refMethod{name, f})
		}
	}
	return out
}

// heldTypes are the types of the reference's values a lesson file can
// hold, with its API (names, sorted): the types it lists, and the types
// of the fields, variables and results it lists. everything is true if
// one of them is an interface, or not known: a value of any type might
// then come to the file inside it.
func (n *apiNamer) heldTypes(names []string) (held []types.Type, everything bool) {
	fieldsByName := map[string]*types.Var{}
	for v, name := range n.fields {
		fieldsByName[name] = v
	}
	add := func(t types.Type) {
		if p, ok := types.Unalias(t).(*types.Pointer); ok {
			t = p.Elem()
		}
		if _, isParam := types.Unalias(t).(*types.TypeParam); isParam {
			return // a generic method's: the instances' types are held where listed
		}
		if types.IsInterface(t) {
			everything = true
		}
		held = append(held, t)
	}
	for _, name := range names {
		if v, ok := fieldsByName[name]; ok {
			add(v.Type())
			continue
		}
		typ, member, isMember := strings.Cut(name, ".")
		obj := n.pkg.Scope().Lookup(typ)
		switch o := obj.(type) {
		case *types.TypeName:
			add(o.Type())
			if isMember {
				if m, _, _ := types.LookupFieldOrMethod(types.NewPointer(o.Type()), true, n.pkg, member); m != nil {
					if fn, ok := m.(*types.Func); ok {
						for r := range fn.Type().(*types.Signature).Results().Variables() {
							add(r.Type())
						}
					}
				}
			}
		case *types.Var:
			add(o.Type())
		case *types.Func:
			for r := range o.Type().(*types.Signature).Results().Variables() {
				add(r.Type())
			}
		case *types.Const, nil:
		default:
			everything = true
		}
	}
	return held, everything
}

// reachable is the methods an assertion to an interface with method mine
// could call, of the values a file holds (held; every type's, if
// everything): those named as mine, with its signature, in the method set
// of a held type or its pointer.
func (n *apiNamer) reachable(mine *types.Func, held []types.Type, everything bool, all map[string][]refMethod) []refMethod {
	var out []refMethod
	for _, m := range all[mine.Name()] {
		if !m.reachedBy(mine) {
			continue
		}
		if everything {
			out = append(out, m)
			continue
		}
		for _, t := range held {
			if obj, _, _ := types.LookupFieldOrMethod(types.NewPointer(t), true, n.pkg, mine.Name()); obj != nil {
				if fn, ok := obj.(*types.Func); ok && fn.Origin() == m.fn.Origin() {
					out = append(out, m)
					break
				}
			}
		}
	}
	return out
}

// A refMethod is a method of the reference's: its API name and itself.
type refMethod struct {
	name string
	fn   *types.Func
}

// reachedBy reports whether a type assertion to an interface with method
// mine could call m: their signatures are identical (receivers aside), or
// m's receiver is generic, or mine's signature mentions a type parameter
// (a generic interface of the file's: finisher[E any] interface{
// finish(E) }, instantiated with error, reached the scheduler's finish for
// a thirteenth red team), and an instance's signature could be.
func (m refMethod) reachedBy(mine *types.Func) bool {
	sig := m.fn.Type().(*types.Signature)
	if sig.RecvTypeParams().Len() > 0 || mentionsTypeParam(mine.Type()) {
		return true
	}
	return types.Identical(sig, mine.Type())
}

// mentionsTypeParam reports whether t mentions a type parameter anywhere.
func mentionsTypeParam(t types.Type) bool {
	return findInType(t, func(t types.Type) (string, bool) {
		if _, ok := t.(*types.TypeParam); ok {
			return "yes", false
		}
		return "", true
	}) != ""
}

// typeParts are the types t is made of, one level down: a named type's
// type arguments (not its underlying type); a pointer's, slice's, array's
// or channel's element; a map's key and element; a signature's parameters
// and results; a struct's fields; an interface's methods.
func typeParts(t types.Type) []types.Type {
	var out []types.Type
	switch t := t.(type) {
	case *types.Named:
		out = slices.Collect(t.TypeArgs().Types())
	case *types.Pointer:
		out = []types.Type{t.Elem()}
	case *types.Slice:
		out = []types.Type{t.Elem()}
	case *types.Array:
		out = []types.Type{t.Elem()}
	case *types.Chan:
		out = []types.Type{t.Elem()}
	case *types.Map:
		out = []types.Type{t.Key(), t.Elem()}
	case *types.Signature:
		for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tuple.Variables() {
				out = append(out, v.Type())
			}
		}
	case *types.Struct:
		for f := range t.Fields() {
			out = append(out, f.Type())
		}
	case *types.Interface:
		for m := range t.Methods() {
			out = append(out, m.Type())
		}
	}
	return out
}

// findInType walks t and the types it is made of (typeParts, aliases
// seen through), depth first, each once and at most 16 levels down, and
// returns the first answer of visit that is not ""; a type for which
// visit says not to descend has its parts skipped.
func findInType(t types.Type, visit func(types.Type) (answer string, descend bool)) string {
	seen := map[types.Type]bool{}
	var look func(t types.Type, depth int) string
	look = func(t types.Type, depth int) string {
		if t == nil || seen[t] || depth > 16 {
			return ""
		}
		seen[t] = true
		t = types.Unalias(t)
		answer, descend := visit(t)
		if answer != "" || !descend {
			return answer
		}
		for _, part := range typeParts(t) {
			if answer := look(part, depth+1); answer != "" {
				return answer
			}
		}
		return ""
	}
	return look(t, 0)
}

// onlyIfListed are methods of the course's atomics that a lesson file may
// call only where its API lists them, not as one more method of a listed
// type (see api), each with what to do instead, for the message.
var onlyIfListed = map[string]string{
	"mutex.TryLock": "a failed TryLock happens only on real threads (the hidden tests' controlled runs never switch threads while the lock is held), so it could tell them apart: take the lock with its Lock, and leave a check that it is held to Config{Debug: true} (sched.assertLockHeld)",
}

// api: rule 8, a lesson file uses of the reference only its lesson's API
// (or its own declarations). It also refuses an interface method of the
// file's that is named as a method of the reference's outside the API,
// with its signature, on a type whose values the file can hold: a type
// assertion to that interface would call it (a ninth red team's correct
// interface{ Load() uint32 }, for its ring's head and tail, was refused
// for atomicBool's Load() bool, of a type lesson 01 never holds).
func (c *fileCheck) api(n *apiNamer) {
	if c.v.api == nil {
		return
	}
	lapi, ok := c.v.api[c.name]
	where, fix := "lesson "+lapi.Lesson+"'s API", "use only the names kata task "+lapi.Lesson[:min(2, len(lapi.Lesson))]+" lists and your own declarations"
	if !ok {
		where, fix = "any lesson's API", "no lesson lists an API for "+c.name
	}
	allowed := func(name string) bool { _, ok := slices.BinarySearch(lapi.Names, name); return ok }
	// A type whose fields or methods the API lists may be named too
	// (var sched *schedt = pp.sched, a helper's parameter): its values
	// come only from the API, and naming it reaches nothing new. It is
	// not thereby a type argument (typeArguments asks allowed): a generic
	// function's T of schedt could copy or zero one whole.
	members := map[string]bool{}
	for _, name := range lapi.Names {
		if typ, _, ok := strings.Cut(name, "."); ok {
			members[typ] = true
		}
	}
	// A course atomic (a type defined on a sync/atomic one: a scheduling
	// point of the hidden tests at every operation) whose methods the API
	// lists may be used through any of them: a wakep may clear
	// needspinning with a CompareAndSwap where the reference Stores, and
	// no operation there is hidden from the controlled runs. Except the
	// lock's TryLock (onlyIfListed): the lock's release is not a
	// scheduling point, so in a controlled run no thread ever finds it
	// held, and a failed TryLock says "real threads" (a twenty-third red
	// team ran its mistake only then: 100 for a file that earns 84).
	atomicTypes := map[string]bool{}
	for _, name := range lapi.Names {
		if typ, _, ok := strings.Cut(name, "."); ok && c.v.atomics[typ] {
			atomicTypes[typ] = true
		}
	}
	nameable := func(name string) bool {
		if allowed(name) {
			return true
		}
		if typ, _, ok := strings.Cut(name, "."); ok && atomicTypes[typ] && onlyIfListed[name] == "" {
			return true
		}
		_, isType := n.pkg.Scope().Lookup(name).(*types.TypeName)
		return isType && members[name]
	}
	for _, u := range apiUses(c.f, c.info, n, c.inFile) {
		if !nameable(u.name) {
			how := fix
			if instead := onlyIfListed[u.name]; instead != "" {
				how = instead
			}
			c.report(u.pos, RuleAPI, "uses %s, which is not in %s: %s", displayAPI(u.name), where, how)
		}
	}
	for _, u := range c.atomicWrites {
		if !allowed(u.name) {
			field := strings.TrimSuffix(u.name, ".write")
			c.report(u.pos, RulePlainAtomic, "writes %s, a sync/atomic value (no scheduling point of the hidden tests), which %s does not list as written (%s): write only what the lesson's functions write", field, where, u.name)
		}
	}
	c.structConversions(n, allowed, where)
	c.mirroredStructs(n, allowed, where)
	held, everything := n.heldTypes(lapi.Names)
	c.typeArguments(n, allowed, where, held)
	c.wholeValues(n, allowed, where)
	methods := n.methodNames(c.inFile)
	for id, obj := range c.info.Defs {
		fn, ok := obj.(*types.Func)
		if !ok || !c.inFile(id.Pos()) {
			continue
		}
		sig := fn.Type().(*types.Signature)
		if sig.Recv() == nil || !types.IsInterface(sig.Recv().Type()) || standardMethod(fn) {
			continue
		}
		for _, ref := range n.reachable(fn, held, everything, methods) {
			if !allowed(ref.name) {
				c.report(id.Pos(), RuleAPI, "declares an interface method %s, as the reference's %s, not in %s (an assertion would call it): rename it", fn.Name(), ref.name, where)
				break
			}
		}
	}
}

// fieldNames is the names of st's fields in order, an embedded one
// marked: all two struct types of one package need to have in common to
// be identical but for their field types (or for one to be inferred from
// the other, field types and all: a generic function whose parameter is
// struct{ goid A; fn B; ... } takes a g by value and names A and B).
func fieldNames(st *types.Struct) string {
	var b strings.Builder
	for i := range st.NumFields() {
		if st.Field(i).Embedded() {
			b.WriteByte('*')
		}
		b.WriteString(st.Field(i).Name())
		b.WriteByte(' ')
	}
	return b.String()
}

// mirroredStructs refuses an unnamed struct type written in the file
// that a value of one of the reference's struct types would assign to, or
// pass to as a generic parameter, if that one has a field outside the
// API: the same field names, each field of the same type as the
// reference's or of a type made with a type parameter (which inference
// fills in). The file's field names would then read and write every field
// of the reference's (a red team reached schedt.cfg's fields by
// assignment, and a G's sudog and its unsafe.Pointer through type
// inference). A struct type a type declaration names is the file's own:
// no value of another named type assigns to it, and a conversion to it is
// refused where it is written (structConversions); nor does an unnamed
// one whose fields have other types (a {first, last *g} beside waitq's
// *sudog ones): a sixth red team's correct files were refused for such
// helper structs, unused.
func (c *fileCheck) mirroredStructs(n *apiNamer, allowed func(string) bool, where string) {
	named := map[*ast.StructType]bool{}
	ast.Inspect(c.f, func(node ast.Node) bool {
		if ts, ok := node.(*ast.TypeSpec); ok && !ts.Assign.IsValid() {
			if st, ok := ts.Type.(*ast.StructType); ok {
				named[st] = true
			}
		}
		return true
	})
	ast.Inspect(c.f, func(node ast.Node) bool {
		expr, ok := node.(*ast.StructType)
		if !ok || named[expr] {
			return true
		}
		st, ok := c.info.TypeOf(expr).(*types.Struct)
		if !ok || st.NumFields() == 0 {
			return true
		}
		for _, ref := range n.structs[fieldNames(st)] {
			if !fieldsMayMatch(st, ref) {
				continue
			}
			for i := range ref.NumFields() {
				if name := n.name(ref.Field(i), c.inFile); name != "" && !allowed(name) {
					refName := displayAPI(strings.TrimSuffix(n.name(ref.Field(0), c.inFile), "."+ref.Field(0).Name()))
					c.report(expr.Pos(), RuleAPI, "declares a struct type with the fields of the reference's %s, which has %s, not in %s: a value of %s would assign or convert to yours, fields and all: give your struct fields of its own",
						refName, displayAPI(name), where, refName)
					return true
				}
			}
		}
		return true
	})
}

// fieldsMayMatch reports whether a value of struct type ref, with st's
// field names, could be assigned to st or inferred into it: each field of
// st has ref's field's type, or a type with a type parameter in it.
func fieldsMayMatch(st, ref *types.Struct) bool {
	for i := range st.NumFields() {
		if ft := st.Field(i).Type(); !types.Identical(ft, ref.Field(i).Type()) && !hasTypeParam(ft, map[types.Type]bool{}) {
			return false
		}
	}
	return true
}

// hasTypeParam reports whether t is or is made with a type parameter.
func hasTypeParam(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Pointer:
		return hasTypeParam(t.Elem(), seen)
	case *types.Slice:
		return hasTypeParam(t.Elem(), seen)
	case *types.Array:
		return hasTypeParam(t.Elem(), seen)
	case *types.Map:
		return hasTypeParam(t.Key(), seen) || hasTypeParam(t.Elem(), seen)
	case *types.Chan:
		return hasTypeParam(t.Elem(), seen)
	case *types.Named:
		for a := range t.TypeArgs().Types() {
			if hasTypeParam(a, seen) {
				return true
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if hasTypeParam(t.Field(i).Type(), seen) {
				return true
			}
		}
	case *types.Signature:
		for _, tup := range []*types.Tuple{t.Params(), t.Results()} {
			for v := range tup.Variables() {
				if hasTypeParam(v.Type(), seen) {
					return true
				}
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if hasTypeParam(t.Method(i).Type(), seen) {
				return true
			}
		}
		for i := range t.NumEmbeddeds() {
			if hasTypeParam(t.EmbeddedType(i), seen) {
				return true
			}
		}
	}
	return false
}

// structConversions refuses a conversion between two struct types (or
// pointers to them) one of which has a field of the reference's outside
// the API: a struct type of the file's own with the same fields, in the
// same package, converts to and from the reference's, and its field
// names would reach every field of the reference's.
func (c *fileCheck) structConversions(n *apiNamer, allowed func(string) bool, where string) {
	ast.Inspect(c.f, func(node ast.Node) bool {
		call, ok := node.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		tv, ok := c.info.Types[call.Fun]
		arg, ok2 := c.info.Types[call.Args[0]]
		if !ok || !ok2 || !tv.IsType() || arg.Type == nil || types.Identical(tv.Type, arg.Type) {
			return true
		}
		// A type parameter's conversion is each of its type set's: an
		// eighth red team's asMine[P interface{ *config }](x P) converted
		// to a struct of the file's own with config's field names inside
		// a generic function, where the operand's type is P.
		for _, fromT := range typeSet(arg.Type) {
			for _, toT := range typeSet(tv.Type) {
				from, okFrom := underStruct(fromT)
				to, okTo := underStruct(toT)
				if !okFrom || !okTo {
					continue // not between struct types: to an interface, say
				}
				for _, st := range []*types.Struct{from, to} {
					for i := range st.NumFields() {
						if name := n.name(st.Field(i), c.inFile); name != "" && !allowed(name) {
							c.report(call.Pos(), RuleAPI, "converts %s to %s, which reaches %s, not in %s: use the fields the lesson lists",
								fromT, toT, displayAPI(name), where)
							return true
						}
					}
				}
			}
		}
		return true
	})
}

// typeSet is the types t may be: the terms of its constraint if it is a
// type parameter (those of the interfaces it embeds, and of a type
// parameter's own type parameters, too),
// pointers to them if it is a pointer to one, else t itself.
func typeSet(t types.Type) []types.Type {
	var out []types.Type
	seen := map[types.Type]bool{}
	var add func(t types.Type, depth int)
	add = func(t types.Type, depth int) {
		if seen[t] || depth > 8 {
			return
		}
		seen[t] = true
		if ptr, ok := types.Unalias(t).(*types.Pointer); ok {
			if _, isParam := types.Unalias(ptr.Elem()).(*types.TypeParam); isParam {
				for _, e := range typeSet(ptr.Elem()) {
					out = append(out, types.NewPointer(e))
				}
				return
			}
		}
		tp, ok := types.Unalias(t).(*types.TypeParam)
		if !ok {
			out = append(out, t)
			return
		}
		for _, term := range constraintTerms(tp) { // an embedded interface's terms too
			add(term, depth+1)
		}
	}
	add(t, 0)
	return out
}

func displayAPI(name string) string {
	if strings.HasPrefix(name, "?") {
		return strings.TrimPrefix(strings.TrimPrefix(name, "?"), ".") + " (local to the reference's code)"
	}
	return name
}

// inFile reports whether pos is in the file c checks.
func (c *fileCheck) inFile(pos token.Pos) bool {
	return pos.IsValid() && pos >= token.Pos(c.v.fset.File(c.f.Pos()).Base()) && c.v.fset.File(pos) == c.v.fset.File(c.f.Pos())
}

// ownership: rule 9, a lesson file declares methods only on the types it
// declares, and those the reference's own file for the lesson declares on
// other types (by name).
func (c *fileCheck) ownership() {
	refMethods := map[string]bool{}
	for _, d := range c.v.ref[c.name].Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && len(fn.Recv.List) > 0 {
			refMethods[recvBase(fn.Recv.List[0].Type)+"."+fn.Name.Name] = true
		}
	}
	own := map[string]bool{}
	for _, d := range c.f.Decls {
		if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
			for _, s := range g.Specs {
				if ts := s.(*ast.TypeSpec); !ts.Assign.IsValid() {
					own[ts.Name.Name] = true // an alias (type G2 = g) is another's type
				}
			}
		}
	}
	for _, d := range c.f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) == 0 {
			continue
		}
		base := recvBase(fn.Recv.List[0].Type)
		if own[base] || refMethods[base+"."+fn.Name.Name] {
			continue
		}
		c.report(fn.Name.Pos(), RuleOwnership, "declares the method %s.%s on %s, a type the file does not declare: a lesson file may add methods only to its own types: declare a function instead (func %s(x *%s, ...))",
			base, fn.Name.Name, base, fn.Name.Name, base)
	}
}

// collisions: rule 10, no package-level name of the file's is one kata's
// tests declare (the hidden tests of any lesson, their kit, the harness),
// or one their imports bind: Go refuses a package-level name that a file
// of the package imports under that name (a twenty-third red team's
// correct runq.go, with its shuffle in a helper func rand, did not
// compile in grading: the kit imports math/rand/v2).
func (c *fileCheck) collisions() {
	for _, id := range packageNames(c.f) {
		if id.Name == "_" || types.Universe.Lookup(id.Name) != nil {
			continue
		}
		if c.v.testOnly[id.Name] {
			c.report(id.Pos(), RuleCollision, "declares %s, a name kata's tests declare at package level (the graded package holds both, and the compiler would say it is redeclared): rename it", id.Name)
		} else if path, ok := c.v.testImports[id.Name]; ok {
			c.report(id.Pos(), RuleCollision, "declares %s, the name under which kata's tests import %q (the graded package holds both, and the compiler would say %s is already declared through that import): rename it", id.Name, path, id.Name)
		}
	}
}

// APIUses is what a lesson file, in place of the reference's file name,
// uses of the reference outside its own declarations, as LessonAPI names
// it: sorted, each name once. The file must type-check (it is one of the
// course's: the reference's own, or an alternate of the corpus). This is
// how a lesson's API is made (lessons/all's TestAPI).
func (v *Vetter) APIUses(name string, src []byte) ([]string, error) {
	if _, ok := v.ref[name]; !ok {
		return nil, fmt.Errorf("vet: %s is not a file of the reference", name)
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	f, err := parser.ParseFile(v.fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("vet: %w", err)
	}
	pkg, info, errs := v.check(map[string]*ast.File{name: f})
	if p, ok := v.typesProblem([]string{name}, errs); ok {
		return nil, fmt.Errorf("vet: %s", p)
	}
	c := &fileCheck{v: v, name: name, f: f, info: info, namer: newAPINamer(pkg)}
	var out []string
	for _, u := range apiUses(f, info, c.namer, c.inFile) {
		out = append(out, u.name)
	}
	c.plainAtomics()
	for _, u := range c.atomicWrites {
		out = append(out, u.name)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// APINames is every name the reference's API has (what a LessonAPI can
// list): its package-level names, and the fields and methods of its types.
func (v *Vetter) APINames() map[string]bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	pkg, _, _ := v.check(nil)
	n := newAPINamer(pkg)
	out := map[string]bool{}
	for _, name := range pkg.Scope().Names() {
		out[name] = true
	}
	for field, name := range n.fields {
		out[name] = true
		if holdsSyncAtomic(field.Type()) {
			out[name+".write"] = true // written with sync/atomic's methods (rule 17)
		}
	}
	for _, methods := range n.methodNames(func(token.Pos) bool { return false }) {
		for _, m := range methods {
			out[m.name] = true
		}
	}
	return out
}

// typeArguments refuses a generic function or type of the file's (or any)
// instantiated with a type of the reference's outside the API, spelled or
// inferred: a value of that type then passes through the type parameter,
// and the generic code reads, copies or zeroes it whole without naming it
// (a red team zeroed schedt.cfg, of type config, with a
// zeroSwap(&pp.sched.cfg), and the debug checks that sched.lock is held
// went with it). A type argument is looked into: pointers, slices, arrays,
// maps, channels, functions, and the fields of an unnamed struct. But a
// pointer to a value the API lets the file hold (held: &pp.runqhead) is
// fine: the generic handles the pointer whole, not the value, and calls
// its methods only through its constraint's, which are judged as any
// interface method of the file's is (a twelfth red team's correct
// loadBoth[C interface{ Load() uint32 }](&pp.runqhead, &pp.runqtail) was
// refused, and the same with an interface parameter accepted).
func (c *fileCheck) typeArguments(n *apiNamer, allowed func(string) bool, where string, held []types.Type) {
	pointerToHeld := func(t types.Type) bool {
		ptr, ok := types.Unalias(t).(*types.Pointer)
		return ok && slices.ContainsFunc(held, func(h types.Type) bool { return types.Identical(ptr.Elem(), h) })
	}
	for _, id := range c.instances() {
		for t := range c.info.Instances[id].TypeArgs.Types() {
			if pointerToHeld(t) {
				continue
			}
			if name := once(&c.outsideMemo, t, func() string { return n.outside(t, c.inFile, allowed) }); name != "" {
				c.report(id.Pos(), RuleAPI, "instantiates %s with %s, which reaches %s, not in %s: a generic function would handle it whole; use the names the lesson lists",
					id.Name, t, displayAPI(name), where)
				break
			}
		}
	}
}

// outside is the API name of a part of t that the lesson may not use (a
// named type of the reference's, or a field of an unnamed struct of its),
// or "" if t is made only of what the lesson may use.
func (n *apiNamer) outside(t types.Type, inFile func(token.Pos) bool, allowed func(string) bool) string {
	return findInType(t, func(t types.Type) (string, bool) {
		switch t := t.(type) {
		case *types.Named:
			if name := n.name(t.Obj(), inFile); name != "" && !allowed(name) {
				return name, false
			}
			return "", true // its type arguments; its fields are the API's to check where used
		case *types.Struct:
			for f := range t.Fields() {
				if name := n.name(f, inFile); name != "" && !allowed(name) {
					return name, false
				}
			}
		case *types.Interface:
			return "", false
		}
		return "", true
	})
}

// holdsSyncAtomic reports whether t is a sync/atomic type, or a slice or
// array of them (pMask).
func holdsSyncAtomic(t types.Type) bool {
	for {
		switch u := types.Unalias(t).(type) {
		case *types.Named:
			if u.Obj().Pkg() != nil && u.Obj().Pkg().Path() == "sync/atomic" {
				return true
			}
			t = u.Underlying()
			if _, isStruct := t.(*types.Struct); isStruct {
				return false
			}
		case *types.Slice:
			t = u.Elem()
		case *types.Array:
			t = u.Elem()
		default:
			return false
		}
	}
}
