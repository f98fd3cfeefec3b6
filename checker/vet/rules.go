package vet

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strconv"
	"strings"
)

// A fileCheck applies the rules to one lesson file.
type fileCheck struct {
	v        *Vetter
	name     string
	f        *ast.File
	info     *types.Info
	problems []Problem
	seen     map[token.Pos]bool // where a problem was found already
	namer    *apiNamer

	// atomicWrites are the reference's fields the file writes with a
	// sync/atomic method ("T.f.write"), for api to judge.
	atomicWrites []apiUse
	params       map[*types.Var]bool // the file's parameters and results (declaredIn)
	made         map[*types.Var]bool // onlyMade's answers

	// What the rules work out of a type, once per type: a file may use
	// one large type in many places, and walking it again at each would
	// make the vetter's work on a hostile file grow faster than the file.
	sizeMemo    map[types.Type]int64
	largeMemo   map[types.Type]bool
	atomicMemo  map[types.Type]string
	outsideMemo map[types.Type]string
}

// once returns f(), worked out once per type t for this file (see the
// memos of fileCheck).
func once[V any](memo *map[types.Type]V, t types.Type, f func() V) V {
	if v, ok := (*memo)[t]; ok {
		return v
	}
	if *memo == nil {
		*memo = map[types.Type]V{}
	}
	v := f()
	(*memo)[t] = v
	return v
}

func (c *fileCheck) report(pos token.Pos, rule, format string, args ...any) {
	if c.seen == nil {
		c.seen = map[token.Pos]bool{}
	}
	if c.seen[pos] {
		return
	}
	c.seen[pos] = true
	p := c.v.fset.Position(pos)
	p.Filename = c.name
	c.problems = append(c.problems, Problem{Pos: p, Rule: rule, Msg: fmt.Sprintf(format, args...)})
}

// imports: rule 1, only the lesson's allowlist.
func (c *fileCheck) imports() {
	allowed := c.v.allowedImports(c.name)
	for _, spec := range c.f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue // the compiler says why
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == path
		}
		switch {
		case !ok && path == "C":
			c.report(spec.Pos(), RuleImport, `import "C" (cgo) is not allowed in a lesson file: remove it and the comment above it`)
		case !ok:
			c.report(spec.Pos(), RuleImport, "import %q is not allowed in a lesson file: remove it (kata task lists the packages a lesson file may import)", path)
		case path == "unsafe" && spec.Name != nil && spec.Name.Name == ".":
			c.report(spec.Pos(), RuleImport, `import . "unsafe" is not allowed in a lesson file: import "unsafe" by its name`)
		}
	}
}

// inits: rule 2, no init function.
func (c *fileCheck) inits() {
	for _, d := range c.f.Decls {
		if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == "init" {
			c.report(fn.Name.Pos(), RuleInit, "a lesson file may not declare an init function (it runs before kata's tests): remove it")
		}
	}
}

// directives: rule 3, no comment the compiler or the go command reads.
func (c *fileCheck) directives() {
	for _, g := range c.f.Comments {
		for _, cm := range g.List {
			t := cm.Text
			var what string
			switch {
			case strings.HasPrefix(t, "//go:"):
				what = "the " + strings.Fields(t)[0] + " directive"
			case strings.HasPrefix(t, "//line ") || strings.HasPrefix(t, "/*line "):
				what = "a //line directive"
			case strings.HasPrefix(t, "//") && strings.HasPrefix(strings.TrimSpace(t[2:]), "+build") && cm.Pos() < c.f.Package:
				// The go command reads // +build only above the package clause.
				what = "a // +build constraint"
			case strings.HasPrefix(t, "//export ") || strings.HasPrefix(t, "//extern "):
				what = "the " + strings.Fields(t)[0] + " directive"
			default:
				continue
			}
			c.report(cm.Pos(), RuleDirective, "%s is not allowed in a lesson file: remove it", what)
		}
	}
}

// predeclared: rule 6, no package-level declaration of a name Go
// predeclares: it would change what that name means in the whole graded
// package, kata's tests and harness included (a len of the file's own
// that returns 0 makes every "len(problems) > 0" false).
func (c *fileCheck) predeclared() {
	for _, id := range packageNames(c.f) {
		if id.Name != "_" && types.Universe.Lookup(id.Name) != nil {
			c.report(id.Pos(), RuleReserved, "declares %s, a name Go predeclares: at package level it would change what %s means in kata's tests too: rename it", id.Name, id.Name)
		}
	}
}

// packageNames are the names f declares at package level: its functions
// (not its methods), types, variables and constants.
func packageNames(f *ast.File) []*ast.Ident {
	var ids []*ast.Ident
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				ids = append(ids, d.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.ValueSpec:
					ids = append(ids, s.Names...)
				case *ast.TypeSpec:
					ids = append(ids, s.Name)
				}
			}
		}
	}
	return ids
}

// names: rules 5 and 6. A name of kata's harness (kata...) may not be
// declared, nor used unless it is the file's own; a name only kata's
// tests declare may not be used.
func (c *fileCheck) names() {
	sels := map[*ast.Ident]*ast.SelectorExpr{}
	typeSwitchVars := map[*ast.Ident]bool{}
	ast.Inspect(c.f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			sels[n.Sel] = n
		case *ast.TypeSwitchStmt:
			if a, ok := n.Assign.(*ast.AssignStmt); ok && len(a.Lhs) == 1 {
				if id, ok := a.Lhs[0].(*ast.Ident); ok {
					typeSwitchVars[id] = true
				}
			}
		}
		return true
	})
	ast.Inspect(c.f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok || id == c.f.Name {
			return true
		}
		_, def := c.info.Defs[id]
		if def || typeSwitchVars[id] {
			if reservedName(id.Name) {
				c.report(id.Pos(), RuleReserved, "%s: names that start with \"kata\" are kata's test harness's: rename it", id.Name)
			}
			return true
		}
		if use, ok := c.info.Uses[id]; ok {
			// Resolved: to the file's own declaration (reported there if
			// reserved), the reference's, an import's, a field. But a
			// built-in a test file declares again is, in the graded
			// package, the test's.
			if use.Parent() == types.Universe && c.v.testOnly[id.Name] {
				c.report(id.Pos(), RuleTestOnly, "refers to %s, which kata's tests declare again (in the graded package it is theirs, not the built-in): do without it", id.Name)
			}
			return true
		}
		if sel, ok := sels[id]; ok {
			// x.name with no such field or method: only test files can
			// add methods to the reference's types.
			if reservedName(id.Name) || c.v.testMethods[id.Name] && c.hasType(sel.X) {
				c.report(id.Pos(), RuleTestOnly, "refers to %s, which only kata's tests declare: use only what the reference and your imports declare", types.ExprString(sel))
			}
			return true
		}
		if reservedName(id.Name) || c.v.testOnly[id.Name] {
			c.report(id.Pos(), RuleTestOnly, "refers to %s, which only kata's tests declare: use only what the reference and your imports declare", id.Name)
		}
		return true
	})
}

// hasType reports whether the type checker gave e a (valid) type.
func (c *fileCheck) hasType(e ast.Expr) bool {
	tv, ok := c.info.Types[e]
	return ok && tv.Type != nil && tv.Type != types.Typ[types.Invalid]
}

