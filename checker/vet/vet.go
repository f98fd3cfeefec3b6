package vet

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"go/types"
	"io"
	"os"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gmp-kata/gmp-kata/internal/buildtag"
)

// Version changes whenever a rule does: it is part of a Checker's
// fingerprint, so that no grade given under other rules is reused.
const Version = 23

// The rules, as Problem.Rule names them.
const (
	RuleImport      = "import"       // imports only from the allowlist
	RuleInit        = "init"         // no init functions
	RuleDirective   = "directive"    // no //go:, //line or // +build comments
	RuleInitializer = "initializer"  // no package-level variable initialised by a call
	RuleGlobal      = "global"       // no package-level variable: no state of the file's own
	RuleTestOnly    = "test-only"    // no name that only kata's tests declare
	RuleReserved    = "reserved"     // no name of kata's harness (kata...), no predeclared name redeclared
	RuleUnsafe      = "unsafe"       // unsafe.Pointer passed on, never converted
	RuleAtomic      = "atomic"       // the course's atomics never converted (their scheduling points)
	RuleSize        = "size"         // at most MaxFileSize bytes
	RuleSyntax      = "syntax"       // go/parser reads it (see Problem.Unchecked)
	RuleTypes       = "types"        // go/types accepts it (see Problem.Unchecked)
	RuleGaveUp      = "gave-up"      // type-checked within a Remote's limits
	RuleAPI         = "api"          // of the reference, only the lesson's API (Config.API)
	RuleOwnership   = "ownership"    // methods only on the file's own types
	RuleCollision   = "collision"    // no package-level name kata's tests declare
	RuleLarge       = "large"        // no array or composite literal over 1 MiB
	RuleGoroutine   = "goroutine"    // no code run on a goroutine or coroutine of the file's own
	RuleClock       = "clock"        // no reading of the wall or monotonic clock, nor of whether a lock is held
	RuleFuncField   = "func-field"   // no func stored in the reference's structures but where its own file stores one
	RuleFmtArgs     = "fmt-args"     // fmt given numbers, strings and booleans only (it prints anything else whole)
	RulePlainAtomic = "plain-atomic" // sync/atomic writes only the fields the lesson writes, or the file's own atomics
)

// MaxFileSize is the largest lesson file the vetter reads, in bytes: 256
// KiB, over 25 times the largest of the reference's (findrunnable.go, 9
// KB). A larger file is refused unread (Files reads no more than this and
// one byte).
const MaxFileSize = 256 << 10

// MaxMessage is the longest message of a Problem, in bytes; a longer one
// is cut, and ends with "…".
const MaxMessage = 1 << 10

// Safe are the packages every lesson file may import, beside those the
// reference's own file for the lesson imports (see the package comment for
// why each is here).
var Safe = []string{"bytes", "cmp", "container/heap", "container/list", "container/ring", "errors", "fmt", "iter", "maps",
	"math", "math/bits", "math/rand/v2", "slices", "sort", "strconv", "strings", "sync", "sync/atomic", "time", "unicode", "unicode/utf8"}

// never are packages (and the trees under them) no lesson file may import,
// even if the reference's own file for the lesson does: they reach the
// process's environment, files, network or memory, or the test harness.
// unsafe is the one exception, see allowedImports.
var never = []string{"C", "debug", "embed", "go", "internal", "io/fs", "io/ioutil", "log", "net", "os",
	"path/filepath", "plugin", "reflect", "runtime", "syscall", "testing", "unsafe", "vendor"}

// loadAlso are packages whose API the allowed packages' API is made of
// (fmt, bytes, strings: io; strconv: internal/strconv, whose IntSize it
// is), loaded so that it is whole. Loading is not allowing: a lesson file
// imports none of these but through Safe.
var loadAlso = []string{"internal/strconv", "io"}

// A Problem is one rule a lesson file breaks.
type Problem struct {
	Pos  token.Position // Filename is the file's base name: runq.go
	Rule string
	Msg  string // what the file does, the rule, and what to do
}

