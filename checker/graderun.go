package checker

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// A grading is one grading of a lesson's tests (gradeRun): the tests,
// the verdict of each one settled, and the runs still to make.
type grading struct {
	c       *Checker
	r       *run
	res     *LessonResult
	tests   map[string]lessons.Test
	order   []string              // the tests, in the lesson's order
	results map[string]TestResult // the tests settled
	budget  time.Duration         // the lesson's (lessonBudget)
	// remaining are the tests not settled yet; stopped counts the tests
	// stopped for running out of time, memory or output.
	remaining []string
	stopped   int
	// raced: a run of several tests raced, so their passes run again;
	// split: each alone, since a run of them together raced again.
	raced, split bool
	// printed is what the lesson's runs have printed so far (as the
	// output limit counts it): Options.MaxOutput bounds all of them
	// together, so that code that prints to the limit and crashes in
	// every test costs kata one limit's reading, not one per test.
	printed int
}

func (c *Checker) newGrading(id, title string, r *run, ls []*lessons.Lesson) *grading {
	g := &grading{c: c, r: r, res: &LessonResult{ID: id, Title: title},
		tests: map[string]lessons.Test{}, results: map[string]TestResult{}}
	for _, l := range ls {
		for _, t := range l.Tests {
			g.tests[t.Name] = t
			g.order = append(g.order, t.Name)
			g.res.MaxScore += t.Points
		}
	}
	g.remaining = g.order
	return g
}

// record settles test name.
func (g *grading) record(name, status, msg string, elapsed float64) {
	t := g.tests[name]
	tr := TestResult{Name: name, Status: status, MaxScore: t.Points, Kind: string(t.Kind), About: t.About, Message: msg, Elapsed: elapsed}
	if status == StatusPass {
		tr.Score = t.Points
	}
	g.results[name] = tr
}

// gradeRun grades ls's hidden tests with r, running it as often as needed.
//
// Each run either is trusted, and its harness's report settles every test
// it ran, or settles at least one test (the one that hung, crashed or
// failed); its passes are run again, since only a trusted run proves a
// pass. A run is trusted if its harness reported, with the nonce, and the
// test binary then exited on its own with the status that report implies
// (trusted): a report written by code that then crashed the process is
// not taken. And a run in which the race detector reported a race is not
// trusted after the race (a race can tear memory, and through it code can
// read and write anything, the nonce and the report included): its
// failures stand, its passes are run again, first together, and, if that
// run races too, each in a process of its own, where a race is that
// test's own (split). So there are at most 2*len(order)+1 runs, all of
// them within the lesson's budget (lessonBudget), and all of them within
// one output limit (Options.MaxOutput): what kata reads of a lesson's
// runs is bounded by the limit, not by the limit times the runs.
func (c *Checker) gradeRun(ctx context.Context, id, title string, r *run, ls []*lessons.Lesson) *LessonResult {
	start := time.Now()
	g := c.newGrading(id, title, r, ls)
	if r.printed != nil {
		g.printed = *r.printed
		defer func() { *r.printed = g.printed }()
	}
	g.limitOutput(1)
	var pending *runResult // a run vetFirst made: the first to report
	if !r.trusted {
		// The snapshot: what the runs will compile, not the live files.
		vetStart := time.Now()
		var vetted bool
		var err error
		if pending, vetted, err = c.vetFirst(ctx, g.res, r, g.order, g.record); err != nil {
			return g.failed(err)
		}
		if vetted {
			g.phase("vet", time.Since(vetStart), 0, 0)
		}
	}
	g.budget = c.lessonBudget(r)
	r.deadline = start.Add(g.budget)
	if !r.lessonDeadline.IsZero() && r.lessonDeadline.Before(r.deadline) {
		r.deadline = r.lessonDeadline
	}
	if len(g.res.VetProblems) > 0 {
		g.remaining = nil // refused: never compiled
	}
	for len(g.remaining) > 0 {
		if time.Now().After(r.deadline) {
			for _, name := range g.remaining {
				g.record(name, StatusFail, notRunPrefix+budgetMessage(g.budget), 0)
			}
			break
		}
		if g.outputSpent() {
			break
		}
		batches := g.batches()
		rrs, err := []*runResult{pending}, error(nil)
		if pending == nil {
			g.limitOutput(len(batches))
			rrs, err = r.exec(ctx, batches...)
		}
		pending = nil
		if err != nil {
			return g.failed(err)
		}
		if len(rrs) < len(batches) {
			// The build's result (or vetFirst's): it settles them all.
			batches = [][]string{g.remaining}
		}
		g.take(rrs, batches)
	}
	return g.result(start)
}

