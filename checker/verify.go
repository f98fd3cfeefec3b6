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
	"github.com/gmp-kata/gmp-kata/internal/mutate"
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
		res := c.Lesson(ctx, l, files)
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
	verdicts, err := c.verifyMutants(ctx, l, mutants, refSrc, ref, filepath.Join(tmp, "mutant"))
	if err != nil {
		return nil, err
	}
	out = append(out, verdicts...)

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

// verifyMutants grades each of l's hand-written mutants, ref's files with
// the mutant's edits made, to its first failing test: the verdict is good
// if the tests failed it, with neither the vetter nor the compiler in the
// way (a mutant is a mistake, not an attack: refused, or not compiling, it
// would fail without the tests having caught the mistake).
//
// A mutant that changes only function bodies of the lesson's one file is
// compiled with all the others like it into one test binary (mutant
// schemata, as kata verify --mutate does the machine's), and each runs
// there selected by KATA_MUTANT: one build for the lesson instead of one
// each, a -race compile and link of the whole package apiece. Each is
// still vetted on its own first. The rest, and all of them if the
// schemata do not build, are built alone.
func (c *Checker) verifyMutants(ctx context.Context, l *lessons.Lesson, mutants []lessons.Mutant, refSrc map[string][]byte, ref map[string]string, dir string) ([]Verdict, error) {
	files := make([]map[string]string, len(mutants))
	edited := make([]map[string][]byte, len(mutants))
	for i, m := range mutants {
		var err error
		if edited[i], err = m.Apply(refSrc); err != nil {
			return nil, err
		}
		files[i] = maps.Clone(ref)
		for f, data := range edited[i] {
			p := filepath.Join(dir, m.Name, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return nil, err
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return nil, err
			}
			files[i][f] = p
		}
	}
	results := make([]*LessonResult, len(mutants))
	if err := c.mutantsTogether(ctx, l, mutants, edited, files, refSrc, results); err != nil {
		return nil, err
	}
	var out []Verdict
	for i, m := range mutants {
		res := results[i]
		if res == nil {
			res = c.gradeToFirstFailure(ctx, l, files[i])
		}
		ok := res.Status == StatusFail && len(res.VetProblems) == 0 && !res.NotCompiled
		out = append(out, Verdict{Lesson: l.ID, Kind: "mutant", Name: m.Name, Want: "a failure", OK: ok, Result: res})
	}
	return out, nil
}

// mutantsTogether grades, in one schemata binary, those of the mutants
// that fit one (mutate.FromVariants) and that the vetter passes, and puts
// their results in results; it leaves nil the results of the others.
func (c *Checker) mutantsTogether(ctx context.Context, l *lessons.Lesson, mutants []lessons.Mutant, edited []map[string][]byte, files []map[string]string, refSrc map[string][]byte, results []*LessonResult) error {
	if len(l.Files) != 1 || len(mutants) < 2 {
		return nil
	}
	name := l.Files[0]
	variants := make([][]byte, len(mutants))
	for i := range mutants {
		if len(edited[i]) != 1 || edited[i][name] == nil {
			continue // it edits another file: built alone
		}
		variants[i] = edited[i][name]
	}
	f, fits, err := mutate.FromVariants(name, refSrc[name], variants)
	if err != nil {
		return err
	}
	v, err := c.vetter()
	if err != nil {
		return err
	}
	var todo []int
	for i := range mutants {
		if !fits[i] {
			continue
		}
		probs, err := v.Files(ctx, map[string]string{name: files[i][name]})
		if err != nil {
			return fmt.Errorf("checker: %w", err)
		}
		if len(probs) == 0 {
			todo = append(todo, i) // refused: built alone, where the result says so
		}
	}
	if len(todo) < 2 {
		return nil
	}
	r, cleanup, err := c.schemataBuild(ctx, l, f)
	if err != nil || r == nil {
		return err // r == nil: the schemata do not compile, so each is built alone
	}
	defer cleanup()
	r.failFast = true // as gradeToFirstFailure: one failure says the tests catch it
	ls := []*lessons.Lesson{l}
	for _, i := range todo {
		wr := *r // shares the built binary; the environment is its own
		wr.env = []string{fmt.Sprintf("%s=%d", mutate.EnvVar, i+1)}
		results[i] = c.gradeRun(ctx, l.ID, l.Title, &wr, ls)
	}
	return ctx.Err()
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
