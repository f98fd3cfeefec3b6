package diagram

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The figures' steps against the reference's source: every step names a
// call the reference makes, a figure's right order is the order the
// reference makes them in, and its wrong order is not.

// A reference is the parsed source of solutions/.
type reference struct {
	fset  *token.FileSet
	src   map[string][]byte        // by file name
	funcs map[string]*ast.FuncDecl // "runqsteal", "Chan.Recv"
}

func loadReference(t *testing.T) *reference {
	t.Helper()
	files, err := filepath.Glob("../../solutions/*.go")
	require.NoError(t, err)
	r := &reference{fset: token.NewFileSet(), src: map[string][]byte{}, funcs: map[string]*ast.FuncDecl{}}
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		f, err := parser.ParseFile(r.fset, file, data, 0)
		require.NoError(t, err)
		r.src[file] = data
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Body != nil {
				r.funcs[funcName(fd)] = fd
			}
		}
	}
	require.NotEmpty(t, r.funcs, "found no functions in solutions/")
	return r
}

// funcName is a declaration's name as a Code names it: "runqsteal", or
// "Chan.Recv" for a method.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	t := fd.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + fd.Name.Name
	}
	return fd.Name.Name
}

// text is a node's source, with its runs of white space made one space.
func (r *reference) text(n ast.Node) string {
	pos, end := r.fset.Position(n.Pos()), r.fset.Position(n.End())
	return strings.Join(strings.Fields(string(r.src[pos.Filename][pos.Offset:end.Offset])), " ")
}

// calls lists the calls in fn's body in the order of the source.
func (r *reference) calls(fn *ast.FuncDecl) []*ast.CallExpr {
	var out []*ast.CallExpr
	ast.Inspect(fn.Body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			out = append(out, c)
		}
		return true
	})
	return out
}

// flatten lists the calls name makes in the order of its source, each as
// its path of call texts: a call to another function of the reference
// (by its plain name) is followed by that function's calls, under it.
func (r *reference) flatten(name string) [][]string {
	var out [][]string
	var walk func(name string, prefix []string)
	walk = func(name string, prefix []string) {
		fn := r.funcs[name]
		if fn == nil || len(prefix) > 4 {
			return
		}
		for _, c := range r.calls(fn) {
			path := append(slices.Clone(prefix), r.text(c))
			out = append(out, path)
			if id, ok := c.Fun.(*ast.Ident); ok && r.funcs[id.Name] != nil && !slices.Contains(prefix, id.Name) && id.Name != name {
				walk(id.Name, path)
			}
		}
	}
	walk(name, nil)
	return out
}

// check returns what is wrong with o's steps against the reference: calls
// it does not make (missing), steps of one thread in one function not in
// the order it makes them (order), and Once claims that do not hold.
func (r *reference) check(o Order) (missing, order, once []string) {
	type group struct {
		thread int
		fn     string
	}
	at := map[group]int{} // the index of the group's last step in its flattened calls
	flat := map[string][][]string{}
	for i, s := range o.Steps {
		c := s.Code
		if r.funcs[c.Func] == nil {
			missing = append(missing, fmt.Sprintf("step %d %q: no function %s in the reference", i+1, s.Text, c.Func))
			continue
		}
		if flat[c.Func] == nil {
			flat[c.Func] = r.flatten(c.Func)
		}
		calls := flat[c.Func]
		if !slices.ContainsFunc(calls, func(p []string) bool { return slices.Equal(p, c.Calls) }) {
			missing = append(missing, fmt.Sprintf("step %d %q: %s makes no call %s", i+1, s.Text, c.Func, strings.Join(c.Calls, " → ")))
			continue
		}
		g := group{s.Thread, c.Func}
		from, seen := at[g]
		if !seen {
			from = -1
		}
		next := slices.IndexFunc(calls[from+1:], func(p []string) bool { return slices.Equal(p, c.Calls) })
		if next < 0 {
			order = append(order, fmt.Sprintf("step %d %q: %s makes %s only before the step shown before it", i+1, s.Text, c.Func, strings.Join(c.Calls, " → ")))
			continue
		}
		at[g] = from + 1 + next
		if c.Once {
			if msg := r.once(c); msg != "" {
				once = append(once, fmt.Sprintf("step %d %q: %s", i+1, s.Text, msg))
			}
		}
	}
	return missing, order, once
}

// once checks that the function making c's last call makes no other call
// to the same function or method.
func (r *reference) once(c Code) string {
	in := c.Func
	if len(c.Calls) > 1 {
		in, _, _ = strings.Cut(c.Calls[len(c.Calls)-2], "(")
	}
	fn := r.funcs[in]
	if fn == nil {
		return "no function " + in
	}
	var last *ast.CallExpr
	for _, call := range r.calls(fn) {
		if r.text(call) == c.Calls[len(c.Calls)-1] {
			last = call
		}
	}
	if last == nil {
		return in + " makes no call " + c.Calls[len(c.Calls)-1]
	}
	n := 0
	for _, call := range r.calls(fn) {
		if r.text(call.Fun) == r.text(last.Fun) {
			n++
		}
	}
	if n != 1 {
		return fmt.Sprintf("%s calls %s %d times, not once", in, r.text(last.Fun), n)
	}
	return ""
}