func (p Problem) String() string {
	if p.Pos.Line == 0 {
		return fmt.Sprintf("%s: %s", p.Pos.Filename, p.Msg) // the whole file (RuleSize, RuleGaveUp)
	}
	return fmt.Sprintf("%s:%d:%d: %s", p.Pos.Filename, p.Pos.Line, p.Pos.Column, p.Msg)
}

// Unchecked reports whether p says only that the vetter could not read
// the file whole: go/parser could not parse it (RuleSyntax), or go/types
// found errors in it (RuleTypes). Such a file breaks no rule the vetter
// saw, but it did not see all of it, so it must not run. It almost
// always does not compile either, and the compiler says what is wrong
// in the words a learner knows: a caller may compile it to show that,
// and must refuse it with p if it does compile (Sources returns these
// problems only for files in which it found no other).
func (p Problem) Unchecked() bool { return p.Rule == RuleSyntax || p.Rule == RuleTypes }

// Config is what a Vetter vets against.
type Config struct {
	// Reference holds the reference package's non-test files, by base
	// name: the package a lesson file is compiled into, and the files it
	// replaces.
	Reference map[string][]byte
	// TestOnly holds the files the graded package has only under test:
	// the hidden tests, their kit, kata's harness (by any name). What they
	// declare, a lesson file may not use.
	TestOnly map[string][]byte
	// GOROOT is where the standard library's sources are; "": the go
	// command's.
	GOROOT string
	// API holds, by the base name of a lesson file, what of the reference
	// it may use (rule 8). nil: rule 8 is not applied (for tests of the
	// other rules); otherwise a file it does not list may use nothing of
	// the reference but the file's own declarations.
	API map[string]LessonAPI
}

// AddReference adds a file of the reference package, by base name, as
// the vetter must see it. A lesson file must compile both in the build a
// learner's editor and go test see and in the hidden tests' build (tag
// buildtag.Interleave), so the vetter checks it against the reference of
// the untagged build, and what the tagged build adds to it (the
// controlled scheduler's hook, setInterleaveHook) is test-only: a lesson
// file that names it is refused as one that names the hidden tests' kit.
func (cfg Config) AddReference(name string, src []byte) error {
	plain, err := buildtag.Match(name, src, false)
	if err != nil {
		return fmt.Errorf("vet: the reference's %s: %w", name, err)
	}
	tagged, err := buildtag.Match(name, src, true)
	if err != nil {
		return fmt.Errorf("vet: the reference's %s: %w", name, err)
	}
	switch {
	case plain:
		cfg.Reference[name] = src
	case tagged:
		cfg.TestOnly["reference/"+name] = src
	}
	return nil
}

// A Vetter vets lesson files against one reference. It is safe for
// concurrent use (it vets one set of files at a time).
type Vetter struct {
	mu          sync.Mutex
	fset        *token.FileSet
	pkgName     string
	ref         map[string]*ast.File
	refNames    []string // sorted
	refImports  map[string][]string
	imp         *importer
	sizes       types.Sizes
	testOnly    map[string]bool   // package-level names of the test-only files
	testImports map[string]string // the names their imports bind in their files -> the path
	testMethods map[string]bool   // methods they declare on the reference's types
	atomics     map[string]bool   // the reference's types defined on a sync/atomic type
	api         map[string]LessonAPI
}