// initializers: rule 4, no package-level variable whose initialiser calls
// a function (it would run before kata's tests). Conversions, built-ins
// and function literals (not called) are fine. A call the type checker
// could not make out is left alone: it does not compile.
func (c *fileCheck) initializers() {
	for _, d := range c.f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for _, val := range vs.Values {
				if c.sentinelError(vs) {
					break // errors.New of a constant: no code of the file's runs
				}
				var call *ast.CallExpr
				ast.Inspect(val, func(n ast.Node) bool {
					if call != nil {
						return false
					}
					switch n := n.(type) {
					case *ast.FuncLit:
						return false // its body runs only if called
					case *ast.CallExpr:
						tv, ok := c.info.Types[n.Fun]
						if ok && !tv.IsType() && !tv.IsBuiltin() && tv.Type != nil && tv.Type != types.Typ[types.Invalid] {
							call = n
							return false
						}
					}
					return true
				})
				if call != nil {
					c.report(call.Pos(), RuleInitializer, "package-level var %s is initialised by calling %s, which runs before kata's tests: set it where it is first needed",
						names(vs.Names), types.ExprString(call.Fun))
					break
				}
			}
		}
	}
}

// globals refuses every package-level variable but the blank one's
// (rule global). A lesson file keeps no state of its own across calls: the
// scheduler's state lives in its structures, where the hidden tests look
// at it and their controlled scheduler interleaves every access to it. A
// variable of the file's own is shared by every thread and seen by
// neither: a ninth red team kept a flag of its own (a sync.Map of
// sync/atomic values) beside each ring, and a check-then-act on it passed
// the interleaving tests as if it were a CAS, 94 for a ring that earns 78.
// A constant does what a setting needs. One kind is let through: a
// sentinel error, var errX = errors.New("a constant"), that nothing in
// the file writes (sentinelError): ordinary Go for an error to panic with,
// and a twenty-sixth red team's correct file that had one scored 0.
func (c *fileCheck) globals() {
	for _, d := range c.f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.VAR {
			continue
		}
		for _, s := range g.Specs {
			if c.sentinelError(s.(*ast.ValueSpec)) {
				continue
			}
			for _, id := range s.(*ast.ValueSpec).Names {
				if id.Name != "_" {
					c.report(id.Pos(), RuleGlobal, "declares the package-level variable %s: a lesson file keeps no state of its own between calls (the scheduler's state lives in its structures, where the hidden tests watch it and interleave every access to it): use a local variable, a field the lesson's API lists, or a constant", id.Name)
				}
			}
		}
	}
	// Another package's variables are state too (a tenth red team kept a
	// try-lock in errors.ErrUnsupported, others in time.Local and
	// unicode.Categories): none may be used, read or written.
	for _, id := range c.uses() {
		v, ok := c.info.Uses[id].(*types.Var)
		if ok && v.Pkg() != nil && v.Pkg().Path() != c.v.pkgName && v.Parent() == v.Pkg().Scope() {
			c.report(id.Pos(), RuleGlobal, "uses %s.%s, a variable of package %s: a lesson file uses no package's variables, another's or its own (they are state shared by every thread, which the hidden tests do not see): use a constant, or a value made where it is needed", v.Pkg().Name(), v.Name(), v.Pkg().Path())
		}
	}
}

// sentinelError reports whether vs declares one sentinel error: a single
// variable of type error, set to errors.New of a constant string, that the
// file never writes (no assignment, ++ or --, and no address taken, so
// nothing can write it elsewhere). Its value is fixed before any test
// runs and the same for every thread: it is not state.
func (c *fileCheck) sentinelError(vs *ast.ValueSpec) bool {
	if len(vs.Names) != 1 || len(vs.Values) != 1 || vs.Names[0].Name == "_" {
		return false
	}
	obj, ok := c.info.Defs[vs.Names[0]].(*types.Var)
	if !ok || !types.Identical(obj.Type(), types.Universe.Lookup("error").Type()) {
		return false
	}
	call, ok := ast.Unparen(vs.Values[0]).(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	var fn types.Object
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.SelectorExpr:
		fn = c.info.Uses[f.Sel]
	case *ast.Ident:
		fn = c.info.Uses[f]
	}
	if fn == nil || fn.Pkg() == nil || fn.Pkg().Path() != "errors" || fn.Name() != "New" {
		return false
	}
	if tv, ok := c.info.Types[call.Args[0]]; !ok || tv.Value == nil {
		return false
	}
	written := false
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && c.info.Uses[id] == obj
	}
	ast.Inspect(c.f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				written = written || is(l)
			}
		case *ast.IncDecStmt:
			written = written || is(n.X)
		case *ast.UnaryExpr:
			written = written || n.Op == token.AND && is(n.X)
		case *ast.RangeStmt:
			written = written || n.Tok == token.ASSIGN && (n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value))
		}
		return !written
	})
	return !written
}

// foreignWrites (rule global): a package's variables are also reached through what its
// functions return (a twelfth red team wrote a whole time.Location over
// the one time.Time{}.Location() returns, package time's own utcLoc, and
// kept a counter and a shadow of each ring's head in it). So nothing of
// another package's type is written whole through a pointer: no *x = v,
// *x += v or (*x)++ where *x is of another package's named type, and no
// generic of the file's own is given another package's struct or array
// type, unless it keeps that type parameter behind pointers
// (typeparams.go), where it can write no whole value of it.
func (c *fileCheck) foreignWrites() {
	check := func(lhs ast.Expr) {
		star, ok := ast.Unparen(lhs).(*ast.StarExpr)
		if !ok {
			return
		}
		if t, ok := c.info.Types[star]; ok && c.foreign(t.Type, false) {
			c.report(star.Pos(), RuleGlobal, "writes a whole %s through a pointer: a lesson file writes no other package's values through pointers (one a function of that package returned may be its own variable, state shared by every thread that the hidden tests do not see): make the value where it is needed instead", t.Type)
		}
	}
	// And at the source: the functions of the packages a lesson file may
	// import that return a package's own variable (time's UTC and Local
	// locations: what a scan of their exported functions' returns at Go
	// 1.26 finds, but the error values, whose types a file cannot name to
	// write through). A lesson file has no use for time zones.
	for _, id := range c.uses() {
		fn, ok := c.info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil {
			continue
		}
		if name := funcName(fn); returnsPackageVariable[fn.Pkg().Path()+"."+name] {
			c.report(id.Pos(), RuleGlobal, "uses %s.%s, which returns a variable of package %s (state shared by every thread, which the hidden tests do not see): a lesson file has no use for it", fn.Pkg().Name(), name, fn.Pkg().Path())
		}
	}
	// The same methods reached through an interface of the file's own
	// (a sixteenth red team's any(t).(interface{ Location() *time.Location }),
	// and a seventeenth's, with the result spelled through an alias or a
	// type parameter).
	for _, fn := range c.interfaceMethods() {
		if m, ok := mayBeMethodOf(fn); ok {
			c.report(fn.Pos(), RuleGlobal, "declares an interface method %s, which %s could satisfy, returning a variable of package %s (an assertion would call it): a lesson file has no use for it", fn.Name(), m.recv, m.pkg)
		}
	}
	ast.Inspect(c.f, func(n ast.Node) bool {
		switch s := n.(type) {
		case *ast.CallExpr:
			c.foreignPointerConversion(s)
		case *ast.AssignStmt:
			if s.Tok != token.DEFINE {
				for _, lhs := range s.Lhs {
					check(lhs)
				}
			}
		case *ast.IncDecStmt:
			check(s.X)
		case *ast.RangeStmt:
			if s.Tok == token.ASSIGN {
				for _, lhs := range []ast.Expr{s.Key, s.Value} {
					if lhs != nil {
						check(lhs)
					}
				}
			}
		}
		return true
	})
	for _, id := range c.instances() {
		obj := c.info.Uses[id]
		if obj == nil || !c.inFile(obj.Pos()) {
			continue // the standard library's and the reference's generics are trusted
		}
		for i, t := range slices.Collect(c.info.Instances[id].TypeArgs.Types()) {
			if c.foreign(t, true) && !c.behindPointers(obj, i, map[typeParamOf]bool{}) {
				c.report(id.Pos(), RuleGlobal, "instantiates %s with %s, another package's type: the generic code could write a whole value of it through a pointer, and one that package's functions returned may be its own variable (state shared by every thread): keep the type parameter behind pointers (*T), or write the code for %s itself", id.Name, t, t)
				break
			}
		}
	}
}