// batches are the tests the next runs are to run, one batch per test
// process, all at once: the one test to run alone after a split, else
// the tests left spread over run.processes processes (shards), by their
// times at the last check if known, else by their time limits. A batch
// runs in one binary: a run with serial tests (run.serial) spreads the
// others over run.processes and gives the serial tests one more process
// of their own (without the race detector they take a tenth of the time:
// that process is mostly done before the others), and with one process
// runs the serial tests first, the others next.
func (g *grading) batches() [][]string {
	if g.split {
		return [][]string{g.remaining[:1]}
	}
	weights := g.r.weights
	if weights == nil {
		weights = g.r.timeouts
	}
	serial, raced := g.remaining, []string(nil)
	if g.r.serial != nil {
		serial, raced = nil, nil
		for _, name := range g.remaining {
			if g.r.serial[name] {
				serial = append(serial, name)
			} else {
				raced = append(raced, name)
			}
		}
	}
	if len(serial) == 0 || len(raced) == 0 {
		return g.spread(append(serial, raced...), g.r.processes, weights)
	}
	if g.r.processes <= 1 {
		return g.spread(serial, 1, weights)
	}
	return append(g.spread(serial, 1, weights), g.spread(raced, g.r.processes, weights)...)
}

// spread is batches of tests over n processes: the cheap ones alone
// first when the run stops at its first failure in one process
// (cheapFirst), else shards.
func (g *grading) spread(tests []string, n int, weights map[string]time.Duration) [][]string {
	if g.r.failFast && n <= 1 {
		return [][]string{cheapFirst(tests, weights)}
	}
	return shards(tests, n, weights)
}

// take settles what the runs rrs of batches settle. Each run is judged on
// its own batch, as if it were the only one: what it says of its own
// tests (a crash, a race, an early exit, a dishonest report) says nothing
// of the other runs'. But a run that changed the grader's files fails
// every test: the other runs read those files too.
func (g *grading) take(rrs []*runResult, batches [][]string) {
	var wall time.Duration
	tests := 0
	for i, rr := range rrs {
		g.printed += rr.s.outputBytes
		g.phase("build", rr.buildTime, 0, 0)
		wall = max(wall, rr.wallTime)
		tests += len(batches[i])
	}
	processes := 0
	if len(rrs) > 1 {
		processes = len(rrs)
	}
	g.phase("run", wall, tests, processes)
	for _, rr := range rrs {
		if len(rr.changed) > 0 {
			g.settlesAll(rr)
			g.remaining = nil
			return
		}
	}
	// The tests no run of these was asked to run (after a split, all but
	// the one run alone) are left as they were.
	var left []string
	for _, name := range g.remaining {
		if !slices.ContainsFunc(batches, func(b []string) bool { return slices.Contains(b, name) }) {
			left = append(left, name)
		}
	}
	for i, rr := range rrs {
		g.remaining = batches[i]
		g.takeRun(rr, batches[i])
		left = append(left, g.remaining...)
	}
	g.remaining = g.stopEarly(g.inOrder(left), rrs)
}

// takeRun settles what run rr settles of batch, which is g.remaining, and
// leaves in g.remaining what is still to run of it.
func (g *grading) takeRun(rr *runResult, batch []string) {
	switch {
	case g.settlesAll(rr):
		g.remaining = nil
	case rr.trusted():
		g.c.settle(rr, batch, g.r.replace, g.record)
		g.remaining = nil
	default:
		progress := g.judgeUntrusted(rr, batch)
		g.remaining = g.next(rr, batch, progress)
	}
}

// inOrder is names in the lesson's order.
func (g *grading) inOrder(names []string) []string {
	var out []string
	for _, name := range g.order {
		if slices.Contains(names, name) {
			out = append(out, name)
		}
	}
	return out
}

// outputSpent fails the tests left, and reports so, once the lesson's runs
// have printed all the output limit allows them together.
func (g *grading) outputSpent() bool {
	if g.c.opts.MaxOutput <= 0 || g.printed < g.c.opts.MaxOutput {
		return false
	}
	for _, name := range g.remaining {
		g.record(name, StatusFail, fmt.Sprintf("%sthe lesson's runs printed %d MiB, all a lesson's runs may print together", notRunPrefix, g.c.opts.MaxOutput>>20), 0)
	}
	return true
}

// limitOutput gives each of the next n runs its share of what is left of
// the lesson's output limit (at least a byte: a limit of 0 is none).
func (g *grading) limitOutput(n int) {
	if g.c.opts.MaxOutput > 0 {
		g.r.maxOutput = max((g.c.opts.MaxOutput-g.printed)/n, 1)
	}
}

