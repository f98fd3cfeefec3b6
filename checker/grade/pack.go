package grade

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// A Pack is a private test pack: tests an instructor adds to lessons
// without students ever seeing them. It is a directory in the lesson
// plugin format, one subdirectory per lesson it adds to:
//
//	pack/
//	  01-ringbuffer/
//	    tests.json          the tests: names, points, time limits
//	    burst_test.go       package sched, like a lesson's testdata/hidden
//	  04-findrunnable/
//	    tests.json
//	    ...
//
// tests.json:
//
//	{"tests": [
//	  {"name": "TestPackL01Burst", "points": 10, "timeout": "20s",
//	   "kind": "stress", "about": "a burst of 10000 puts and steals",
//	   "visibility": "after_published"}
//	]}
//
// name, points and timeout are required; kind is exact, stress or timing
// (default exact); visibility is Gradescope's (visible, after_due_date,
// after_published, hidden; default after_published). The test files are
// graded exactly as hidden tests are: in package sched, beside the
// reference and the course's hidden tests and kit (kit* helpers may be
// used); they must not declare TestMain (kata adds its own).
type Pack struct {
	Dir string
	// Tests are the pack's tests, by lesson ID.
	Tests map[string][]lessons.Test
	// Visibility is each pack test's Gradescope visibility, by test name.
	Visibility map[string]string
	// files are the test files, by lesson ID and then name.
	files map[string]map[string][]byte
}

// packTest is one entry of tests.json.
type packTest struct {
	Name       string `json:"name"`
	Points     int    `json:"points"`
	Timeout    string `json:"timeout"`
	Kind       string `json:"kind"`
	About      string `json:"about"`
	Visibility string `json:"visibility"`
}

// Visibilities are Gradescope's test visibilities.
var Visibilities = []string{"visible", "after_due_date", "after_published", "hidden"}

// LoadPack reads and checks the test pack in dir against the lessons of
// reg: every lesson it names exists, every test it declares is defined in
// its files, no test name clashes with another.
func LoadPack(dir string, reg *lessons.Registry) (*Pack, error) {
	fail := func(format string, args ...any) error {
		return fmt.Errorf("grade: test pack %s: "+format, append([]any{dir}, args...)...)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("grade: test pack: %w", err)
	}
	p := &Pack{Dir: dir, Tests: map[string][]lessons.Test{}, Visibility: map[string]string{}, files: map[string]map[string][]byte{}}
	taken := map[string]string{} // test name → where
	for _, l := range reg.All() {
		for _, t := range l.Tests {
			taken[t.Name] = "lesson " + l.ID
		}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if !e.IsDir() {
			return nil, fail("%s: want one directory per lesson (like 01-ringbuffer/), holding tests.json and *_test.go files", e.Name())
		}
		l, err := reg.Lookup(e.Name())
		if err != nil || l.ID != e.Name() {
			var ids []string
			for _, l := range reg.All() {
				ids = append(ids, l.ID)
			}
			return nil, fail("%s/: no such lesson; name the directory after one of %s", e.Name(), strings.Join(ids, ", "))
		}
		if err := p.loadLesson(filepath.Join(dir, e.Name()), l, taken); err != nil {
			return nil, fail("%s", err)
		}
	}
	if len(p.Tests) == 0 {
		return nil, fail("no lessons in it; see 'kata grade --help' and the book's appendix D for the format")
	}
	return p, nil
}

// Bounds on a test pack: its files are an instructor's, but a pack handed
// around is input like another, and each bound is far beyond a real one.
const (
	maxPackFileBytes = 1 << 20 // tests.json, or one test file
	maxPackFiles     = 200     // test files of one lesson
)

// readPackFile reads a file of a pack, refusing one of more than
// maxPackFileBytes.
func readPackFile(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPackFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxPackFileBytes {
		return nil, fmt.Errorf("%s is larger than %d KiB: a test pack's files are tests, not data", filepath.Base(name), maxPackFileBytes>>10)
	}
	return data, nil
}