// returnsPackageVariable are the functions and methods ("Type.Method") of
// the packages a lesson file may import that return a pointer to a
// variable of their package, by package path and name. (FixedZone: an
// unnamed zone of whole hours is one of package time's own, shared.)
var returnsPackageVariable = map[string]bool{"time.LoadLocation": true, "time.FixedZone": true, "time.Time.Location": true}

// methodsReturningPackageVariable are returnsPackageVariable's methods,
// with their results: what an interface of the file's own would have to
// declare to call one.
var methodsReturningPackageVariable = []returningMethod{
	{pkg: "time", recv: "time.Time", name: "Location", results: []string{"*time.Location"}},
}

// A returningMethod is a method of package pkg's type recv, name, with no
// parameters and results (each "*path.Name" or "path.Name").
type returningMethod struct {
	pkg, recv, name string
	results         []string
}

// mayBeMethodOf reports whether interface method fn could call one of
// methodsReturningPackageVariable: it has the name, no parameters, and
// as many results, each the method's type (through any alias) or one a
// type parameter could be.
func mayBeMethodOf(fn *types.Func) (returningMethod, bool) {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return returningMethod{}, false
	}
	for _, m := range methodsReturningPackageVariable {
		if fn.Name() != m.name || sig.Params().Len() != 0 || sig.Results().Len() != len(m.results) {
			continue
		}
		same := true
		for i, want := range m.results {
			got := sig.Results().At(i).Type()
			same = same && (namesType(got, want) || holdsAnyTypeParam(got))
		}
		if same {
			return m, true
		}
	}
	return returningMethod{}, false
}

// namesType reports whether t is the type want names ("*time.Location",
// "time.Location"), through any alias.
func namesType(t types.Type, want string) bool {
	t = types.Unalias(t)
	if rest, isPtr := strings.CutPrefix(want, "*"); isPtr {
		p, ok := t.(*types.Pointer)
		return ok && namesType(p.Elem(), rest)
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path()+"."+n.Obj().Name() == want
}

// holdsAnyTypeParam reports whether t is a type parameter, or a pointer
// to one: a type an instantiation could make a pointer to any type.
func holdsAnyTypeParam(t types.Type) bool {
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Pointer:
		return holdsAnyTypeParam(t.Elem())
	}
	return false
}

// funcName is fn's name, "Type.Method" for a method.
func funcName(fn *types.Func) string {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return fn.Name()
	}
	t := sig.Recv().Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	if named, ok := types.Unalias(t).(*types.Named); ok {
		return named.Obj().Name() + "." + fn.Name()
	}
	return fn.Name()
}

// foreignPointerConversion refuses call if it converts a pointer to a
// value of another package's named type to a pointer to another type: a
// fourteenth red team's own type loc time.Location, and
// *(*loc)(time.Time{}.Location()) = ..., wrote over time's utcLoc past
// foreignWrites, which sees only the type written. Either side may be a
// type parameter, whose every pointer term is judged (a fifteenth red team
// converted in a generic, P interface{ *time.Location } to *loc, and a
// *time.Location to Q interface{ *loc }).
func (c *fileCheck) foreignPointerConversion(call *ast.CallExpr) {
	fun, ok := c.info.Types[call.Fun]
	if !ok || !fun.IsType() || len(call.Args) != 1 {
		return
	}
	arg, ok := c.info.Types[call.Args[0]]
	if !ok || arg.Type == nil {
		return
	}
	for _, from := range pointerElems(arg.Type, 0) {
		if !c.foreign(from, false) {
			continue
		}
		for _, to := range pointerElems(fun.Type, 0) {
			if !types.Identical(to, from) {
				c.report(call.Pos(), RuleGlobal, "converts %s to %s: a lesson file makes no pointer of its own type to another package's value (one that package's functions returned may be its own variable, state shared by every thread, which a write through the new pointer would change)", arg.Type, fun.Type)
				return
			}
		}
	}
}

// pointerElems is what a value of type t may point at: the element of a
// pointer type, or of every pointer type a type parameter's constraint
// lists (its type set's terms, through embedded constraints).
func pointerElems(t types.Type, depth int) []types.Type {
	if depth > 8 {
		return nil
	}
	t = types.Unalias(t)
	if tp, ok := t.(*types.TypeParam); ok {
		return constraintPointerElems(tp.Constraint(), depth+1)
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return []types.Type{p.Elem()}
	}
	return nil
}

// constraintPointerElems is pointerElems of every type constraint c lists.
func constraintPointerElems(c types.Type, depth int) []types.Type {
	iface, ok := c.Underlying().(*types.Interface)
	if !ok || depth > 8 {
		return nil
	}
	var out []types.Type
	for e := range iface.EmbeddedTypes() {
		switch e := types.Unalias(e).(type) {
		case *types.Union:
			for term := range e.Terms() {
				out = append(out, pointerElems(term.Type(), depth+1)...)
			}
		default:
			if _, nested := e.Underlying().(*types.Interface); nested {
				out = append(out, constraintPointerElems(e, depth+1)...)
			} else {
				out = append(out, pointerElems(e, depth+1)...)
			}
		}
	}
	return out
}

// foreign reports whether t is a named type of another package than the
// lesson's (with records, only one whose underlying type is a struct or
// an array: a value that can hold a record).
func (c *fileCheck) foreign(t types.Type, records bool) bool {
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() == c.v.pkgName {
		return false
	}
	if !records {
		return true
	}
	switch named.Underlying().(type) {
	case *types.Struct, *types.Array:
		return true
	}
	return false
}

// uses is the file's identifiers that refer to something, in order.
func (c *fileCheck) uses() []*ast.Ident { return identsIn(c, c.info.Uses) }

func names(ids []*ast.Ident) string {
	var s []string
	for _, id := range ids {
		s = append(s, id.Name)
	}
	return strings.Join(s, ", ")
}