// TestFigureOrdersAreTheReferences checks every figure's steps against the
// reference: each names a call it makes; in a right order, each thread's
// steps in a function come in the order of its source; a wrong order
// breaks that somewhere, so that a figure never calls the reference's own
// order wrong.
func TestFigureOrdersAreTheReferences(t *testing.T) {
	r := loadReference(t)
	checked := 0
	for _, name := range FigureNames() {
		for _, o := range Figures[name].Orders {
			missing, order, once := r.check(o)
			assert.Empty(t, missing, "%s, %q: steps that are not the reference's", name, o.Title)
			assert.Empty(t, once, "%s, %q", name, o.Title)
			if o.Wrong {
				assert.NotEmpty(t, order, "%s, %q is drawn as a wrong order, but the reference makes its steps in this order", name, o.Title)
			} else {
				assert.Empty(t, order, "%s, %q: the figure draws the reference's steps in an order its source does not have", name, o.Title)
			}
			checked += len(o.Steps)
		}
	}
	require.Greater(t, checked, 30, "the figures should name the reference's calls")
}

// TestFiguresShowTheOrdersThatMatter pins the claims the chapters make with
// the figures, so that no figure edit can drop one while the check above
// still passes: each pair of steps is in the figure's right order, in this
// order.
func TestFiguresShowTheOrdersThatMatter(t *testing.T) {
	for _, c := range []struct {
		figure        string
		before, after string // the last call of each step's Code
		why           string
	}{
		{"park-race", "casgstatus(gp, _Grunning, _Gwaiting)", "fn(gp, mp.waitlock)", "park_m makes the G waiting before it calls unlockf"},
		{"park-race", "dropg(mp)", "fn(gp, mp.waitlock)", "park_m drops the G before it calls unlockf"},
		{"park-race", "mcall(gp, park_m)", "casgstatus(gp, _Grunning, _Gwaiting)", "the G stops (mcall) before park_m runs"},
		{"spin-dance", "stopSpinning(mp)", "sched.runq.empty()", "findRunnable drops nmspinning before it looks at the global queue again"},
		{"spin-dance", "stopSpinning(mp)", "checkRunqsNoP(sched, allpSnapshot, idlepMaskSnapshot)", "findRunnable drops nmspinning before it looks at every P again"},
		{"spin-dance", "runqput(mp.p, gp, next)", "sched.nmspinning.Load()", "a submitter queues the G before it reads nmspinning"},
		{"ring-steal", "batch[(batchHead+i)%uint32(len(batch))].Store(gp)", "pp.runqhead.CompareAndSwap(h, h+n)", "runqgrab copies the Gs before it CASes the victim's head"},
		{"ring-steal", "pp.runqhead.CompareAndSwap(h, h+n)", "pp.runqtail.Store(t + n)", "runqsteal stores its tail after the CAS of the victim's head"},
	} {
		f := Figures[c.figure]
		require.NotNil(t, f, "no figure %s", c.figure)
		before, after := -1, -1
		for _, o := range f.Orders {
			if o.Wrong {
				continue
			}
			for i, s := range o.Steps {
				switch s.Code.Calls[len(s.Code.Calls)-1] {
				case c.before:
					before = i
				case c.after:
					after = i
				}
			}
		}
		assert.True(t, before >= 0 && after > before, "%s should show that %s (%s, then %s)", c.figure, c.why, c.before, c.after)
	}
	// runqsteal publishes with one store of its tail.
	var publish *Step
	for i, s := range stealOrder.Steps {
		if slices.Equal(s.Code.Calls, stealPublish) {
			publish = &stealOrder.Steps[i]
		}
	}
	require.NotNil(t, publish, "ring-steal should show runqsteal's store of its tail")
	assert.True(t, publish.Code.Once, "ring-steal should claim that runqsteal stores its tail once")
}

// TestRunnextFigurePasses: the runnext figure says a thief may take
// runnext on pass stealPasses, the last; stealWork must make stealTries
// passes and allow runnext on the last only.
func TestRunnextFigurePasses(t *testing.T) {
	r := loadReference(t)
	tries := ""
	for file, data := range r.src {
		f, err := parser.ParseFile(token.NewFileSet(), file, data, 0)
		require.NoError(t, err)
		ast.Inspect(f, func(n ast.Node) bool {
			if v, ok := n.(*ast.ValueSpec); ok && len(v.Names) == 1 && v.Names[0].Name == "stealTries" && len(v.Values) == 1 {
				if lit, ok := v.Values[0].(*ast.BasicLit); ok {
					tries = lit.Value
				}
			}
			return true
		})
	}
	require.Equal(t, fmt.Sprint(stealPasses), tries, "the runnext figure counts %d passes; the reference's stealTries is %q", stealPasses, tries)
	found := false
	ast.Inspect(r.funcs["stealWork"], func(n ast.Node) bool {
		if a, ok := n.(*ast.AssignStmt); ok && r.text(a) == "stealRunNextG := i == stealTries-1" {
			found = true
		}
		return true
	})
	require.True(t, found, "stealWork should allow runnext on its last pass only (stealRunNextG := i == stealTries-1), as the runnext figure says")
}
