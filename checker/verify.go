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
	// CaughtBy is a mutant's first failing test; Hint, the test its file
	// named (lessons.Mutant.CaughtBy), which ran first, alone.
	CaughtBy string `json:"caught_by,omitempty"`
	Hint     string `json:"hint,omitempty"`
	Result   *LessonResult
}

func (v Verdict) String() string {
	mark := "ok  "
	if !v.OK {
		mark = "FAIL"
	}
	line := fmt.Sprintf("%s %s %-9s %-28s want %s, got %d/%d (%.1fs)", mark, v.Lesson, v.Kind, v.Name, v.Want, v.Result.Score, v.Result.MaxScore, v.Result.WallTime)
	switch {
	case v.CaughtBy != "" && v.CaughtBy == v.Hint:
		line += ", caught by " + v.CaughtBy
	case v.CaughtBy != "" && v.Hint != "":
		line += fmt.Sprintf(", caught by %s (not by %s, which its file names: go test ./checker -run TestVerify -update-hints)", v.CaughtBy, v.Hint)
	case v.CaughtBy != "":
		line += ", caught by " + v.CaughtBy
	}
	return line
}

// Verify is the course's self-check for lesson l: the reference scores full
// marks, the pristine skeleton zero, every mutant (a plausible wrong
// implementation) fails, and every alternate (a correct implementation
// written differently) scores full marks. A mutant's grading stops at its
// first failing test (gradeToFirstFailure): its score is then lower than
// a learner's full check of the same file would give. The reference, the
// skeleton and the mutants share one build where they can (gradeTogether).
//
// A mutant whose file names the test that caught it last time ("# caught
// by:") runs that test first, alone: if it fails, the mutant is caught,
// and the lesson's other tests need not run; if it passes, the mutant is
// graded as any other, to its first failure. The hint saves time, never
// a verdict. VerifyWithoutHints ignores the hints.
func (c *Checker) Verify(ctx context.Context, l *lessons.Lesson) ([]Verdict, error) {
	return c.verify(ctx, l, true)
}

// VerifyWithoutHints is Verify with every mutant graded from the lesson's
// first test on: its verdicts' CaughtBy are the hints to write.
func (c *Checker) VerifyWithoutHints(ctx context.Context, l *lessons.Lesson) ([]Verdict, error) {
	return c.verify(ctx, l, false)
}

func (c *Checker) verify(ctx context.Context, l *lessons.Lesson, hints bool) ([]Verdict, error) {
	tmp, err := os.MkdirTemp("", "kata-verify-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	ref := map[string]string{}
	refSrc := map[string][]byte{}
	for _, f := range l.Files {
		ref[f] = filepath.Join(c.mod.pkgDir, f)
		if refSrc[f], err = fs.ReadFile(gmpkata.Sources, "solutions/"+f); err != nil {
			return nil, err
		}
	}
	full := func(r *LessonResult) bool { return r.Score == r.MaxScore }
	cases := []*verifyCase{{kind: "reference", name: "solutions", want: "full marks", files: ref, edited: refSrc, ok: full}}

	skel, err := extract(gmpkata.Sources, "skeleton", l.Files, filepath.Join(tmp, "skeleton"))
	if err != nil {
		return nil, err
	}
	skelSrc, err := readAll(skel)
	if err != nil {
		return nil, err
	}
	cases = append(cases, &verifyCase{kind: "skeleton", name: "skeleton", want: "zero", files: skel, edited: skelSrc,
		ok: func(r *LessonResult) bool { return r.Score == 0 }})

	mutants, err := l.ReadMutants()
	if err != nil {
		return nil, err
	}
	for _, m := range mutants {
		mc, err := mutantCase(m, refSrc, ref, filepath.Join(tmp, "mutant", m.Name))
		if err != nil {
			return nil, err
		}
		if hints {
			mc.hint = m.CaughtBy
		}
		cases = append(cases, mc)
	}
	if err := c.gradeTogether(ctx, l, refSrc, cases); err != nil {
		return nil, err
	}
	var out []Verdict
	for _, vc := range cases {
		if vc.res == nil {
			vc.res = c.gradeAlone(ctx, l, vc)
		}
		v := Verdict{Lesson: l.ID, Kind: vc.kind, Name: vc.name, Want: vc.want,
			OK: vc.res.Status != StatusError && vc.ok(vc.res), Hint: vc.hint, Result: vc.res}
		if vc.kind == "mutant" {
			v.CaughtBy = firstFailing(vc.res)
		}
		out = append(out, v)
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
			res := c.Lesson(ctx, l, files)
			out = append(out, Verdict{Lesson: l.ID, Kind: "alternate", Name: d.Name(), Want: "full marks",
				OK: res.Status != StatusError && full(res), Result: res})
		}
	}
	return out, nil
}

// A verifyCase is one implementation Verify grades, other than the
// alternates: the reference, the skeleton or a hand-written mutant.
type verifyCase struct {
	kind, name, want string
	files            map[string]string // the lesson's files: base name → path
	edited           map[string][]byte // the content of those that differ from the reference's (all, for the reference)
	// firstFailure: the grading stops at the first failing test (a
	// mutant's verdict asks only whether the tests catch it, and one
	// failure says they do); the reference and the skeleton are graded
	// in full, as a learner's file is.
	firstFailure bool
	// hint, if set, is the test to run first, alone (a mutant's "# caught
	// by:"; see gradeHinted).
	hint string
	ok   func(*LessonResult) bool
	res  *LessonResult
}