// unsafe: unsafe.Pointer may be named, and its values passed on, but no
// value is converted to or from it, and nothing else of package unsafe
// is used: the lesson's signatures need no more, and a conversion from
// unsafe.Pointer reads and writes any memory.
func (c *fileCheck) unsafe() {
	ast.Inspect(c.f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			x, ok := n.X.(*ast.Ident)
			if !ok {
				return true
			}
			if pn, ok := c.info.Uses[x].(*types.PkgName); ok && pn.Imported() == types.Unsafe && n.Sel.Name != "Pointer" {
				c.report(n.Pos(), RuleUnsafe, "%s is not allowed in a lesson file: of package unsafe, only the type unsafe.Pointer is", types.ExprString(n))
			}
		case *ast.CallExpr:
			tv, ok := c.info.Types[n.Fun]
			if !ok || !tv.IsType() || len(n.Args) != 1 {
				return true
			}
			arg, ok := c.info.Types[n.Args[0]]
			if !ok || arg.Type == nil {
				return true
			}
			to, from := tv.Type, arg.Type
			if from == types.Typ[types.UntypedNil] || from == types.Typ[types.Invalid] {
				return true
			}
			if (mayBeUnsafePointer(to) || mayBeUnsafePointer(from)) && !(isUnsafePointer(to) && isUnsafePointer(from)) {
				c.report(n.Pos(), RuleUnsafe, "converts %s to %s: a lesson file may pass unsafe.Pointer values on, never convert them to or from other types", from, to)
			}
		}
		return true
	})
}

// spawners are the functions and methods of the packages a lesson file may
// import that run code on a goroutine or coroutine other than the caller's
// (every one, from their sources at Go 1.26: a go statement or
// runtime.newcoro in sync, iter and time; the others have none), by
// package path and name ("Type.Method" for a method).
var spawners = map[string][]string{
	"iter": {"Pull", "Pull2"},
	"sync": {"WaitGroup.Go"},
	"time": {"AfterFunc"},
}

// goStatements and goroutines: rule 13, lesson code runs on the goroutine
// that called it. The hidden tests' controlled scheduler knows the threads
// it runs, and lets the operations of any other goroutine through
// unscheduled: a lesson function that did its work on a goroutine of its
// own (a go statement, time.AfterFunc, iter.Pull's coroutine, a
// WaitGroup's Go) and waited for it would be one indivisible step to the
// interleaving tests, and a red team's racy ring passed them that way.
func (c *fileCheck) goStatements() {
	ast.Inspect(c.f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			c.report(g.Pos(), RuleGoroutine, "a lesson file may not start a goroutine (a go statement): a lesson's functions do their work on the M that calls them, where the hidden tests' scheduler can interleave it")
		}
		return true
	})
}

func (c *fileCheck) goroutines() {
	c.goStatements()
	// A method spawner called through an interface of the file's own
	// (interface{ Go(func()) } asserted on a *sync.WaitGroup): no use of
	// the method to see, so the interface's method is refused by name.
	for _, fn := range c.interfaceMethods() {
		for pkg, names := range spawners {
			for _, name := range names {
				if _, method, ok := strings.Cut(name, "."); ok && fn.Name() == method {
					c.report(fn.Pos(), RuleGoroutine, "declares an interface method %s, as %s.%s, which runs code on a goroutine of its own (an assertion would call it): rename it", method, pkg, name)
				}
			}
		}
	}
	ast.Inspect(c.f, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return true
		}
		if name, ok := spawner(c.info.Uses[id]); ok {
			c.report(id.Pos(), RuleGoroutine, "%s runs code on a goroutine or coroutine of its own, which a lesson file may not: a lesson's functions do their work on the M that calls them, where the hidden tests' scheduler can interleave it", name)
		}
		return true
	})
}

// clocks: rule 14, a lesson file reads no clock, nor asks whether a lock
// is held (lockTells). The hidden tests'
// controlled scheduler makes each of the course's atomics a scheduling
// point, microseconds where a plain one is nanoseconds: a seventeenth red
// team timed one Load with time.Now and took the reference's order while
// watched, the mutant's otherwise (a ring that earns 78 scored 96). No
// lesson needs the time: the scheduler's clock, where a lesson reads one,
// is sched.cfg.nanotime, the tests' own.
func (c *fileCheck) clocks() {
	for _, id := range c.uses() {
		fn, ok := c.info.Uses[id].(*types.Func)
		if !ok || fn.Pkg() == nil {
			continue
		}
		if name := funcName(fn); slices.Contains(clockReaders[fn.Pkg().Path()], name) {
			c.report(id.Pos(), RuleClock, "uses %s.%s, which reads the clock: a lesson file does not (the time a call takes would tell the hidden tests' controlled runs from real ones); where a lesson needs the time, it is sched.cfg.nanotime", fn.Pkg().Name(), name)
		} else if slices.Contains(lockTells[fn.Pkg().Path()], name) {
			c.report(id.Pos(), RuleClock, "uses %s.%s, which says whether the lock is held at this moment: %s", fn.Pkg().Name(), name, lockTellFix)
		}
	}
	for _, fn := range c.interfaceMethods() {
		if slices.Contains(tryMethods, fn.Name()) {
			c.report(fn.Pos(), RuleClock, "declares an interface method %s, through which a lock would say whether it is held at this moment: %s", fn.Name(), lockTellFix)
		}
	}
}

// lockTells are the methods that say whether a lock is held at the moment
// of the call, by package path and name: in the hidden tests' controlled
// runs no thread ever finds a lock held (a thread switch never falls
// while one is, or the lock is no scheduling point at all), so a failed
// TryLock says "real threads". A twenty-third red team ran its mistake only
// then with sched.lock's TryLock, the course's (rule 8 refuses it), a
// twenty-fourth with schedt.allpLock's, a sync.Mutex. tryMethods are their
// names, refused as a method of an interface of the file's too (an
// assertion would call them).
var (
	lockTells   = map[string][]string{"sync": {"Mutex.TryLock", "RWMutex.TryLock", "RWMutex.TryRLock"}}
	tryMethods  = []string{"TryLock", "TryRLock"}
	lockTellFix = "a lesson file does not ask (a failed TryLock happens only on real threads, so it could tell them from the hidden tests' controlled runs): take the lock with its Lock"
)

// clockReaders are the functions of the packages a lesson file may import
// that read the clock or wait for it, by package path and name (those of
// time at Go 1.26, but AfterFunc, which rule 13 refuses).
var clockReaders = map[string][]string{
	"time": {"Now", "Since", "Until", "Sleep", "After", "Tick", "NewTimer", "NewTicker"},
}

// testInterfaces: rule 5 for methods reached by a type assertion. An
// interface of the file's with a method the hidden tests declare on a
// reference type (the reference's copies they are compared with,
// ref_globrunqget...) would call it: a seventh red team's lesson 03 file
// with no queue logic scored 100 that way.
func (c *fileCheck) testInterfaces() {
	for _, fn := range c.interfaceMethods() {
		if c.v.testMethods[fn.Name()] && !standardMethod(fn) {
			c.report(fn.Pos(), RuleTestOnly, "declares an interface method %s, as kata's tests declare on the reference's types (an assertion would call theirs): rename it", fn.Name())
		}
	}
}

// standardMethods are the methods of the standard interfaces a lesson
// file may assert to (sync.Locker, error, fmt.Stringer), by name, with
// their signatures. An interface of the file's with one of them, name and
// signature, reaches nothing those interfaces do not: it is not refused
// for the name (a red team's correct file with its own interface{ Lock();
// Unlock() } scored 0 where the same with sync.Locker scored 100).
var standardMethods = map[string]string{"Lock": "func()", "Unlock": "func()", "Error": "func() string", "String": "func() string"}

