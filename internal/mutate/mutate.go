package mutate

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// A Mutant is one small change to one function of a file.
type Mutant struct {
	// ID numbers the mutants of a file from 1, in source order; it is the
	// value that selects the mutant in the schemata (0: the original).
	ID int
	// Key names the mutant for people and for lists of equivalent mutants:
	// "Func/op/N", the Nth mutant of operator op in function Func (Recv.Func
	// for a method). It stays the same while that function does.
	Key  string
	Func string
	Op   string
	Line int
	// Old and New are the changed text, on one line each, for reports.
	Old, New string

	fn    *ast.FuncDecl
	edits []edit
}

func (m *Mutant) String() string {
	return fmt.Sprintf("%s (line %d): %s → %s", m.Key, m.Line, m.Old, m.New)
}

// An edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// A File is a parsed Go file and the mutants made from it.
type File struct {
	Name    string
	Src     []byte
	Mutants []*Mutant

	fset  *token.FileSet
	ast   *ast.File
	added []addedFunc // the functions variants add (FromVariants), put at the end of the schemata
}

// Generate parses src and makes every mutant of every function in it that
// is not marked //kata:given. The mutants are not type-checked: see
// Package.Check.
func Generate(name string, src []byte) (*File, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
	if err != nil {
		return nil, fmt.Errorf("mutate: %w", err)
	}
	file := &File{Name: name, Src: src, fset: fset, ast: f}
	for _, d := range f.Decls {
		fn, ok := d.(*ast.FuncDecl)
		if !ok || fn.Body == nil || fn.Type.TypeParams != nil || given(fn) {
			continue
		}
		g := &gen{file: file, fn: fn, counts: map[string]int{}}
		g.function()
		file.Mutants = append(file.Mutants, g.out...)
	}
	for i, m := range file.Mutants {
		m.ID = i + 1
	}
	return file, nil
}

// given reports whether fn's doc comment marks it as code the lesson gives.
func given(fn *ast.FuncDecl) bool {
	if fn.Doc == nil {
		return false
	}
	for _, c := range fn.Doc.List {
		if strings.TrimSpace(c.Text) == "//kata:given" {
			return true
		}
	}
	return false
}

// funcName is Func or Recv.Func.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}

// Apply returns the file's source with m applied.
func (f *File) Apply(m *Mutant) []byte {
	return applyEdits(f.Src, m.edits)
}

func applyEdits(src []byte, edits []edit) []byte {
	es := slices.Clone(edits)
	slices.SortFunc(es, func(a, b edit) int { return b.start - a.start })
	out := slices.Clone(src)
	for _, e := range es {
		out = slices.Concat(out[:e.start], []byte(e.text), out[e.end:])
	}
	return out
}

// gen makes the mutants of one function.
type gen struct {
	file   *File
	fn     *ast.FuncDecl
	counts map[string]int
	out    []*Mutant
}

func (g *gen) off(p token.Pos) int { return g.file.fset.Position(p).Offset }

func (g *gen) text(n ast.Node) string {
	return string(g.file.Src[g.off(n.Pos()):g.off(n.End())])
}

// add records a mutant of operator op at node at, made of edits.
func (g *gen) add(op string, at ast.Node, old, new string, edits ...edit) {
	name := funcName(g.fn)
	g.counts[op]++
	g.out = append(g.out, &Mutant{
		Key:  fmt.Sprintf("%s/%s/%d", name, op, g.counts[op]),
		Func: name, Op: op,
		Line: g.file.fset.Position(at.Pos()).Line,
		Old:  oneLine(old), New: oneLine(new),
		fn: g.fn, edits: edits,
	})
}

// replace is the edit that puts text in place of n.
func (g *gen) replace(n ast.Node, text string) edit {
	return edit{g.off(n.Pos()), g.off(n.End()), text}
}

// oneLine shortens s to one line of at most 70 characters.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 70 {
		s = string(r[:67]) + "..."
	}
	if s == "" {
		return "(nothing)"
	}
	return s
}

func (g *gen) function() {
	ast.Inspect(g.fn.Body, func(n ast.Node) bool {
		if at, ok := n.(*ast.ArrayType); ok && at.Len != nil {
			// An array's length is part of a type: changing it changes no
			// behaviour, or does not compile.
			return false
		}
		switch n := n.(type) {
		case *ast.BlockStmt:
			g.statements(n.List)
		case *ast.CaseClause:
			g.statements(n.Body)
		case *ast.CommClause:
			g.statements(n.Body)
		case *ast.IfStmt:
			c := g.text(n.Cond)
			g.add("negate-if", n.Cond, c, "!("+c+")", g.replace(n.Cond, "!("+c+")"))
		case *ast.ForStmt:
			if n.Init == nil && n.Cond == nil && n.Post == nil {
				g.add("drop-retry", n, "for {", "for range 1 {",
					edit{g.off(n.For), g.off(n.Body.Lbrace), "for range 1 "})
			}
		case *ast.BranchStmt:
			if n.Tok == token.CONTINUE {
				g.add("drop-retry", n, g.text(n), "", g.replace(n, ""))
			}
		case *ast.BinaryExpr:
			g.binary(n)
		case *ast.UnaryExpr:
			if n.Op == token.NOT {
				g.add("drop-not", n, g.text(n), g.text(n.X), g.replace(n, "("+g.text(n.X)+")"))
			}
		case *ast.BasicLit:
			g.constant(n)
		case *ast.CallExpr:
			g.cas(n)
		case *ast.AssignStmt:
			g.reread(n)
		}
		return true
	})
}