// mutantCase writes the reference's files with mutant m's edits made
// under dir, and returns the case that grades them: it must fail, with
// neither the vetter nor the compiler in the way (a mutant is a mistake,
// not an attack: refused, or not compiling, it would fail without the
// tests having caught the mistake).
func mutantCase(m lessons.Mutant, refSrc map[string][]byte, ref map[string]string, dir string) (*verifyCase, error) {
	edited, err := m.Apply(refSrc)
	if err != nil {
		return nil, err
	}
	files := maps.Clone(ref)
	for f, data := range edited {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		files[f] = p
	}
	return &verifyCase{kind: "mutant", name: m.Name, want: "a failure", files: files, edited: edited, firstFailure: true,
		ok: func(r *LessonResult) bool { return r.Status == StatusFail && len(r.VetProblems) == 0 && !r.NotCompiled }}, nil
}

// gradeTogether grades, in one test binary, those of cases that fit one
// (mutate.FromVariants: each case's file is a variant of the reference's,
// selected by KATA_MUTANT) and that the vetter passes, and sets their
// results; it leaves nil the results of the others. One build for the
// lesson instead of one each, a -race compile and link of the whole
// package apiece: the reference (a variant that changes nothing), the
// skeleton (its stubs change only function bodies, in seven lessons of
// eight) and the hand-written mutants, as kata verify --mutate does the
// machine's. Only a lesson of one file has variants.
func (c *Checker) gradeTogether(ctx context.Context, l *lessons.Lesson, refSrc map[string][]byte, cases []*verifyCase) error {
	if len(l.Files) != 1 {
		return nil
	}
	name := l.Files[0]
	variants := make([][]byte, len(cases))
	for i, vc := range cases {
		if len(vc.edited) == 1 {
			variants[i] = vc.edited[name] // nil if it edits another file: graded alone
		}
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
	for i, vc := range cases {
		if !fits[i] {
			continue
		}
		probs, err := v.Files(ctx, map[string]string{name: vc.files[name]})
		if err != nil {
			return fmt.Errorf("checker: %w", err)
		}
		if len(probs) == 0 {
			todo = append(todo, i)
			continue
		}
		// Refused (a mutant that does not compile, say): graded alone,
		// where the result says so, and kept out of the schemata, which
		// it would keep from compiling.
		variants[i] = nil
	}
	if len(todo) < 2 {
		return nil
	}
	if len(todo) < countTrue(fits) {
		if f, _, err = mutate.FromVariants(name, refSrc[name], variants); err != nil {
			return err
		}
	}
	r, cleanup, err := c.schemataBuild(ctx, l, f)
	if err != nil || r == nil {
		return err // r == nil: the schemata do not compile, so each is graded alone
	}
	defer cleanup()
	for _, i := range todo {
		wr := *r // shares the built binary; the environment is its own
		wr.env = []string{fmt.Sprintf("%s=%d", mutate.EnvVar, i+1)}
		wr.failFast = cases[i].firstFailure
		cases[i].res = gradeHinted(l, cases[i].hint, func(ls []*lessons.Lesson) *LessonResult {
			wr := wr // each run of the binary starts from the run as built
			return c.gradeRun(ctx, l.ID, l.Title, &wr, ls)
		})
	}
	return ctx.Err()
}

// countTrue is the number of true values in bs.
func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}

// gradeHinted grades l with grade; if hint names one of l's tests, it
// first grades that test alone, and a failure there is the result (the
// mutant is caught; the other tests are not run). A hint that passes, or
// a result that is not a plain failure (a refusal, a build that failed, an
// error), and the whole lesson is graded.
func gradeHinted(l *lessons.Lesson, hint string, grade func([]*lessons.Lesson) *LessonResult) *LessonResult {
	if i := slices.IndexFunc(l.Tests, func(t lessons.Test) bool { return t.Name == hint }); i >= 0 {
		one := *l
		one.Tests = l.Tests[i : i+1]
		if r := grade([]*lessons.Lesson{&one}); r.Status == StatusFail && !r.NotCompiled && len(r.VetProblems) == 0 {
			return r
		}
	}
	return grade([]*lessons.Lesson{l})
}

// firstFailing returns the name of r's first test that ran and failed,
// or "".
func firstFailing(r *LessonResult) string {
	for _, t := range r.Tests {
		if failedOnItsOwn(t) {
			return t.Name
		}
	}
	return ""
}

// gradeAlone grades vc's files in a build of their own: as a learner's
// check does, or, for a mutant, to its first failure.
func (c *Checker) gradeAlone(ctx context.Context, l *lessons.Lesson, vc *verifyCase) *LessonResult {
	if vc.firstFailure {
		return gradeHinted(l, vc.hint, func(ls []*lessons.Lesson) *LessonResult {
			return c.gradeToFirstFailure(ctx, ls[0], vc.files)
		})
	}
	return c.Lesson(ctx, l, vc.files)
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

// readAll reads the files of files (base name → path).
func readAll(files map[string]string) (map[string][]byte, error) {
	out := map[string][]byte{}
	for name, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		out[name] = data
	}
	return out, nil
}