// standardMethod reports whether fn, an interface method, is one of
// standardMethods.
func standardMethod(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return false
	}
	want, ok := standardMethods[fn.Name()]
	return ok && types.TypeString(types.NewSignatureType(nil, nil, nil, sig.Params(), sig.Results(), sig.Variadic()), nil) == want
}

// interfaceMethods returns the methods of the interfaces the file
// declares, in the file's order.
func (c *fileCheck) interfaceMethods() []*types.Func {
	var out []*types.Func
	ast.Inspect(c.f, func(n ast.Node) bool {
		it, ok := n.(*ast.InterfaceType)
		if !ok {
			return true
		}
		for _, field := range it.Methods.List {
			for _, name := range field.Names {
				if fn, ok := c.info.Defs[name].(*types.Func); ok {
					out = append(out, fn)
				}
			}
		}
		return true
	})
	return out
}

// spawner reports whether obj is one of spawners, and its name
// ("time.AfterFunc", "sync.WaitGroup.Go").
func spawner(obj types.Object) (string, bool) {
	fn, ok := obj.(*types.Func)
	if !ok || fn.Pkg() == nil {
		return "", false
	}
	name := funcName(fn)
	return fn.Pkg().Name() + "." + name, slices.Contains(spawners[fn.Pkg().Path()], name)
}

// isUnsafePointer reports whether t is unsafe.Pointer, or a type defined
// by it (not a type parameter).
func isUnsafePointer(t types.Type) bool {
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Kind() == types.UnsafePointer
}

// mayBeUnsafePointer reports whether t is unsafe.Pointer or a type
// parameter one of whose types may be.
func mayBeUnsafePointer(t types.Type) bool {
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		return constraintHasUnsafePointer(tp.Constraint(), map[types.Type]bool{})
	}
	return isUnsafePointer(t)
}

func constraintHasUnsafePointer(t types.Type, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch u := t.Underlying().(type) {
	case *types.Interface:
		for i := range u.NumEmbeddeds() {
			if constraintHasUnsafePointer(u.EmbeddedType(i), seen) {
				return true
			}
		}
		return false
	case *types.Union:
		for i := range u.Len() {
			if constraintHasUnsafePointer(u.Term(i).Type(), seen) {
				return true
			}
		}
		return false
	}
	if tp, ok := types.Unalias(t).(*types.TypeParam); ok {
		return constraintHasUnsafePointer(tp.Constraint(), seen)
	}
	return isUnsafePointer(t)
}

// addAtomics adds to set the types f defines on a type of sync/atomic or
// sync (type atomicUint32 atomic.Uint32, type atomicPointer[T any]
// atomic.Pointer[T], type mutex sync.Mutex): the course's atomics and its
// lock, whose methods are the hidden tests' scheduling points. A red team
// took sched.lock as (*sync.Mutex)(&pp.sched.lock), unseen by them.
func addAtomics(set map[string]bool, f *ast.File) {
	pkgs := map[string]bool{}
	for _, spec := range f.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		if path != "sync/atomic" && path != "sync" {
			continue
		}
		name := pathBase(path)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		pkgs[name] = true
	}
	if len(pkgs) == 0 {
		return
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, s := range g.Specs {
			ts := s.(*ast.TypeSpec)
			t := ts.Type
			if ix, ok := t.(*ast.IndexExpr); ok {
				t = ix.X
			}
			if sel, ok := t.(*ast.SelectorExpr); ok && ts.Assign == 0 {
				if x, ok := sel.X.(*ast.Ident); ok && pkgs[x.Name] {
					set[ts.Name.Name] = true
				}
			}
		}
	}
}

// atomicConversions: rule 11, no conversion of a value of the course's
// atomics or lock, or of a pointer to one, to another type but an
// interface (toInterface); a value of a
// type parameter is judged by every type its constraint lists (typeSet) (a
// twenty-third red team's word[P interface{ *atomicRingIndex }, Q
// interface{ *atomic.Uint32 }](p P) Q { return Q(p) } handed a ring's
// index over as a bare sync/atomic one, with no scheduling point).
func (c *fileCheck) atomicConversions() {
	ast.Inspect(c.f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			return true
		}
		tv, ok := c.info.Types[call.Fun]
		arg, ok2 := c.info.Types[call.Args[0]]
		if !ok || !ok2 || !tv.IsType() || arg.Type == nil {
			return true
		}
		if types.Identical(tv.Type, arg.Type) || toInterface(tv.Type) {
			return true
		}
		for _, t := range typeSet(arg.Type) {
			if name, ok := c.courseAtomic(t); ok {
				c.report(call.Pos(), RuleAtomic, "converts %s (%s) to %s, past the scheduling point the hidden tests put before every operation of %s: call its methods instead", types.ExprString(call.Args[0]), t, tv.Type, name)
				break
			}
		}
		return true
	})
}

// toInterface reports whether a conversion to t keeps the value's own
// methods: t is an interface type (not a type parameter, whose type set
// may hold concrete types). A call through the interface is a call of
// the dynamic type's method, the course's own with its scheduling point,
// as when the conversion is implicit (a twenty-fourth red team's correct
// files wrote counter(&pp.runqhead) and sync.Locker(&pp.sched.lock)).
func toInterface(t types.Type) bool {
	if _, ok := types.Unalias(t).(*types.TypeParam); ok {
		return false
	}
	return types.IsInterface(t)
}

// courseAtomic reports whether t is one of the course's atomics, or a
// pointer to one, and its name.
func (c *fileCheck) courseAtomic(t types.Type) (string, bool) {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != c.v.pkgName {
		return "", false
	}
	return named.Obj().Name(), c.v.atomics[named.Obj().Name()]
}

// maxValueSize bounds the data a lesson file may spell, in bytes, all of
// it together: 1 MiB, 500 times the reference's largest value (a P's ring
// of 256 pointers, 2 KiB).
const maxValueSize = 1 << 20

// largeValues: rule 12, a lesson file spells at most maxValueSize bytes of
// data in all, and no type larger than that. The compiler writes a literal
// out whole, into the grader's build cache, where no run's limit reaches
// and where it stays: a red team's one line of [200 << 20]byte{200<<20 -
// 1: 1} put 214 MB there. Counted, over the whole file: every composite
// literal (an array's or a struct's by its type's size, where no enclosing
// literal counts it already; a slice's or a map's by its elements), and
// every constant string, where it is spelled or used (a fourth red team
// put 17 MiB in the cache with a constant doubled twenty times, 16 MiB
// with sixteen literals of 1 MiB each, and 25 MiB with []byte{20 << 20:
// 1}). And every expression's type, instantiations of generic functions
// included, is sized: an array of 1<<20 elements of an inferred type
// parameter was 16 MiB that the file never spelled.
func (c *fileCheck) largeValues() {
	b := &dataBudget{c: c}
	ast.Inspect(c.f, b.walk)
	for _, id := range c.instances() {
		for t := range c.info.Instances[id].TypeArgs.Types() {
			if c.tooLarge(t) {
				c.report(id.Pos(), RuleLarge, "%s is instantiated with %s, which takes more than %d MiB: a lesson file needs nothing that large", id.Name, t, maxValueSize>>20)
				break
			}
		}
	}
}

