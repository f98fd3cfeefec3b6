package checker

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gmp-kata/gmp-kata/checker/vet"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// A learner's files are vetted before they are compiled (see package
// vet): code compiled into the graded package runs beside kata's harness,
// and a file that imports os, declares an init function, links to the
// runtime's variables or names the harness's own could forge its grade.
// A file that breaks a rule scores nothing, every test failing with the
// first problem, and is never compiled.

// vetting is a Checker's vetter, made when first needed. It vets in a
// child process (vet.Remote), within the run's memory limit
// (Options.MaxMemory; vet.DefaultMemory if there is none) and
// vet.DefaultTimeout: a lesson file is untrusted, and type-checking one
// can take time and memory exponential in its size (the red team's A25).
// The child costs kata check nothing measurable: it loads what the
// vetter in kata's own process loaded before (part of the standard
// library, a tenth of a second, once per Checker), and is kept for the
// next file (a warm kata check of lesson 01: 4.65 s before, 4.59 s
// after, medians of five).
type vetting struct {
	once sync.Once
	v    *vet.Remote
	err  error
	// off grades without vetting: only for tests of the defences beneath
	// the vetter (the harness, the isolation), which a vetted file cannot
	// reach.
	off bool
	// limits, if set, are the vetter's, not the run's: for tests.
	limits vet.Limits
}

// vetter returns the Checker's vetter: the reference and the test-only
// files (the hidden tests, their kit and the harness) are the grading
// module's.
func (c *Checker) vetter() (*vet.Remote, error) {
	c.vet.once.Do(func() {
		harness, secret := harnessSource(nil, "ID", true, nil, nil)
		cfg := vet.Config{Reference: map[string][]byte{}, TestOnly: map[string][]byte{harnessFile: harness, secretFile: secret}}
		for name, data := range c.mod.files {
			if base, ok := strings.CutPrefix(name, "solutions/"); ok {
				if c.vet.err = cfg.AddReference(base, data); c.vet.err != nil {
					c.vet.err = fmt.Errorf("checker: %w", c.vet.err)
					return
				}
			} else if strings.HasPrefix(name, "hidden/") && strings.HasSuffix(name, ".go") {
				cfg.TestOnly[name] = data
			}
		}
		cfg.API = lessonAPIs(c.reg)
		lim := c.vet.limits
		if lim.Memory == 0 {
			lim.Memory = c.opts.MaxMemory
		}
		c.vet.v, c.vet.err = vet.NewRemote(cfg, lim)
		if c.vet.err != nil {
			c.vet.err = fmt.Errorf("checker: %w", c.vet.err)
		}
	})
	return c.vet.v, c.vet.err
}

// lessonAPIs is what each lesson file may use of the reference (vet rule
// 8), by the file's base name: its lesson's api.txt.
func lessonAPIs(reg *lessons.Registry) map[string]vet.LessonAPI {
	out := map[string]vet.LessonAPI{}
	for _, l := range reg.All() {
		for _, f := range l.Files {
			out[f] = vet.LessonAPI{Lesson: l.ID, Names: l.API}
		}
	}
	return out
}

// vetFirst vets the files a grade replaces the reference's with (r's
// snapshot). If they break a rule, it records every test as failed,
// saying why, and the problems in res.VetProblems.
//
// If the vetter could not read them whole (vet.Problem.Unchecked: a
// syntax or type error), they must not run, but the compiler says what is
// wrong better than the vetter: vetFirst compiles them, without running
// anything, and returns that build's result for gradeRun to report as any
// build's (a learner sees the compiler's message, as ever). If the build
// succeeds after all, the compiler reads what the vetter could not (the
// red team's A01: go/parser's nesting limit, which the compiler does not
// have): the files are refused, with what the vetter said.
//
// vetted is false if the vetter did not run: it is off, or passed these
// very files before (vetcache.go).
func (c *Checker) vetFirst(ctx context.Context, res *LessonResult, r *run, order []string, record func(name, status, msg string, elapsed float64)) (pending *runResult, vetted bool, err error) {
	if c.vet.off {
		return nil, false, nil
	}
	key := c.vetKey(r)
	if r.vettedBefore(key) {
		return nil, false, nil
	}
	v, err := c.vetter()
	if err != nil {
		return nil, false, err
	}
	probs, err := v.Files(ctx, r.snapshot)
	if err != nil {
		return nil, true, fmt.Errorf("checker: %w", err)
	}
	if len(probs) == 0 {
		r.keepVetted(key)
		return nil, true, nil
	}
	if !slices.ContainsFunc(probs, func(p vet.Problem) bool { return !p.Unchecked() }) {
		rr, err := c.compileOnly(ctx, r)
		if err != nil || rr != nil {
			return rr, true, err
		}
	}
	for i, p := range probs {
		if i == maxVetProblems {
			res.VetProblems = append(res.VetProblems, fmt.Sprintf("... and %d more", len(probs)-i))
			break
		}
		res.VetProblems = append(res.VetProblems, p.String())
	}
	msg := vetMessage(res.VetProblems[0], len(probs))
	for _, name := range order {
		record(name, StatusFail, msg, 0)
	}
	return nil, true, nil
}

// compileOnly builds r's test binary and runs nothing: it returns the
// build's result if it gave no binary (it failed, or was stopped), nil if
// it did.
func (c *Checker) compileOnly(ctx context.Context, r *run) (*runResult, error) {
	if r.overlay == nil {
		if err := r.prepare(); err != nil {
			return nil, err
		}
	}
	return r.build(ctx)
}

// maxVetProblems is how many problems a result lists: a file of 256 KiB
// can break a rule 20,000 times.
const maxVetProblems = 100

// vetMessage is a failed test's message for files the vetter refused:
// the first problem, and how many more there are (of n).
func vetMessage(first string, n int) string {
	msg := "breaks a rule of lesson files: " + first
	switch n - 1 {
	case 0:
	case 1:
		msg += " (and 1 more problem)"
	default:
		msg += fmt.Sprintf(" (and %d more problems)", n-1)
	}
	return msg
}