// relational and arithmetic operator replacements (ROR, AOR, COR).
var binaryOps = map[token.Token][]token.Token{
	token.LSS:  {token.LEQ, token.GEQ},
	token.LEQ:  {token.LSS, token.GTR},
	token.GTR:  {token.GEQ, token.LEQ},
	token.GEQ:  {token.GTR, token.LSS},
	token.EQL:  {token.NEQ},
	token.NEQ:  {token.EQL},
	token.ADD:  {token.SUB},
	token.SUB:  {token.ADD},
	token.MUL:  {token.QUO},
	token.QUO:  {token.MUL},
	token.REM:  {token.QUO},
	token.LAND: {token.LOR},
	token.LOR:  {token.LAND},
}

func (g *gen) binary(n *ast.BinaryExpr) {
	op := "flip-compare"
	switch n.Op {
	case token.ADD, token.SUB, token.MUL, token.QUO, token.REM:
		op = "arith"
		if lit, ok := n.X.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			return // string concatenation
		}
	case token.LAND, token.LOR:
		op = "and-or"
	}
	for _, to := range binaryOps[n.Op] {
		p := g.off(n.OpPos)
		old := g.text(n)
		new := g.text(n.X) + " " + to.String() + " " + g.text(n.Y)
		g.add(op, n, old, new, edit{p, p + len(n.Op.String()), to.String()})
	}
}

func (g *gen) constant(n *ast.BasicLit) {
	if n.Kind != token.INT {
		return
	}
	v, err := strconv.ParseInt(n.Value, 0, 64)
	if err != nil {
		return
	}
	for _, d := range []int64{+1, -1} {
		if v+d < 0 {
			continue
		}
		s := strconv.FormatInt(v+d, 10)
		g.add("constant", n, n.Value, s, g.replace(n, s))
	}
}

// cas makes the three CAS mutants of X.CompareAndSwap(old, new).
func (g *gen) cas(n *ast.CallExpr) {
	sel, ok := n.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "CompareAndSwap" || len(n.Args) != 2 {
		return
	}
	x, o, nw := g.text(sel.X), g.text(n.Args[0]), g.text(n.Args[1])
	old := g.text(n)
	store := fmt.Sprintf("func() bool { %s.Store(%s); return true }()", x, nw)
	g.add("cas-to-store", n, old, x+".Store("+nw+")", g.replace(n, store))
	check := fmt.Sprintf("func() bool { if %s.Load() != %s { return false }; %s.Store(%s); return true }()", x, o, x, nw)
	g.add("cas-check-then-store", n, old, "if "+x+".Load() == "+o+" { "+x+".Store("+nw+") }", g.replace(n, check))
	ignore := fmt.Sprintf("func() bool { %s; return true }()", old)
	g.add("cas-ignore-result", n, old, old+" (result ignored)", g.replace(n, ignore))
}

// reread makes, for v := X.Load(), mutants that load X again at each of
// (at most three of) v's later uses.
func (g *gen) reread(n *ast.AssignStmt) {
	if n.Tok != token.DEFINE || len(n.Lhs) != 1 || len(n.Rhs) != 1 {
		return
	}
	v, ok := n.Lhs[0].(*ast.Ident)
	call, ok2 := n.Rhs[0].(*ast.CallExpr)
	if !ok || !ok2 || v.Name == "_" || len(call.Args) != 0 {
		return
	}
	if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Load" {
		return
	}
	load := g.text(call)
	uses := 0
	ast.Inspect(g.fn.Body, func(m ast.Node) bool {
		id, ok := m.(*ast.Ident)
		if !ok || id == v || id.Obj == nil || id.Obj != v.Obj || uses >= 3 {
			return true
		}
		uses++
		g.add("reread", id, v.Name, load, g.replace(id, load))
		return true
	})
}

// statements makes the statement-level mutants of one list: drop a
// statement, swap two adjacent ones, drop a Lock with its Unlock.
func (g *gen) statements(list []ast.Stmt) {
	for i, s := range list {
		if droppable(s) {
			g.add("drop", s, g.text(s), "", g.replace(s, ""))
		}
		if i+1 < len(list) && swappable(s) && swappable(list[i+1]) {
			a, b := g.text(s), g.text(list[i+1])
			g.add("swap", s, a+"; "+b, b+"; "+a, g.replace(s, b), g.replace(list[i+1], a))
		}
		if x, ok := lockCall(s, "Lock"); ok {
			for _, t := range list[i+1:] {
				if y, ok := lockCall(t, "Unlock"); ok && g.text(x) == g.text(y) {
					g.add("drop-lock", s, g.text(s)+" … "+g.text(t), "", g.replace(s, ""), g.replace(t, ""))
					break
				}
			}
		}
	}
}

// droppable: statements whose removal compiles when the rest does, and
// that are not the reference's own assertions (panic).
func droppable(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt:
		if c, ok := s.X.(*ast.CallExpr); ok {
			if id, ok := c.Fun.(*ast.Ident); ok && id.Name == "panic" {
				return false
			}
			return true
		}
	case *ast.AssignStmt:
		return s.Tok != token.DEFINE
	case *ast.IncDecStmt, *ast.DeferStmt, *ast.GoStmt, *ast.SendStmt:
		return true
	}
	return false
}

func swappable(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.ExprStmt, *ast.IncDecStmt, *ast.SendStmt:
		return true
	case *ast.AssignStmt:
		return s.Tok != token.DEFINE
	}
	return false
}

// lockCall returns X if s is the statement X.name() (or defer X.name()).
func lockCall(s ast.Stmt, name string) (ast.Expr, bool) {
	var call *ast.CallExpr
	switch s := s.(type) {
	case *ast.ExprStmt:
		call, _ = s.X.(*ast.CallExpr)
	case *ast.DeferStmt:
		call = s.Call
	}
	if call == nil || len(call.Args) != 0 {
		return nil, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return nil, false
	}
	return sel.X, true
}