// A dataBudget counts the data a file spells (largeValues), and refuses
// each type too large by itself where it is spelled or a value of it made.
type dataBudget struct {
	c     *fileCheck
	total int64 // the bytes counted so far
	spent bool  // past maxValueSize: reported once

	// The file's own constants: the expression each is declared with, and
	// its length once worked out (see stringLen).
	constExprs map[*types.Const]ast.Expr
	constLens  map[*types.Const]int64
}

// add counts n bytes of what, at pos.
func (b *dataBudget) add(pos token.Pos, n int64, what string) {
	if b.spent {
		return
	}
	if b.total += n; n < 0 || b.total > maxValueSize {
		b.spent = true
		b.c.report(pos, RuleLarge, "%s brings the data this file spells past %d MiB: a lesson file needs nothing that large", what, maxValueSize>>20)
	}
}

// stringLen is the length of e, a constant string, worked out from its
// parts: go/constant keeps a sum of strings as its parts and joins them
// only when asked for the value, so a file that doubles a constant thirty
// times costs the type checker nothing, and would cost the vetter 2^30
// bytes if it asked (a seventh red team's 40 lines took 550 MiB so). Each
// constant the file declares is measured once; a length past the budget
// is counted as just past it. Anything else is short, or not the file's:
// its value is asked for.
func (b *dataBudget) stringLen(e ast.Expr) int64 {
	info := b.c.info
	switch x := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		if x.Op == token.ADD {
			return min(b.stringLen(x.X)+b.stringLen(x.Y), maxValueSize+1)
		}
	case *ast.Ident:
		if k, ok := info.Uses[x].(*types.Const); ok {
			if n, ok := b.constLen(k); ok {
				return n
			}
		}
	case *ast.SelectorExpr: // pkg.Name: no package the file imports is the file's
	case *ast.CallExpr: // a conversion to a string type
		if len(x.Args) == 1 {
			if tv := info.Types[x.Args[0]]; tv.Value != nil && tv.Value.Kind() == constant.String {
				return b.stringLen(x.Args[0])
			}
		}
	}
	return int64(len(constant.StringVal(info.Types[e].Value)))
}

// constLen is the length of k's value if the file declares k, from the
// expression it declares it with.
func (b *dataBudget) constLen(k *types.Const) (int64, bool) {
	if b.constExprs == nil {
		b.constExprs, b.constLens = b.c.constExprs(), map[*types.Const]int64{}
	}
	x, ok := b.constExprs[k]
	if !ok {
		return 0, false
	}
	if n, ok := b.constLens[k]; ok {
		return n, true
	}
	b.constLens[k] = 0 // a cycle is a type error: it never gets this far
	n := b.stringLen(x)
	b.constLens[k] = n
	return n, true
}

// constExprs is the expression each string constant of the file is
// declared with (in a group, a name without one repeats the last).
func (c *fileCheck) constExprs() map[*types.Const]ast.Expr {
	exprs := map[*types.Const]ast.Expr{}
	ast.Inspect(c.f, func(n ast.Node) bool {
		d, ok := n.(*ast.GenDecl)
		if !ok || d.Tok != token.CONST {
			return true
		}
		var last []ast.Expr
		for _, spec := range d.Specs {
			vs := spec.(*ast.ValueSpec)
			if len(vs.Values) > 0 {
				last = vs.Values
			}
			for i, name := range vs.Names {
				if k, ok := c.info.Defs[name].(*types.Const); ok && i < len(last) && k.Val().Kind() == constant.String {
					exprs[k] = last[i]
				}
			}
		}
		return true
	})
	return exprs
}

// array refuses n if it is an array type too large by itself; it says
// whether to look inside n.
func (b *dataBudget) array(n ast.Node) bool {
	c := b.c
	if t, ok := n.(*ast.ArrayType); ok {
		if at := c.info.TypeOf(t); at != nil && c.tooLarge(at) {
			c.report(t.Pos(), RuleLarge, "%s takes more than %d MiB: a lesson file needs nothing that large", at, maxValueSize>>20)
			return false
		}
	}
	return true
}

// walk is visit outside any literal, for ast.Inspect.
func (b *dataBudget) walk(n ast.Node) bool { return b.visit(n, false) }

// visit counts what n spells: a constant string, or a literal (inLiteral:
// an element of an enclosing literal, which counts it already if it is an
// array's or a struct's). It says whether ast.Inspect should look inside n.
func (b *dataBudget) visit(n ast.Node, inLiteral bool) bool {
	c := b.c
	if !b.array(n) {
		return false
	}
	e, ok := n.(ast.Expr)
	if !ok {
		return true
	}
	tv, ok := c.info.Types[e]
	if !ok {
		return true
	}
	if tv.Value != nil && tv.Value.Kind() == constant.String {
		n := b.stringLen(e)
		b.add(e.Pos(), n, "a constant string of "+byteCount(n))
		return false
	}
	switch e.(type) {
	case *ast.CompositeLit, *ast.CallExpr: // where a value is made (a generic function's, its type inferred)
		if tv.Type != nil && !tv.IsType() && c.tooLarge(tv.Type) {
			c.report(e.Pos(), RuleLarge, "a value of type %s takes more than %d MiB: a lesson file needs nothing that large", tv.Type, maxValueSize>>20)
			return false
		}
	}
	if lit, ok := e.(*ast.CompositeLit); ok && tv.Type != nil {
		b.literal(lit, tv.Type, inLiteral)
		return false
	}
	return true
}

// literal counts lit, of type t, and what its elements spell.
func (b *dataBudget) literal(lit *ast.CompositeLit, t types.Type, inLiteral bool) {
	c := b.c
	if lit.Type != nil {
		ast.Inspect(lit.Type, b.array)
	}
	switch u := t.Underlying().(type) {
	case *types.Slice:
		b.add(lit.Pos(), c.elemsSize(lit, u.Elem()), "a slice literal of "+t.String())
	case *types.Map:
		b.add(lit.Pos(), int64(len(lit.Elts))*(c.sizeOf(u.Key())+c.sizeOf(u.Elem())), "a map literal of "+t.String())
	default:
		if !inLiteral {
			b.add(lit.Pos(), c.sizeOf(t), "a literal of "+t.String())
		}
	}
	// An element that is an array or struct literal is counted in this
	// one's size, or its elements' (inLiteral); one that is a slice or map
	// literal has data of its own, counted as such. Anything else in an
	// element (a function literal's body, the &T{...} of a pointer) is
	// counted as if outside any literal.
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			ast.Inspect(kv.Key, b.walk)
			elt = kv.Value
		}
		if inner, ok := ast.Unparen(elt).(*ast.CompositeLit); ok {
			if b.visit(inner, true) {
				ast.Inspect(inner, b.walk)
			}
		} else {
			ast.Inspect(elt, b.walk)
		}
	}
}

// instances is the identifiers of the file that instantiate a generic
// function or type, in the order they are spelled.
func (c *fileCheck) instances() []*ast.Ident { return identsIn(c, c.info.Instances) }

// identsIn is the identifiers of the file among m's keys, in the order
// they are spelled.
func identsIn[V any](c *fileCheck, m map[*ast.Ident]V) []*ast.Ident {
	var ids []*ast.Ident
	for id := range m {
		if c.inFile(id.Pos()) {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b *ast.Ident) int { return cmp.Compare(a.Pos(), b.Pos()) })
	return ids
}