// New parses the reference and the test-only files, and loads the
// standard packages the reference and lesson files may import.
func New(cfg Config) (*Vetter, error) {
	v := &Vetter{fset: token.NewFileSet(), ref: map[string]*ast.File{}, refImports: map[string][]string{},
		testOnly: map[string]bool{}, testImports: map[string]string{}, testMethods: map[string]bool{}, atomics: map[string]bool{}}
	if cfg.API != nil {
		v.api = map[string]LessonAPI{}
		for name, a := range cfg.API {
			a.Names = slices.Sorted(slices.Values(a.Names))
			v.api[name] = a
		}
	}
	v.sizes = types.SizesFor("gc", runtime.GOARCH)
	load := map[string]bool{}
	for _, p := range append(slices.Clone(Safe), loadAlso...) {
		load[p] = true
	}
	for name, src := range cfg.Reference {
		f, err := parser.ParseFile(v.fset, "reference/"+name, src, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("vet: the reference's %s: %w", name, err)
		}
		if v.pkgName == "" {
			v.pkgName = f.Name.Name
		}
		v.ref[name] = f
		v.refNames = append(v.refNames, name)
		addAtomics(v.atomics, f)
		for _, spec := range f.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			v.refImports[name] = append(v.refImports[name], path)
			load[path] = true
		}
	}
	sort.Strings(v.refNames)
	if len(v.ref) == 0 {
		return nil, fmt.Errorf("vet: no reference files")
	}
	for _, p := range []string{"runtime", "unsafe", "C"} {
		delete(load, p) // runtime is too big to load for its API, which no lesson file can reach
	}

	v.readTestOnly(cfg.TestOnly)

	var err error
	if v.imp, err = newImporter(v.fset, cfg.GOROOT, load, v.sizes); err != nil {
		return nil, err
	}
	for p := range load {
		_, _ = v.imp.Import(p)
	}
	if v.imp.err != nil {
		return nil, v.imp.err
	}
	v.imp.frozen = true
	if err := v.checkReference(); err != nil {
		return nil, err
	}
	return v, nil
}

// readTestOnly records the names the test-only files (the hidden tests,
// their kit, the harness, the reference's tag-only files) declare at
// package level (testOnly) and as methods on the reference's types
// (testMethods).
func (v *Vetter) readTestOnly(files map[string][]byte) {
	testTypes := map[string]bool{}
	var recvs []*ast.FuncDecl
	for name, src := range files {
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			continue // it does not compile: no run, and nothing it declares is reachable
		}
		for _, imp := range f.Imports {
			if name := importName(imp); name != "" {
				v.testImports[name] = strings.Trim(imp.Path.Value, "`\"")
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil {
					v.testOnly[d.Name.Name] = true
				} else {
					recvs = append(recvs, d)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							v.testOnly[n.Name] = true
						}
					case *ast.TypeSpec:
						v.testOnly[s.Name.Name] = true
						testTypes[s.Name.Name] = true
					}
				}
			}
		}
	}
	// A method the reference declares too, on the same type (the test
	// build's mutex.TryLock, in the tag-only interleave.go, is also the
	// plain build's), is the reference's, whichever build runs: an
	// assertion reaches no test's code through it (a twelfth red team's
	// correct interface{ Lock(); TryLock() bool } over sched.lock was
	// refused, though lesson 01's API lists TryLock).
	refMethods := map[string]bool{}
	for _, f := range v.ref {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) > 0 {
				refMethods[recvBase(fd.Recv.List[0].Type)+"."+fd.Name.Name] = true
			}
		}
	}
	for _, d := range recvs {
		recv := recvBase(d.Recv.List[0].Type)
		if !testTypes[recv] && !refMethods[recv+"."+d.Name.Name] {
			v.testMethods[d.Name.Name] = true
		}
	}
	delete(v.testOnly, "_")
}

// importName is the name imp binds in its file: its own, or the package's
// by the convention every package kata's tests import keeps (the path's
// last element, before a major version: math/rand/v2 is rand); "" for
// none (_ and . bind no name of their own).
func importName(imp *ast.ImportSpec) string {
	if imp.Name != nil {
		if imp.Name.Name == "_" || imp.Name.Name == "." {
			return ""
		}
		return imp.Name.Name
	}
	elems := strings.Split(strings.Trim(imp.Path.Value, "`\""), "/")
	last := elems[len(elems)-1]
	if len(elems) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = elems[len(elems)-2]
	}
	return last
}

