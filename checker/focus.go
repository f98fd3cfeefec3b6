package checker

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// EnvSeed names the environment variable that makes the hidden tests'
// controlled interleavings run one seed only: the one a failure named.
const EnvSeed = "KATA_SEED"

// CheckOptions focus or repeat one check of a lesson (kata check --run,
// --count, --seed).
type CheckOptions struct {
	// Run, if set, grades only the tests whose names it matches.
	Run *regexp.Regexp
	// Count grades the lesson this many times over (one build, run again),
	// and a test scores only if it passed every time; 0 or 1: once.
	Count int
	// Seed, if not 0, makes the tests that explore interleavings with the
	// controlled scheduler run only this seed, to replay a failure.
	Seed uint64
	// Deadline, if set, ends the lesson's budget (Checker.Budget) there
	// rather than a budget after this check starts: a caller that grades
	// a lesson several times (kata grade --runs) gives every run the one
	// deadline, so that repeating a lesson cannot buy it more than its
	// budget. Tests not finished by then fail, saying the budget ran out.
	Deadline time.Time
	// Printed, if set, counts what the lesson's runs have printed, as the
	// output limit (Options.MaxOutput) counts it, across checks: a caller
	// that grades a lesson several times (kata grade --runs) passes every
	// check the one counter, so that repeating a lesson cannot buy it more
	// than one limit's output. --count's runs share one without it.
	Printed *int
	// Progress, if set, is told as the check goes: the build starting,
	// then each test as it starts. It is never called twice at once, nor
	// after LessonWith returns.
	Progress func(Progress)
	// Processes, if more than 1, spreads the lesson's tests over up to
	// this many test processes running at once (each test in one of
	// them): faster where there are cores to spare. Each process has the
	// limits of a run (time, memory; the output limit is shared out), and
	// each is judged alone: a crash or a race in one fails only its own
	// tests, as in a run of those tests alone. With
	// Options.SerialWithoutRace, the serial tests run in one process more.
	Processes int
}

// Progress is where a check is: building the test binary, or running
// Test, the Started-th of Total tests to start.
type Progress struct {
	Building       bool
	Test           string
	Started, Total int
}

// LessonWith is Lesson, focused or repeated by o.
func (c *Checker) LessonWith(ctx context.Context, l *lessons.Lesson, files map[string]string, o CheckOptions) (res *LessonResult) {
	if o.Run != nil {
		lc := *l
		lc.Tests = nil
		for _, t := range l.Tests {
			if o.Run.MatchString(t.Name) {
				lc.Tests = append(lc.Tests, t)
			}
		}
		if len(lc.Tests) == 0 {
			return &LessonResult{ID: l.ID, Title: l.Title, Status: StatusError,
				Error: fmt.Sprintf("checker: --run %q matches none of lesson %s's tests (kata task %s lists them)", o.Run, l.ID, l.ID[:2])}
		}
		l = &lc
	}
	replace := map[string]string{}
	for _, f := range l.Files {
		p, ok := files[f]
		if !ok {
			return &LessonResult{ID: l.ID, Title: l.Title, Status: StatusError, MaxScore: l.MaxScore(),
				Error: fmt.Sprintf("checker: no %s to grade for lesson %s", f, l.ID)}
		}
		replace[f] = p
	}
	ls := []*lessons.Lesson{l}
	r, err := c.newRun(replace, ls)
	if err != nil {
		return &LessonResult{ID: l.ID, Title: l.Title, Status: StatusError, MaxScore: l.MaxScore(), Error: err.Error()}
	}
	defer r.cleanup()
	r.progress = o.Progress
	r.processes = o.Processes
	if o.Processes > 1 {
		var names []string
		for _, t := range l.Tests {
			names = append(names, t.Name)
		}
		r.weights = c.lastTimes(l.ID, names)
		defer func() {
			if res.Status != StatusError && o.Run == nil {
				c.keepTimes(res)
			}
		}()
	}
	r.lessonDeadline = o.Deadline
	r.printed = o.Printed
	if r.printed == nil {
		r.printed = new(int)
	}
	if o.Seed != 0 {
		r.env = append(r.env, EnvSeed+"="+strconv.FormatUint(o.Seed, 10))
	}
	res = c.gradeRun(ctx, l.ID, l.Title, r, ls)
	runs := 1
	for ; runs < o.Count && res.Status == StatusPass; runs++ {
		// Only a lesson that passed so far is run again: one failure
		// already decides the grade.
		next := c.gradeRun(ctx, l.ID, l.Title, r, ls)
		if next.Status == StatusError {
			return next
		}
		if next.Status != StatusPass {
			for i, t := range next.Tests {
				if t.Status != StatusPass {
					next.Tests[i].Message = fmt.Sprintf("failed in run %d of %d (it passed the %d before): %s", runs+1, o.Count, runs, t.Message)
				}
			}
			next.WallTime += res.WallTime
			res = next
			runs++
			break
		}
		res.WallTime += next.WallTime
	}
	return res
}