// elemsSize is the size of a slice literal's elements: as many as its
// highest index, keyed or not, plus one.
func (c *fileCheck) elemsSize(lit *ast.CompositeLit, elem types.Type) int64 {
	var n, next int64
	for _, elt := range lit.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if tv, ok := c.info.Types[kv.Key]; ok && tv.Value != nil {
				if i, exact := constant.Int64Val(constant.ToInt(tv.Value)); exact {
					next = i
				} else {
					return -1
				}
			}
		}
		next++
		n = max(n, next)
	}
	if size := c.sizeOf(elem); size > 0 && n > maxValueSize/size+1 {
		return -1 // past any budget, without overflowing
	} else {
		return n * size
	}
}

// sizeOf is t's size, or 1 where go/types cannot size it (a type
// parameter's: tooLarge looks at the instantiations).
func (c *fileCheck) sizeOf(t types.Type) int64 {
	return once(&c.sizeMemo, t, func() int64 {
		if !sizable(t) {
			return 1
		}
		return max(c.v.sizes.Sizeof(t), 1)
	})
}

// byteCount says n bytes in KiB or MiB once that is shorter.
func byteCount(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// tooLarge reports whether a value of type t takes more than maxValueSize
// bytes. An array of more elements than that does, whatever they are (a
// generic function's [n]T too); a type whose size depends on a type
// parameter otherwise is not sized (go/types' Sizeof must not be asked).
func (c *fileCheck) tooLarge(t types.Type) bool {
	return once(&c.largeMemo, t, func() bool {
		if a, ok := t.Underlying().(*types.Array); ok && a.Len() > maxValueSize {
			return true
		}
		if !sizable(t) {
			return false
		}
		size := c.v.sizes.Sizeof(t)
		return size < 0 || size > maxValueSize
	})
}

// sizable reports whether go/types can size t: one value's type, typed
// and valid, with no type parameter in what its size depends on (array
// elements and struct fields).
func sizable(t types.Type) bool {
	switch u := types.Unalias(t).(type) {
	case *types.TypeParam, *types.Tuple:
		return false
	case *types.Basic:
		return u.Kind() != types.Invalid && u.Info()&types.IsUntyped == 0
	}
	switch u := t.Underlying().(type) {
	case *types.Basic:
		return u.Kind() != types.Invalid
	case *types.Array:
		return sizable(u.Elem())
	case *types.Struct:
		for f := range u.Fields() {
			if !sizable(f.Type()) {
				return false
			}
		}
	}
	return true
}

// wholeValues: a value that holds one of the course's atomics or its lock
// (rule 11), or a value of a struct type of the reference's outside the
// lesson's API (rule 8), is used only in place: a field or method
// selected from it, its address taken, an element indexed, its length.
// Anything else copies, compares or assigns it whole. A fifth red team
// copied pp.runqhead by value (snap := pp.runqhead; if pp.runqhead ==
// snap { pp.runqhead = next }): plain reads and writes, no scheduling
// point, so a check-then-store passed the interleaving tests as if it were
// a CAS; and kept a scheduler's config (plain := pp.sched.cfg, of type
// config, not in the API) to write it over another's later, which turned
// off the debug checks that sched.lock is held.
func (c *fileCheck) wholeValues(n *apiNamer, allowed func(string) bool, where string) {
	c.genericWholes()
	ast.PreorderStack(c.f, nil, func(node ast.Node, stack []ast.Node) bool {
		if rs, ok := node.(*ast.RangeStmt); ok {
			c.rangeCopies(rs)
		}
		e, ok := node.(ast.Expr)
		if !ok {
			return true
		}
		tv, ok := c.info.Types[e]
		if !ok || tv.IsType() || tv.Type == nil || inPlace(e, stack, c.info) {
			return true
		}
		if name := c.holdsAtomic(tv.Type); name != "" {
			c.report(e.Pos(), RuleAtomic, "%s holds %s, and is used here as a whole value (copied, compared or assigned), past the scheduling points the hidden tests put in its methods: use its methods (x.Load()) or its address (&x)",
				types.ExprString(e), name)
			return false
		}
		if named, ok := types.Unalias(tv.Type).(*types.Named); ok {
			if _, isStruct := named.Underlying().(*types.Struct); isStruct {
				if name := n.name(named.Obj(), c.inFile); name != "" && !allowed(name) {
					c.report(e.Pos(), RuleAPI, "%s is a whole value of %s, which is not in %s, used here as a whole (copied, compared or assigned): reach the fields the lesson lists through it instead",
						types.ExprString(e), displayAPI(name), where)
					return false
				}
			}
		}
		return true
	})
}

// rangeCopies refuses a range statement whose value copies elements that
// hold the course's atomics: over a slice or an array pointer the range
// expression is no whole value, but each element is copied into the value
// variable, a read with no scheduling point (a twenty-first red team's
// thief watched the owner's next slot so, through pp.runq[i:i+1]).
func (c *fileCheck) rangeCopies(rs *ast.RangeStmt) {
	if rs.Value == nil {
		return
	}
	if id, ok := rs.Value.(*ast.Ident); ok && id.Name == "_" {
		return
	}
	var elem types.Type
	t := c.info.TypeOf(rs.X)
	if t == nil {
		return
	}
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	switch u := t.Underlying().(type) {
	case *types.Slice:
		elem = u.Elem()
	case *types.Array:
		elem = u.Elem()
	default:
		return
	}
	if name := c.holdsAtomic(elem); name != "" {
		c.report(rs.Value.Pos(), RuleAtomic, "%s copies each element of %s, which holds %s, past the scheduling points the hidden tests put in its methods: range over the indexes (for i := range ...) and use the element's methods or address",
			types.ExprString(rs.Value), types.ExprString(rs.X), name)
	}
}

// genericWholes is wholeValues for the file's own generic functions and
// types: inside one, a value of a type parameter is copied, compared or
// assigned with no type to see, so the type arguments are looked at
// instead. One that holds an atomic or the lock by value is refused (a
// pointer to it is fine): an eighth red team's plainCopy[T any](dst, src
// *T) { *dst = *src } of a whole P made a check-then-store look like a
// CAS to the interleaving tests, and scored 12 points it had not earned.
// A generic that keeps the type parameter behind pointers
// (typeparams.go) is fine with any type argument.
func (c *fileCheck) genericWholes() {
	for _, id := range c.instances() {
		obj := c.info.Uses[id]
		if obj == nil || !c.inFile(obj.Pos()) {
			continue // the standard library's and the reference's generics are trusted
		}
		for i, t := range slices.Collect(c.info.Instances[id].TypeArgs.Types()) {
			if name := c.holdsAtomic(t); name != "" && !c.behindPointers(obj, i, map[typeParamOf]bool{}) {
				c.report(id.Pos(), RuleAtomic, "instantiates %s with %s, which holds %s: the generic code could copy, compare or assign it whole, past the scheduling points the hidden tests put in its methods: make the type argument a pointer (*%s)",
					id.Name, t, name, t)
				break
			}
		}
	}
}

// inPlace reports whether e, whose parents are stack, is used without
// being copied: a field or method selected from it, its address taken, an
// element indexed, the array sliced, a range over its indexes only, or its
// len or cap.
func inPlace(e ast.Expr, stack []ast.Node, info *types.Info) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		switch p := stack[i].(type) {
		case *ast.ParenExpr:
			e = p
			continue
		case *ast.SelectorExpr:
			return p.X == e
		case *ast.UnaryExpr:
			return p.Op == token.AND
		case *ast.IndexExpr:
			return p.X == e
		case *ast.SliceExpr:
			return p.X == e // an array sliced in place: its elements, behind the slice's pointer
		case *ast.RangeStmt:
			return p.X == e && p.Value == nil
		case *ast.CallExpr:
			if id, ok := ast.Unparen(p.Fun).(*ast.Ident); ok {
				if b, ok := info.Uses[id].(*types.Builtin); ok && (b.Name() == "len" || b.Name() == "cap") {
					return true
				}
			}
		}
		return false
	}
	return false
}