// checkReference makes sure that no declaration of the reference package
// has a type the vetter cannot see whole (one made of a package it does
// not load): a lesson file's expressions built from it would have no type
// either, and the rules that need one would not see them.
func (v *Vetter) checkReference() error {
	var files []*ast.File
	for _, name := range v.refNames {
		files = append(files, v.ref[name])
	}
	conf := v.config(nil)
	conf.IgnoreFuncBodies = true
	pkg, _ := conf.Check(v.pkgName, v.fset, files, nil)
	seen := map[types.Type]bool{}
	for _, name := range pkg.Scope().Names() {
		obj := pkg.Scope().Lookup(name)
		if hasInvalid(obj.Type(), pkg, seen) {
			return fmt.Errorf("vet: the reference's %s has a type made of a package the vetter does not load (%s): add it to loadAlso", name, obj.Type())
		}
	}
	return nil
}

func (v *Vetter) config(errs *[]types.Error) types.Config {
	return types.Config{
		Importer:  v.imp,
		Sizes:     v.sizes,
		GoVersion: "go1.26",
		Error: func(err error) {
			if errs != nil {
				if te, ok := err.(types.Error); ok {
					*errs = append(*errs, te)
				}
			}
		},
	}
}

// hasInvalid reports whether t is, or is made of, the invalid type, as far
// as code of package home can see: the unexported fields of another
// package's structs (sync.Mutex's) do not count.
func hasInvalid(t types.Type, home *types.Package, seen map[types.Type]bool) bool {
	if t == nil || seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Basic:
		return t.Kind() == types.Invalid
	case *types.Pointer:
		return hasInvalid(t.Elem(), home, seen)
	case *types.Slice:
		return hasInvalid(t.Elem(), home, seen)
	case *types.Array:
		return hasInvalid(t.Elem(), home, seen)
	case *types.Map:
		return hasInvalid(t.Key(), home, seen) || hasInvalid(t.Elem(), home, seen)
	case *types.Chan:
		return hasInvalid(t.Elem(), home, seen)
	case *types.Signature:
		return hasInvalid(t.Params(), home, seen) || hasInvalid(t.Results(), home, seen)
	case *types.Tuple:
		for i := range t.Len() {
			if hasInvalid(t.At(i).Type(), home, seen) {
				return true
			}
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); !f.Exported() && f.Pkg() != home {
				continue
			}
			if hasInvalid(t.Field(i).Type(), home, seen) {
				return true
			}
		}
	case *types.Interface:
		for i := range t.NumMethods() {
			if hasInvalid(t.Method(i).Type(), home, seen) {
				return true
			}
		}
		for i := range t.NumEmbeddeds() {
			if hasInvalid(t.EmbeddedType(i), home, seen) {
				return true
			}
		}
	case *types.Named:
		if hasInvalid(t.Underlying(), home, seen) {
			return true
		}
		for i := range t.NumMethods() {
			if hasInvalid(t.Method(i).Type(), home, seen) {
				return true
			}
		}
	case *types.Alias:
		return hasInvalid(types.Unalias(t), home, seen)
	case *types.Union:
		for i := range t.Len() {
			if hasInvalid(t.Term(i).Type(), home, seen) {
				return true
			}
		}
	}
	return false
}

// recvBase is the name of a method's receiver type.
func recvBase(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// Files vets lesson files, each in place of the reference's file of the
// same base name: base name → path of the learner's file.
func (v *Vetter) Files(files map[string]string) ([]Problem, error) {
	srcs, err := ReadFiles(files)
	if err != nil {
		return nil, err
	}
	return v.Sources(srcs)
}

// ReadFiles reads lesson files (base name → path) as Files does: at most
// MaxFileSize bytes and one of each, enough for Sources to refuse a file
// that is larger, without reading it whole.
func ReadFiles(files map[string]string) (map[string][]byte, error) {
	srcs := map[string][]byte{}
	for name, p := range files {
		data, err := ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("vet: %w", err)
		}
		srcs[name] = data
	}
	return srcs, nil
}

// ReadFile reads at most MaxFileSize+1 bytes of the file at path p: a
// lesson file, whole, or enough of a larger one to know it is too large.
func ReadFile(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, MaxFileSize+1))
}

