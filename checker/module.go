package checker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/checker/vet"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// A module is the grading module on disk: a copy of the reference
// scheduler (non-test files of solutions/) and, beside it, every lesson's
// hidden tests, ready to be overlaid. It depends on nothing but the
// standard library, so grading needs no network.
type module struct {
	dir    string // the module root
	pkgDir string // dir/solutions: the package graded
	hidden string // dir/hidden: hidden tests, one directory per lesson
	// files is the module's content by slash-separated path, and sum its
	// hash: what private copies are made from and checked against.
	files map[string][]byte
	sum   string
}

// moduleFiles lists every file of the grading module with its content,
// by slash-separated path.
func moduleFiles(reg *lessons.Registry) (map[string][]byte, error) {
	files := map[string][]byte{
		"go.mod": []byte("module gmpkata.grade\n\ngo 1.26\n"),
	}
	refs, err := fs.Glob(gmpkata.Sources, "solutions/*.go")
	if err != nil {
		return nil, err
	}
	for _, name := range refs {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fs.ReadFile(gmpkata.Sources, name)
		if err != nil {
			return nil, err
		}
		files[name] = data
	}
	for _, name := range lessons.KitFiles() {
		data, err := fs.ReadFile(lessons.Kit, name)
		if err != nil {
			return nil, err
		}
		files["hidden/kit/"+name] = data
	}
	for _, l := range reg.All() {
		tests, err := fs.Glob(l.Hidden, "*_test.go")
		if err != nil {
			return nil, err
		}
		for _, name := range tests {
			data, err := fs.ReadFile(l.Hidden, name)
			if err != nil {
				return nil, err
			}
			files["hidden/"+l.ID+"/"+name] = data
		}
	}
	return files, nil
}

// prepareModule writes the grading module under cacheDir, in a directory
// named by the hash of its content, unless it is already there. Writing
// goes to a temporary directory renamed into place, so concurrent graders
// and interrupted runs never see half a module.
func prepareModule(cacheDir string, reg *lessons.Registry) (*module, error) {
	files, err := moduleFiles(reg)
	if err != nil {
		return nil, fmt.Errorf("checker: reading the embedded sources: %w", err)
	}
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	h := sha256.New()
	for _, name := range names {
		fmt.Fprintf(h, "%s\x00%d\x00", name, len(files[name]))
		h.Write(files[name])
	}
	full := hex.EncodeToString(h.Sum(nil))
	dir := filepath.Join(cacheDir, "grade-"+full[:16])
	m := moduleAt(dir)
	m.files, m.sum = files, full
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		if os.Getuid() == 0 {
			_ = os.Chmod(dir, 0o755) // see below
		}
		return m, nil
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("checker: cache directory: %w", err)
	}
	tmp, err := os.MkdirTemp(cacheDir, "tmp-grade-")
	if err != nil {
		return nil, fmt.Errorf("checker: cache directory: %w", err)
	}
	defer os.RemoveAll(tmp)
	if os.Getuid() == 0 {
		// The sandbox runs the test binary as nobody when kata runs as
		// root (package sandbox): it must reach the module, its
		// working directory.
		_ = os.Chmod(tmp, 0o755)
	}
	if err := writeFiles(tmp, files); err != nil {
		return nil, err
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(filepath.Join(dir, "go.mod")); statErr == nil {
			return m, nil // another grader won the race; its copy is identical
		}
		return nil, fmt.Errorf("checker: installing the grading module: %w", err)
	}
	return m, nil
}

// DefaultCacheDir is where kata keeps its grading module: the user's cache
// directory, or the system's temporary directory if there is none.
func DefaultCacheDir() string {
	if dir := os.Getenv("KATA_CACHE"); dir != "" {
		return dir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "gmp-kata")
	}
	return filepath.Join(os.TempDir(), "gmp-kata-cache")
}

func moduleAt(dir string) *module {
	return &module{dir: dir, pkgDir: filepath.Join(dir, "solutions"), hidden: filepath.Join(dir, "hidden")}
}

// writeFiles writes files (slash-separated path → content) under dir.
func writeFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// copyTo writes a private copy of the module in dir, from the pristine
// content kata carries (not from the shared copy on disk, which a run
// that was not isolated may have changed).
func (m *module) copyTo(dir string) (*module, error) {
	if err := writeFiles(dir, m.files); err != nil {
		return nil, fmt.Errorf("checker: copying the grading module: %w", err)
	}
	c := moduleAt(dir)
	c.files, c.sum = m.files, m.sum
	return c, nil
}

// changes lists what differs between the module on disk and its pristine
// content: files changed, removed or added (slash-separated, sorted).
func (m *module) changes() []string {
	var out []string
	seen := map[string]bool{}
	_ = filepath.WalkDir(m.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			rel, _ := filepath.Rel(m.dir, p)
			out = append(out, filepath.ToSlash(rel)+" (unreadable)")
			return nil
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(m.dir, p)
		rel = filepath.ToSlash(rel)
		seen[rel] = true
		want, ok := m.files[rel]
		if !ok {
			out = append(out, rel+" (added)")
			return nil
		}
		if !d.Type().IsRegular() {
			out = append(out, rel+" (replaced)")
			return nil
		}
		if got, err := os.ReadFile(p); err != nil || string(got) != string(want) {
			out = append(out, rel+" (changed)")
		}
		return nil
	})
	for name := range m.files {
		if !seen[name] {
			out = append(out, name+" (removed)")
		}
	}
	sort.Strings(out)
	return out
}

// Fingerprint names what a Checker grades against: the hash of the
// reference scheduler, the hidden tests and their kit, and the options that
// change a grade. Two Checkers with the same fingerprint give the same
// grade to the same files.
func (c *Checker) Fingerprint() string {
	h := sha256.New()
	fmt.Fprintf(h, "module %s\nrace %v\noutput %d\nmemory %d\ntimeouts %d\nisolate %v\nharness %d\nsandbox %v\n",
		c.mod.sum, !c.opts.NoRace, c.opts.MaxOutput, c.opts.MaxMemory, c.opts.MaxTimeouts, c.opts.Isolate, harnessVersion, sandboxed())
	fmt.Fprintf(h, "vet %d\n", vet.Version) // files a rule refuses score nothing: a new rule, a new grade
	for _, l := range c.reg.All() {
		// What each lesson's files may use is a rule too (vet rule 8).
		fmt.Fprintf(h, "api %s %q\n", l.ID, l.API)
	}
	fmt.Fprintf(h, "ends 1\n") // a pass counts only if the test's end said so (settle)
	return hex.EncodeToString(h.Sum(nil))
}