// holdsAtomic is the name of the course's atomic or lock a value of type
// t holds (itself, or in a field or an element, not behind a pointer), or
// "" if it holds none.
func (c *fileCheck) holdsAtomic(t types.Type) string {
	if name, ok := c.atomicMemo[t]; ok {
		return name
	}
	once(&c.atomicMemo, t, func() string { return "" }) // a type being looked into holds nothing more through itself
	name := ""
	if _, isPtr := types.Unalias(t).(*types.Pointer); !isPtr {
		if atomic, ok := c.courseAtomic(t); ok {
			name = atomic
		}
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		for f := range u.Fields() {
			if name != "" {
				break
			}
			name = c.holdsAtomic(f.Type())
		}
	case *types.Array:
		if name == "" {
			name = c.holdsAtomic(u.Elem())
		}
	}
	c.atomicMemo[t] = name
	return name
}

// funcFields: rule 15, a lesson file stores a func in a field of the
// reference's types only where the reference's own file of the same name
// stores one in that field (gopark keeps its caller's unlockf in
// m.waitunlockf until park_m calls it), and takes the address of none. A
// closure stored in sched.cfg.usleep (a nineteenth red team's) lives as
// long as the scheduler and carries variables of its own from call to
// call and thread to thread, where no hidden test sees them: a
// package-level variable (rule 4) by another name.
func (c *fileCheck) funcFields() {
	ownWrites := assignedFields(c.v.ref[c.name])
	refFuncField := func(e ast.Expr) (*types.Var, bool) {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return nil, false
		}
		s, ok := c.info.Selections[sel]
		if !ok || s.Kind() != types.FieldVal {
			return nil, false
		}
		field := s.Obj().(*types.Var)
		if field.Pkg() == nil || field.Pkg().Path() != c.v.pkgName || c.inFile(field.Pos()) {
			return nil, false
		}
		_, isFunc := field.Type().Underlying().(*types.Signature)
		return field, isFunc
	}
	// stores judges a store of value (nil: one the file cannot show, a
	// range's or a call's) into lhs, in the function fn.
	stores := func(lhs, value ast.Expr, fn *ast.FuncDecl) {
		field, ok := refFuncField(lhs)
		if !ok {
			return
		}
		if !ownWrites[field.Name()] {
			c.report(lhs.Pos(), RuleFuncField, "stores a func in %s, a field of the scheduler's: a func kept there (a closure, a method value) would carry state of the file's own from call to call, where no hidden test sees it; call it, or keep what you need in the fields the lesson lists",
				types.ExprString(lhs))
			return
		}
		if !c.givenFunc(value, fn) {
			c.report(lhs.Pos(), RuleFuncField, "stores in %s a func of the file's own making: the reference keeps there only the func its caller gave (a parameter, as gopark keeps unlockf) or nil, and anything else kept there (a closure over a variable of the file's) carries state from call to call, where no hidden test sees it (a thirty-third red team's did); store the parameter itself",
				types.ExprString(lhs))
		}
	}
	for _, decl := range c.f.Decls {
		fn, _ := decl.(*ast.FuncDecl)
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for i, lhs := range n.Lhs {
					var value ast.Expr
					if len(n.Rhs) == len(n.Lhs) {
						value = n.Rhs[i]
					}
					stores(lhs, value, fn)
				}
			case *ast.RangeStmt: // for k, v = range ...: a twentieth red team's
				if n.Tok == token.ASSIGN {
					for _, lhs := range []ast.Expr{n.Key, n.Value} {
						if lhs != nil {
							stores(lhs, nil, fn)
						}
					}
				}
			case *ast.UnaryExpr:
				if field, ok := refFuncField(n.X); ok && n.Op == token.AND {
					c.report(n.Pos(), RuleFuncField, "takes the address of %s, a func field of the scheduler's (%s), through which a func could be stored there: call it instead",
						types.ExprString(n.X), field.Name())
				}
			}
			return true
		})
	}
}

// givenFunc reports whether value, stored in a func field of the
// reference's by the function fn, is what the reference's own file stores
// there: nil, a parameter of fn that fn never assigns, a package-level
// function, or a func literal whose only free variables are such
// parameters (a wrapper of the func given, which keeps no state of its
// own).
func (c *fileCheck) givenFunc(value ast.Expr, fn *ast.FuncDecl) bool {
	if value == nil || fn == nil {
		return false
	}
	value = ast.Unparen(value)
	if id, ok := value.(*ast.Ident); ok && id.Name == "nil" {
		_, isNil := c.info.Uses[id].(*types.Nil)
		return isNil
	}
	params := map[*types.Var]bool{}
	for _, fl := range fn.Type.Params.List {
		for _, name := range fl.Names {
			if v, ok := c.info.Defs[name].(*types.Var); ok {
				params[v] = true
			}
		}
	}
	// A parameter fn assigns (or takes the address of) may hold anything.
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		var targets []ast.Expr
		switch n := n.(type) {
		case *ast.AssignStmt:
			targets = n.Lhs
		case *ast.RangeStmt:
			targets = []ast.Expr{n.Key, n.Value}
		case *ast.IncDecStmt:
			targets = []ast.Expr{n.X}
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				targets = []ast.Expr{n.X}
			}
		}
		for _, e := range targets {
			if id, ok := ast.Unparen(e).(*ast.Ident); ok {
				if v, ok := c.info.Uses[id].(*types.Var); ok {
					delete(params, v)
				}
			}
		}
		return true
	})
	if id, ok := value.(*ast.Ident); ok {
		switch obj := c.info.Uses[id].(type) {
		case *types.Var:
			return params[obj]
		case *types.Func: // a package-level function: no state of its own
			return obj.Parent() != nil && obj.Parent() == obj.Pkg().Scope()
		}
		return false
	}
	lit, ok := value.(*ast.FuncLit)
	if !ok {
		return false
	}
	pure := true
	ast.Inspect(lit.Body, func(n ast.Node) bool {
		id, ok := n.(*ast.Ident)
		if !ok {
			return pure
		}
		v, ok := c.info.Uses[id].(*types.Var)
		if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() {
			return pure // not a variable, a field, or a package's (rule 4's)
		}
		if v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
			return pure // the literal's own: made afresh at each call
		}
		pure = pure && params[v]
		return pure
	})
	return pure
}

// assignedFields are the names of the fields f assigns to (x.name = ...).
func assignedFields(f *ast.File) map[string]bool {
	out := map[string]bool{}
	if f == nil {
		return out
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			for _, lhs := range as.Lhs {
				if sel, ok := ast.Unparen(lhs).(*ast.SelectorExpr); ok {
					out[sel.Sel.Name] = true
				}
			}
		}
		return true
	})
	return out
}