// overOutputMessage is the reason of the test running when run rr was
// stopped for its output.
func (g *grading) overOutputMessage(rr *runResult) string {
	earlier := g.printed - rr.s.outputBytes
	if earlier <= 0 {
		return fmt.Sprintf("printed more than %d MiB; stopped", g.c.opts.MaxOutput>>20)
	}
	return fmt.Sprintf("printed more than the %d MiB a lesson's runs may print together (its earlier runs had printed %d KiB of it); stopped",
		g.c.opts.MaxOutput>>20, earlier>>10)
}

// phase adds a step of the grading and its time to the result (none if it
// took no time: a build that was not needed).
func (g *grading) phase(name string, d time.Duration, tests, processes int) {
	if d > 0 {
		g.res.Phases = append(g.res.Phases, Phase{Name: name, Seconds: d.Seconds(), Tests: tests, Processes: processes})
	}
}

// failed is the result of a grading kata could not make.
func (g *grading) failed(err error) *LessonResult {
	g.res.Status, g.res.Error = StatusError, err.Error()
	return g.res
}

// settlesAll settles every test left, and reports so, if run rr decides
// them all: it changed the grader's files, did not compile, or its
// harness's report is not honest (each test fails: the code interfered
// with the harness).
func (g *grading) settlesAll(rr *runResult) bool {
	switch {
	case len(rr.changed) > 0:
		msg := "changed the grader's files while its tests ran (" + listSome(rr.changed, 3) +
			"): code under test may not write outside its own directory"
		for _, name := range g.order {
			g.record(name, StatusFail, msg, 0)
		}
	case rr.s.buildFailed:
		g.res.NotCompiled = true
		g.res.CompileErrors = g.c.compileErrorsIn(rr.mod, rr.s.buildOutput, g.r.replace)
		msg := "does not compile"
		if len(g.res.CompileErrors) > 0 {
			msg += ": " + g.res.CompileErrors[0]
		}
		for _, name := range g.remaining {
			g.record(name, StatusFail, msg, 0)
		}
	case rr.harness != nil && !rr.harness.Honest:
		g.c.settle(rr, g.remaining, g.r.replace, g.record)
	default:
		return false
	}
	return true
}

// judgeUntrusted settles what run rr, which is not trusted, can settle of
// batch: the test binary did not run to its end (it was killed, it
// crashed, or the code under test made it exit), or it ended otherwise
// than its report says, or it raced. It reports whether it settled any.
func (g *grading) judgeUntrusted(rr *runResult, batch []string) (progress bool) {
	c, replace := g.c, g.r.replace
	racedRun, timedOut := rr.raced(), rr.timedOut()
	failed := func(o *outcome, fallback string) string {
		return testMessage(c.summarizePanicIn(rr.mod, c.condenseRaces(rr.mod, o.output, replace), replace), fallback)
	}
	for _, name := range batch {
		o := rr.s.tests[name]
		limit := g.r.timeouts[name]
		switch {
		case name == rr.killed && rr.overBudget:
			g.record(name, StatusFail, "stopped: "+budgetMessage(g.budget), 0)
			g.stopped++
		case name == rr.killed:
			g.record(name, StatusFail, c.hangMessage(rr, o, limit, replace, true), limit.Seconds())
			g.stopped++
		case rr.overMemory && name == rr.blame:
			g.record(name, StatusFail, fmt.Sprintf("used more than %d MiB of memory; stopped", c.opts.MaxMemory>>20), 0)
			g.stopped++
		case rr.overOutput && name == rr.blame:
			g.record(name, StatusFail, g.overOutputMessage(rr), 0)
			g.stopped++
		case racedRun && len(batch) == 1:
			// A process of its own, and a race in it: the test's.
			msg := c.raceMessage(rr, outputOf(o), replace)
			var elapsed float64
			if o != nil {
				elapsed = o.elapsed
				if o.finished && o.action == "fail" {
					msg = failed(o, msg)
				}
			}
			g.record(name, StatusFail, msg, elapsed)
		case o == nil || !o.started:
			continue // not reached: run it again
		case o.finished && o.action == "pass":
			continue // not proven by a run that is not trusted: run it again
		case o.finished:
			g.record(name, StatusFail, failed(o, "failed"), o.elapsed)
		case timedOut:
			// The binary's own -test.timeout ended it in this test
			// (kata's deadlines come first, unless kata was starved): a
			// hang, like one kata stopped.
			g.record(name, StatusFail, c.hangMessage(rr, o, limit, replace, false), limit.Seconds())
			g.stopped++
		default:
			// Started and never finished: the test binary died under it.
			g.record(name, StatusFail, "crashed: "+c.crashMessage(rr.mod, c.condenseRaces(rr.mod, o.output, replace), rr.s.pkgOutput, replace), 0)
		}
		progress = true
	}
	return progress
}

