package checker

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// A Verdict is one line of the self-check: an implementation of a lesson,
// what its grade must be, and what it was.
type Verdict struct {
	Lesson string `json:"lesson"`
	Kind   string `json:"kind"` // reference, skeleton, mutant, alternate
	Name   string `json:"name"`
	Want   string `json:"want"` // "full marks", "zero", "a failure"
	OK     bool   `json:"ok"`
	Result *LessonResult
}

func (v Verdict) String() string {
	mark := "ok  "
	if !v.OK {
		mark = "FAIL"
	}
	return fmt.Sprintf("%s %s %-9s %-28s want %s, got %d/%d (%.1fs)", mark, v.Lesson, v.Kind, v.Name, v.Want, v.Result.Score, v.Result.MaxScore, v.Result.WallTime)
}

// Verify is the course's self-check for lesson l: the reference scores full
// marks, the pristine skeleton zero, every mutant (a plausible wrong
// implementation) fails, and every alternate (a correct implementation
// written differently) scores full marks. A mutant's grading stops at its
// first failing test (gradeToFirstFailure): its score is then lower than
// a learner's full check of the same file would give.
func (c *Checker) Verify(ctx context.Context, l *lessons.Lesson) ([]Verdict, error) {
	tmp, err := os.MkdirTemp("", "kata-verify-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	var out []Verdict
	check := func(kind, name, want string, files map[string]string, ok func(*LessonResult) bool) {
		var res *LessonResult
		if kind == "mutant" {
			res = c.gradeToFirstFailure(ctx, l, files)
		} else {
			res = c.Lesson(ctx, l, files)
		}
		out = append(out, Verdict{Lesson: l.ID, Kind: kind, Name: name, Want: want, OK: res.Status != StatusError && ok(res), Result: res})
	}
	full := func(r *LessonResult) bool { return r.Score == r.MaxScore }

	ref := map[string]string{}
	for _, f := range l.Files {
		ref[f] = filepath.Join(c.mod.pkgDir, f)
	}
	check("reference", "solutions", "full marks", ref, full)

	skel, err := extract(gmpkata.Sources, "skeleton", l.Files, filepath.Join(tmp, "skeleton"))
	if err != nil {
		return nil, err
	}
	check("skeleton", "skeleton", "zero", skel, func(r *LessonResult) bool { return r.Score == 0 })

	mutants, err := l.ReadMutants()
	if err != nil {
		return nil, err
	}
	refSrc := map[string][]byte{}
	for _, f := range l.Files {
		if refSrc[f], err = fs.ReadFile(gmpkata.Sources, "solutions/"+f); err != nil {
			return nil, err
		}
	}
	for _, m := range mutants {
		edited, err := m.Apply(refSrc)
		if err != nil {
			return nil, err
		}
		files := maps.Clone(ref)
		for f, data := range edited {
			p := filepath.Join(tmp, "mutant", m.Name, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return nil, err
			}
			files[f] = p
		}
		// A mutant is a mistake, not an attack: refused by the vetter, or
		// not compiling, it would fail without the tests having caught the
		// mistake.
		check("mutant", m.Name, "a failure", files, func(r *LessonResult) bool {
			return r.Status == StatusFail && len(r.VetProblems) == 0 && !r.NotCompiled
		})
	}

	if l.Alternates != nil {
		dirs, err := fs.ReadDir(l.Alternates, ".")
		if err != nil {
			return nil, fmt.Errorf("checker: %s alternates: %w", l.ID, err)
		}
		for _, d := range dirs {
			if !d.IsDir() {
				continue
			}
			files, err := extract(l.Alternates, d.Name(), l.Files, filepath.Join(tmp, "alternate", d.Name()))
			if err != nil {
				return nil, err
			}
			// An alternate replaces only the files it has; the others are
			// the reference's.
			for _, f := range l.Files {
				if _, ok := files[f]; !ok {
					files[f] = ref[f]
				}
			}
			check("alternate", d.Name(), "full marks", files, full)
		}
	}
	return out, nil
}

// gradeToFirstFailure grades l with files as Lesson does, but stops at the
// first test that fails (-test.failfast; the tests after it fail without
// running): a mutant's verdict asks only whether the hidden tests catch
// it, and one failure says they do. Its time limits are the learner's:
// a mutant that is only slow is not caught by being cut short.
func (c *Checker) gradeToFirstFailure(ctx context.Context, l *lessons.Lesson, files map[string]string) *LessonResult {
	replace := map[string]string{}
	for _, f := range l.Files {
		replace[f] = files[f]
	}
	ls := []*lessons.Lesson{l}
	r, err := c.newRun(replace, ls)
	if err != nil {
		return &LessonResult{ID: l.ID, Title: l.Title, Status: StatusError, MaxScore: l.MaxScore(), Error: err.Error()}
	}
	defer r.cleanup()
	r.failFast = true
	return c.gradeRun(ctx, l.ID, l.Title, r, ls)
}

// extract copies the files named in want that dir of fsys holds into
// dest, and returns base name → path.
func extract(fsys fs.FS, dir string, want []string, dest string) (map[string]string, error) {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return nil, err
	}
	files := map[string]string{}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if !slices.Contains(want, e.Name()) {
			continue
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dest, e.Name())
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		files[e.Name()] = p
	}
	return files, nil
}
