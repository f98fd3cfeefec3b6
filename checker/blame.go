package checker

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/vet"
	"github.com/gmp-kata/gmp-kata/internal/blame"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// A Blame says which of a learner's functions a lesson's failing tests
// point at (internal/blame): each failing test is run again with one
// function at a time taken from the reference.
type Blame struct {
	// Failing are the tests that failed and were run again.
	Failing []string `json:"failing"`
	// Functions are the functions that could be swapped, in the
	// reference's order, and Fixed how many of Failing each swap passed
	// before one failed (a swap stops at its first failure).
	Functions []string       `json:"functions"`
	Fixed     map[string]int `json:"fixed"`
	// Culprits are the functions whose reference version alone passes
	// every failing test, the first found (the swaps stop there): the
	// mistake is in it.
	Culprits []string `json:"culprits,omitempty"`
}

// blameLimit bounds one failing test's run under a swap, with a quarter of
// the test's own limit: a swap that does not fix a hang must not cost the
// hang's whole limit, once per function.
const blameLimit = 3 * time.Second

// Blame runs res's failing tests again, once per function of lesson l's
// files that the learner's files (files) and the reference's declare
// alike, with the reference's version of that one function in place of the
// learner's. It is a hint for kata check, never a grade: the learner's
// files were vetted by the check that made res, and are compiled here with
// the reference's beside them. It returns nil, nil if nothing failed, and
// an error if the swapped files do not compile (a learner who changed a
// type the reference's functions use): then there is nothing to say.
func (c *Checker) Blame(ctx context.Context, l *lessons.Lesson, files map[string]string, res *LessonResult) (*Blame, error) {
	lc := *l
	lc.Tests = nil
	b := &Blame{Fixed: map[string]int{}}
	elapsed := map[string]float64{}
	for _, t := range res.Tests {
		if failedOnItsOwn(t) {
			b.Failing = append(b.Failing, t.Name)
			elapsed[t.Name] = t.Elapsed
		}
	}
	for _, t := range l.Tests {
		if _, failed := elapsed[t.Name]; failed {
			// The test's own time, a few times over, or a quarter of its
			// limit, is plenty for a swap that fixes it (a test that failed
			// at its first wrong answer, as a differential test does, runs
			// all of its cases when it passes: lesson 06's, 0.04 s failing,
			// took over 3 s passing on a loaded machine); a hang stops there.
			t.Timeout = min(t.Timeout, max(blameLimit, t.Timeout/4, time.Duration(3*elapsed[t.Name]*float64(time.Second))))
			lc.Tests = append(lc.Tests, t)
		}
	}
	if len(lc.Tests) == 0 || res.Status == StatusError || len(res.CompileErrors) > 0 || len(res.VetProblems) > 0 {
		return nil, nil
	}

	tmp, err := os.MkdirTemp("", "kata-blame-")
	if err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	defer removeAll(tmp)
	replace := map[string]string{"zz_kata_blame.go": filepath.Join(tmp, "zz_kata_blame.go")}
	if err := os.WriteFile(replace["zz_kata_blame.go"], blame.SelectorFile("sched"), 0o644); err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	for _, name := range l.Files {
		mine, err := vet.ReadFile(files[name])
		if err != nil {
			return nil, fmt.Errorf("checker: %w", err)
		}
		sc, err := blame.Make(name, mine, c.mod.files["solutions/"+name])
		if err != nil {
			return nil, err
		}
		b.Functions = append(b.Functions, sc.Swappable...)
		replace[name] = filepath.Join(tmp, name)
		if err := os.WriteFile(replace[name], sc.Src, 0o644); err != nil {
			return nil, fmt.Errorf("checker: %w", err)
		}
	}
	if len(b.Functions) == 0 {
		return nil, nil
	}

	ls := []*lessons.Lesson{&lc}
	r := c.runOf(replace, ls)
	defer r.cleanup()
	r.trusted = true  // kata's own schema of files the check vetted
	r.failFast = true // one failure is enough: the swap did not fix them all
	if err := r.makeWork(); err != nil {
		return nil, err
	}
	for i, fn := range b.Functions {
		wr := r
		if i > 0 {
			cp := *r // shares the binary the first run built
			wr = &cp
		}
		wr.env = []string{blame.EnvVar + "=" + fn}
		got := c.gradeRun(ctx, l.ID, l.Title, wr, ls)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if got.Status == StatusError || len(got.CompileErrors) > 0 {
			return nil, fmt.Errorf("checker: blame: %s%s", got.Error, firstOf(got.CompileErrors))
		}
		for _, t := range got.Tests {
			if t.Status == StatusPass {
				b.Fixed[fn]++
			}
		}
		if b.Fixed[fn] == len(b.Failing) {
			// Enough to go on: the learner reads one name, and every
			// further swap costs a run.
			b.Culprits = append(b.Culprits, fn)
			break
		}
	}
	return b, nil
}

func firstOf(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return ": " + lines[0]
}