// next is what is left to run after run rr, which was not trusted, of
// batch: the tests not settled, less, if the run settled nothing
// (progress), what it says of them. (stopEarly then takes out those not
// to start at all.)
func (g *grading) next(rr *runResult, batch []string, progress bool) []string {
	c := g.c
	racedRun := rr.raced()
	var next []string
	for _, name := range g.remaining {
		if _, done := g.results[name]; !done {
			next = append(next, name)
		}
	}
	if racedRun && len(batch) > 1 {
		// Its passes again: together the first time, then, if a run of
		// them races again, each alone.
		g.split, g.raced = g.raced, true
	}
	if !progress {
		switch {
		case rr.overBudget:
			// Stopped between tests: the loop's top says why.
		case racedRun && len(batch) > 1:
			g.split = true // a race in no test: each alone says whose
		case g.split:
			g.record(batch[0], StatusFail, c.earlyExit(rr, g.r.replace), 0)
			next = next[1:]
		default:
			why := c.earlyExit(rr, g.r.replace)
			for _, name := range next {
				g.record(name, StatusFail, why, 0)
			}
			next = nil
		}
	}
	return next
}

// stopEarly is what is left to run of remaining after runs rrs, less the
// tests not to start: all of them after a failure, with failFast; after
// Options.MaxTimeouts tests were stopped, all but those a run's harness
// said passed, which run again to be confirmed.
func (g *grading) stopEarly(remaining []string, rrs []*runResult) []string {
	if g.r.failFast && slices.ContainsFunc(slices.Collect(maps.Values(g.results)), func(t TestResult) bool { return t.Status != StatusPass }) {
		// One failure settles the question asked (is this code wrong?).
		for _, name := range remaining {
			g.record(name, StatusFail, notRunPrefix+"an earlier test failed", 0)
		}
		return nil
	}
	if g.c.opts.MaxTimeouts > 0 && g.stopped >= g.c.opts.MaxTimeouts {
		// Run again only what passed, as its harness said (a "--- PASS"
		// line the code printed buys no run), to confirm it; what never
		// started does not start.
		var confirm []string
		for _, name := range remaining {
			if slices.ContainsFunc(rrs, func(rr *runResult) bool { return rr.ended[name] == "pass" }) {
				confirm = append(confirm, name)
				continue
			}
			g.record(name, StatusFail, "not run: an earlier test of this lesson was stopped for running out of time, memory or output, and this one would likely be too", 0)
		}
		return confirm
	}
	return remaining
}

// result is the lesson's result, every test settled, in the lesson's order.
func (g *grading) result(start time.Time) *LessonResult {
	g.holdTogether()
	res := g.res
	for _, name := range g.order {
		tr, ok := g.results[name]
		if !ok {
			// Never so: every test is settled before the loop ends. Were
			// one not, it fails, saying so, rather than leave a blank row.
			g.record(name, StatusFail, "kata lost this test's result (a bug of kata's, not of your code: please report it)", 0)
			tr = g.results[name]
		}
		res.Tests = append(res.Tests, tr)
		res.Score += tr.Score
	}
	res.Status = StatusFail
	if res.Score == res.MaxScore {
		res.Status = StatusPass
	}
	res.WallTime = time.Since(start).Seconds()
	return res
}

// holdTogether fails every test that passed on its own but shares a
// guarantee (lessons.Test.Guarantee) with a test that did not pass: the
// tests of one guarantee score together. It names the first that failed
// on its own (a test a fail-fast run did not get to says nothing), else
// the first that did not pass.
func (g *grading) holdTogether() {
	members := map[string][]string{} // a guarantee → its tests, in order
	culprit := map[string]string{}   // a guarantee → the test its passes fail with
	for _, name := range g.order {
		gu := g.tests[name].Guarantee
		tr, ok := g.results[name]
		if gu == "" || !ok {
			continue
		}
		members[gu] = append(members[gu], name)
		if tr.Status != StatusPass && (culprit[gu] == "" || failedOnItsOwn(tr) && !failedOnItsOwn(g.results[culprit[gu]])) {
			culprit[gu] = name
		}
	}
	for gu, names := range members {
		first := culprit[gu]
		if first == "" {
			continue
		}
		for _, name := range names {
			if tr := g.results[name]; tr.Status == StatusPass {
				others := slices.DeleteFunc(slices.Clone(names), func(m string) bool { return m == name })
				g.record(name, StatusFail, fmt.Sprintf("%s%s: this test passed, but it judges one guarantee (%s) with %s, and they score only together. "+
					"Fix what %s says; this test scores again with it", FailsWithPrefix, first, gu, strings.Join(others, ", "), first), tr.Elapsed)
			}
		}
	}
}