// Sources is Files for files in memory: base name → source.
//
// It fails closed. A file larger than MaxFileSize is refused unread
// (RuleSize). A file go/parser cannot parse has its imports vetted, if
// they parse, and is otherwise refused as unchecked (RuleSyntax); a file
// go/types finds errors in, and no rule broken, likewise (RuleTypes). See
// Problem.Unchecked for what a caller does with those: the compiler
// refuses almost every such file, and says why better, but go/parser
// stops at a nesting depth the compiler does not (the red team's A01 went
// through there), and a file the vetter did not read whole must not run.
func (v *Vetter) Sources(files map[string][]byte) ([]Problem, error) {
	names := make([]string, 0, len(files))
	for name := range files {
		if _, ok := v.ref[name]; !ok {
			return nil, fmt.Errorf("vet: %s is not a file of the reference", name)
		}
		names = append(names, name)
	}
	sort.Strings(names)

	out := tooLarge(files)
	if len(out) > 0 {
		return out, nil
	}

	v.mu.Lock()
	defer v.mu.Unlock()
	defer v.forgetFilesFrom(v.fset.Base())
	learner := map[string]*ast.File{}
	unparsed := false
	for _, name := range names {
		f, err := parser.ParseFile(v.fset, name, files[name], parser.ParseComments|parser.SkipObjectResolution)
		if err == nil {
			learner[name] = f
			continue
		}
		unparsed = true
		// What can be read of it: its imports, which the compiler acts on
		// before it compiles anything (cgo).
		if head, herr := parser.ParseFile(v.fset, name, files[name], parser.ImportsOnly|parser.SkipObjectResolution); herr == nil {
			c := &fileCheck{v: v, name: name, f: head}
			c.imports()
			out = append(out, c.problems...)
		}
		out = append(out, syntaxProblem(name, err))
	}
	if unparsed {
		// The rules that need no types, on the files that did parse.
		for _, name := range names {
			if f, ok := learner[name]; ok {
				c := &fileCheck{v: v, name: name, f: f}
				c.imports()
				c.inits()
				c.goStatements()
				c.directives()
				c.predeclared()
				c.ownership()
				c.collisions()
				out = append(out, c.problems...)
			}
		}
		return settle(out), nil
	}

	pkg, info, errs := v.check(learner)
	namer := newAPINamer(pkg)

	for _, name := range names {
		c := &fileCheck{v: v, name: name, f: learner[name], info: info, namer: namer}
		c.imports()
		c.inits()
		c.directives()
		c.names()
		c.testInterfaces()
		c.predeclared()
		c.initializers()
		c.globals()
		c.unsafe()
		c.goroutines()
		c.clocks()
		c.funcFields()
		c.fmtArgs()
		c.plainAtomics()
		c.atomicConversions()
		c.largeValues()
		c.api(namer)
		c.foreignWrites() // after api: a type argument outside the API is the more telling problem
		c.ownership()
		c.collisions()
		out = append(out, c.problems...)
	}
	if p, ok := v.typesProblem(names, errs); ok && len(out) == 0 {
		out = append(out, p)
	}
	return settle(out), nil
}

// forgetFilesFrom removes from the vetter's file set the files added at
// base or after: a vetting's, whose problems hold their positions
// already. A Remote's child vets submission after submission, and kept
// every file's line table before (a sixth red team's refused files of
// 256 KiB of newlines left 4.4 MB each behind, until the child ran out of
// memory on the file vetted next, an honest one maybe).
func (v *Vetter) forgetFilesFrom(base int) {
	var added []*token.File
	v.fset.Iterate(func(f *token.File) bool {
		if f.Base() >= base {
			added = append(added, f)
		}
		return true
	})
	for _, f := range added {
		v.fset.RemoveFile(f)
	}
}

// check type-checks the reference package with the learner's files in
// place of the reference's of the same names.
func (v *Vetter) check(learner map[string]*ast.File) (*types.Package, *types.Info, []types.Error) {
	var pkgFiles []*ast.File
	for _, name := range v.refNames {
		if f, ok := learner[name]; ok {
			pkgFiles = append(pkgFiles, f)
		} else {
			pkgFiles = append(pkgFiles, v.ref[name])
		}
	}
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
		Instances:  map[*ast.Ident]types.Instance{},
		Implicits:  map[ast.Node]types.Object{}, // a type switch's variables (typeparams.go)
	}
	var errs []types.Error
	conf := v.config(&errs)
	pkg, _ := conf.Check(v.pkgName, v.fset, pkgFiles, info)
	return pkg, info, errs
}