// parsePackSpec parses a lesson's tests.json: {"tests": [...]}, nothing else.
func parsePackSpec(data []byte) ([]packTest, error) {
	var spec struct {
		Tests []packTest `json:"tests"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return nil, err
	}
	if len(spec.Tests) == 0 {
		return nil, errors.New("no tests")
	}
	return spec.Tests, nil
}

func (p *Pack) loadLesson(dir string, l *lessons.Lesson, taken map[string]string) error {
	data, err := readPackFile(filepath.Join(dir, "tests.json"))
	if err != nil {
		return fmt.Errorf("%s: %w (each lesson's directory needs a tests.json)", l.ID, err)
	}
	tests, err := parsePackSpec(data)
	if err != nil {
		return fmt.Errorf("%s/tests.json: %v", l.ID, err)
	}
	files := map[string][]byte{}
	defined := map[string]bool{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	if len(entries) > maxPackFiles+1 {
		return fmt.Errorf("%s: more than %d files; a lesson's tests fit in fewer", l.ID, maxPackFiles)
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == "tests.json" || strings.HasPrefix(name, "."):
			continue
		case !strings.HasSuffix(name, "_test.go") || !e.Type().IsRegular():
			return fmt.Errorf("%s/%s: a lesson's directory holds tests.json and *_test.go files only", l.ID, name)
		}
		src, err := readPackFile(filepath.Join(dir, name))
		if err != nil {
			return fmt.Errorf("%s: %w", l.ID, err)
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("%s/%v", l.ID, err)
		}
		if f.Name.Name != "sched" {
			return fmt.Errorf("%s/%s: package %s; test pack files are in package sched, the reference's", l.ID, name, f.Name.Name)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil {
				if fn.Name.Name == "TestMain" {
					return fmt.Errorf("%s/%s: declares TestMain; kata adds its own, so a test pack may not", l.ID, name)
				}
				defined[fn.Name.Name] = true
			}
		}
		files[name] = src
	}
	if len(files) == 0 {
		return fmt.Errorf("%s: no *_test.go files", l.ID)
	}
	for _, t := range tests {
		where := l.ID + "/tests.json: test " + t.Name
		switch {
		case !strings.HasPrefix(t.Name, "Test"):
			return fmt.Errorf("%s/tests.json: test %q: want the name of a Test... function", l.ID, t.Name)
		case taken[t.Name] != "":
			return fmt.Errorf("%s: the name is taken by %s", where, taken[t.Name])
		case !defined[t.Name]:
			return fmt.Errorf("%s: no _test.go file of %s declares it", where, l.ID)
		case t.Points <= 0:
			return fmt.Errorf("%s: points must be positive", where)
		}
		timeout, err := time.ParseDuration(t.Timeout)
		if err != nil || timeout <= 0 {
			return fmt.Errorf("%s: timeout %q: want a duration like \"20s\"", where, t.Timeout)
		}
		kind := lessons.TestKind(t.Kind)
		switch kind {
		case "":
			kind = lessons.Exact
		case lessons.Exact, lessons.Stress, lessons.Timing:
		default:
			return fmt.Errorf("%s: kind %q: want exact, stress or timing", where, t.Kind)
		}
		vis := t.Visibility
		if vis == "" {
			vis = "after_published"
		}
		if !slices.Contains(Visibilities, vis) {
			return fmt.Errorf("%s: visibility %q: want one of %s", where, t.Visibility, strings.Join(Visibilities, ", "))
		}
		taken[t.Name] = "the test pack's " + l.ID
		p.Tests[l.ID] = append(p.Tests[l.ID], lessons.Test{Name: t.Name, Points: t.Points, Timeout: timeout, Kind: kind, About: t.About, Private: true})
		p.Visibility[t.Name] = vis
	}
	p.files[l.ID] = files
	return nil
}

// Registry returns a registry holding reg's lessons with the pack's tests
// added: each lesson's Tests extended, its Hidden files joined by the
// pack's (named pack_*, so they cannot clash with the course's).
func (p *Pack) Registry(reg *lessons.Registry) (*lessons.Registry, error) {
	out := lessons.NewRegistry()
	for _, l := range reg.All() {
		c := *l
		if tests := p.Tests[l.ID]; len(tests) > 0 {
			c.Tests = append(slices.Clone(l.Tests), tests...)
			hidden := memFS{}
			names, err := fs.Glob(l.Hidden, "*")
			if err != nil {
				return nil, err
			}
			for _, name := range names {
				data, err := fs.ReadFile(l.Hidden, name)
				if err != nil {
					return nil, err
				}
				hidden[name] = data
			}
			for name, data := range p.files[l.ID] {
				hidden["pack_"+name] = data
			}
			c.Hidden = hidden
		}
		out.Register(&c)
	}
	return out, nil
}

// memFS is a flat in-memory file system: name → content.
type memFS map[string][]byte

func (m memFS) Open(name string) (fs.File, error) {
	if name == "." {
		entries, _ := m.ReadDir(".")
		return &memDir{entries: entries}, nil
	}
	data, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return &memFile{info: memInfo{name: name, size: int64(len(data))}, r: bytes.NewReader(data)}, nil
}

func (m memFS) ReadFile(name string) ([]byte, error) {
	data, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrNotExist}
	}
	return slices.Clone(data), nil
}

func (m memFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name != "." {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	var out []fs.DirEntry
	for n, data := range m {
		out = append(out, fs.FileInfoToDirEntry(memInfo{name: n, size: int64(len(data))}))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out, nil
}

type memFile struct {
	info memInfo
	r    *bytes.Reader
}

func (f *memFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *memFile) Read(b []byte) (int, error) { return f.r.Read(b) }
func (f *memFile) Close() error               { return nil }

type memDir struct {
	entries []fs.DirEntry
}

func (d *memDir) Stat() (fs.FileInfo, error) { return memInfo{name: ".", dir: true}, nil }
func (d *memDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: ".", Err: fs.ErrInvalid}
}
func (d *memDir) Close() error { return nil }
func (d *memDir) ReadDir(n int) ([]fs.DirEntry, error) {
	if n <= 0 {
		out := d.entries
		d.entries = nil
		return out, nil
	}
	if len(d.entries) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(d.entries))
	out := d.entries[:n]
	d.entries = d.entries[n:]
	return out, nil
}

type memInfo struct {
	name string
	size int64
	dir  bool
}

func (i memInfo) Name() string { return i.name }
func (i memInfo) Size() int64  { return i.size }
func (i memInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return i.dir }
func (i memInfo) Sys() any           { return nil }