// settle sorts problems by file and position, and drops those that only
// say the vetter could not read a file whole if there are others: the
// file is refused for what it was seen to do.
//
// It also cuts every message to MaxMessage bytes: a message can name a
// type, and a type's name can be exponential in the file's size (rtPair[
// rtPair[int, int], rtPair[int, int]]..., the red team's A25), which would
// make a report of gigabytes.
func settle(out []Problem) []Problem {
	if slices.ContainsFunc(out, func(p Problem) bool { return !p.Unchecked() }) {
		out = slices.DeleteFunc(out, Problem.Unchecked)
	}
	for i, p := range out {
		if len(p.Msg) > MaxMessage {
			cut := MaxMessage
			for cut > 0 && !utf8.RuneStart(p.Msg[cut]) {
				cut--
			}
			out[i].Msg = p.Msg[:cut] + "…"
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i].Pos, out[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return out
}

// tooLarge refuses the files larger than MaxFileSize (RuleSize), in the
// order of their names.
func tooLarge(files map[string][]byte) []Problem {
	var out []Problem
	for name, src := range files {
		if len(src) > MaxFileSize {
			out = append(out, Problem{Pos: token.Position{Filename: name}, Rule: RuleSize,
				Msg: fmt.Sprintf("is larger than %d KiB, the most a lesson file may be: make it smaller", MaxFileSize>>10)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos.Filename < out[j].Pos.Filename })
	return out
}

// syntaxProblem is a file go/parser could not parse: where, and why.
func syntaxProblem(name string, err error) Problem {
	p := Problem{Pos: token.Position{Filename: name, Line: 1, Column: 1}, Rule: RuleSyntax}
	why := err.Error()
	var list scanner.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		p.Pos, why = list[0].Pos, list[0].Msg
		p.Pos.Filename = name
	}
	p.Msg = "go/parser cannot parse it (" + why + "): kata vets every lesson file with go/parser and go/types, and runs none they cannot read: write it more plainly"
	return p
}

// typesProblem is the first error go/types found in a learner's file, if
// it found any there. Errors in the reference's files are not counted:
// the vetter loads the standard library shallowly (no runtime), so some
// are always there (api.go calls runtime.GOMAXPROCS), and none changes
// what the vetter sees of a learner's file.
func (v *Vetter) typesProblem(names []string, errs []types.Error) (Problem, bool) {
	for _, e := range errs {
		pos := e.Fset.Position(e.Pos)
		if slices.Contains(names, pos.Filename) {
			return Problem{Pos: pos, Rule: RuleTypes,
				Msg: "go/types refuses it (" + e.Msg + "): kata vets every lesson file with go/parser and go/types, and runs none they cannot read: write it so that go vet accepts it"}, true
		}
	}
	return Problem{}, false
}

// allowedImports is what a lesson file in place of the reference's file
// name may import: Safe, and what that file imports itself but never
// (unsafe only if that file imports it, for its signatures).
func (v *Vetter) allowedImports(name string) []string {
	allowed := slices.Clone(Safe)
	for _, p := range v.refImports[name] {
		if p == "unsafe" || !isNever(p) {
			allowed = append(allowed, p)
		}
	}
	slices.Sort(allowed)
	return slices.Compact(allowed)
}

func isNever(path string) bool {
	for _, n := range never {
		if path == n || strings.HasPrefix(path, n+"/") {
			return true
		}
	}
	return false
}

// reservedName reports whether name is kata's: "kata", or "kata" and a
// rune that is not a lower-case letter (kataVerdicts, kataTest_TestX).
func reservedName(name string) bool {
	rest, ok := strings.CutPrefix(name, "kata")
	if !ok {
		return false
	}
	return rest == "" || !(rest[0] >= 'a' && rest[0] <= 'z')
}
