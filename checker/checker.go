// Package checker grades a learner's lesson files: it runs the lesson's
// hidden tests against the reference scheduler with only that lesson's
// files taken from the learner (go test -c -overlay, then the test
// binary, in the sandbox where there is one), with time, output and
// memory limits, and turns what the tests said into a score and messages
// a learner can act on.
package checker

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// Status values of a lesson or a test.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error" // kata could not run the check at all
)

// Options configure a Checker.
type Options struct {
	Registry *lessons.Registry // nil: lessons.Default
	CacheDir string            // "": DefaultCacheDir()
	NoRace   bool              // grade without the race detector (faster, misses data races)
	// SerialWithoutRace runs a lesson's serial tests (lessons.Test.Serial:
	// the code under test one thread at a time, where the race detector
	// can find no race) in a second build without the race detector, ten
	// times faster, and the others under it. kata check sets it; kata
	// grade does not: there every test runs under the race detector, the
	// last line against code that tears memory with a race it starts
	// where the lesson's tests are not serial.
	SerialWithoutRace bool
	MaxOutput         int // bytes the tests may print; 0: 8 MiB

	// MaxMemory bounds the resident memory of a run's processes together
	// (the go command, compiler, linker and test binary), in bytes; past
	// it the run is killed and the test running fails. 0: no limit. A
	// watchdog reads /proc (Linux) or asks ps (other Unixes); on Windows
	// the limit is ignored (MemoryLimitEnforced).
	MaxMemory int64
	// MaxTimeouts: once this many of a lesson's tests have been stopped
	// for running out of time (or memory, or output), its tests that have
	// not started fail without running: each would likely do the same,
	// and cost its full limit. 0: no limit.
	MaxTimeouts int
	// Isolate builds each lesson in a private copy of the grading module,
	// with a private temporary directory and only the environment the go
	// command needs, and fails a lesson whose run changed that copy or
	// the learner's files. Use it for code you did not write: one
	// submission cannot then change the files another is graded with.
	// With or without it, the test binary runs in the sandbox where the
	// system has one (package sandbox: kata check's learner then sees
	// what kata grade will do); with it, New says once, on standard
	// error, when there is none.
	Isolate bool
}

// MemoryLimitEnforced reports whether Options.MaxMemory holds on this
// system.
const MemoryLimitEnforced = memoryLimitEnforced

// A Checker grades lessons. It is safe for concurrent use.
type Checker struct {
	opts Options
	reg  *lessons.Registry
	mod  *module
	vet  vetting
	key  []byte // the secret of the harness's names (harnessID)
}

// New prepares the grading module (once per version of the course) and
// returns a Checker.
func New(opts Options) (*Checker, error) {
	if opts.Registry == nil {
		opts.Registry = lessons.Default
	}
	if opts.CacheDir == "" {
		opts.CacheDir = DefaultCacheDir()
	}
	if opts.MaxOutput == 0 {
		opts.MaxOutput = 8 << 20
	}
	mod, err := prepareModule(opts.CacheDir, opts.Registry)
	if err != nil {
		return nil, err
	}
	if opts.Isolate {
		noticeSandbox()
	}
	return &Checker{opts: opts, reg: opts.Registry, mod: mod, key: harnessKey(opts.CacheDir)}, nil
}

// A TestResult is the grade of one hidden test.
type TestResult struct {
	Name     string  `json:"name"`
	Status   string  `json:"status"`
	Score    int     `json:"score"`
	MaxScore int     `json:"max_score"`
	Kind     string  `json:"kind"`
	About    string  `json:"about"`
	Message  string  `json:"message,omitempty"`
	Elapsed  float64 `json:"elapsed_seconds"`
}

// A LessonResult is the grade of one lesson (or of the capstone).
type LessonResult struct {
	ID            string       `json:"id"`
	Title         string       `json:"title"`
	Status        string       `json:"status"`
	Score         int          `json:"score"`
	MaxScore      int          `json:"max_score"`
	Tests         []TestResult `json:"tests"`
	CompileErrors []string     `json:"compile_errors,omitempty"`
	NotCompiled   bool         `json:"not_compiled,omitempty"` // the build failed: no test ran
	VetProblems   []string     `json:"vet_problems,omitempty"` // the rules of lesson files they break (package vet): not compiled
	Error         string       `json:"error,omitempty"`
	WallTime      float64      `json:"wall_seconds"`
	// Blame, set by kata check after a failure (Checker.Blame), says
	// which of the learner's functions the failing tests point at.
	Blame *Blame `json:"blame,omitempty"`
	// Phases is where WallTime went, in order (kata check -v prints it).
	Phases []Phase `json:"phases,omitempty"`
}

// A Phase is one step of a grading and how long it took: "vet" (kata's
// rules for lesson files), "build" (go test -c, with -race: the go
// command's cache makes it a link when nothing changed), "run" (one run of
// the test binary: there are more after a crash, a hang or a race) and
// "blame" (kata check's search for the function at fault).
type Phase struct {
	Name    string  `json:"name"`
	Seconds float64 `json:"seconds"`
	Tests   int     `json:"tests,omitempty"` // for a run: how many tests it was asked to run
	// Processes, for a run: how many test processes ran its tests at once
	// (CheckOptions.Processes), its time that of the slowest; 0: one.
	Processes int `json:"processes,omitempty"`
}

// CapstoneID names the run of every lesson's tests on all of the learner's
// files together.
const CapstoneID = "capstone"

// Lesson grades lesson l with files (base name in solutions/ → path of the
// learner's file) in place of the reference's; files must cover l.Files.
func (c *Checker) Lesson(ctx context.Context, l *lessons.Lesson, files map[string]string) *LessonResult {
	return c.LessonWith(ctx, l, files, CheckOptions{})
}

// Capstone grades every lesson's tests at once, with all the given files
// (typically every lesson's) in place of the reference's.
func (c *Checker) Capstone(ctx context.Context, files map[string]string) *LessonResult {
	return c.grade(ctx, CapstoneID, "all lessons together", files, c.reg.All())
}

func (c *Checker) grade(ctx context.Context, id, title string, replace map[string]string, ls []*lessons.Lesson) *LessonResult {
	r, err := c.newRun(replace, ls)
	if err != nil {
		return &LessonResult{ID: id, Title: title, Status: StatusError, Error: err.Error()}
	}
	defer r.cleanup()
	return c.gradeRun(ctx, id, title, r, ls)
}

// newRun prepares the runs of ls's hidden tests with replace in place of
// the reference's files. The first run builds the test binary and keeps
// it; the runs after it (after a crash or a hang, or with another
// environment) run it again rather than link it again. cleanup removes it.
//
// The learner's files are read once, here, into a snapshot the runs
// compile: a file saved while its check runs is graded by the next check,
// never half by this one.
func (c *Checker) newRun(replace map[string]string, ls []*lessons.Lesson) (*run, error) {
	r := c.runOf(replace, ls)
	if err := r.makeWork(); err != nil {
		r.cleanup()
		return nil, err
	}
	return r, nil
}

// runOf is newRun before its snapshot: a caller that sets the run's
// fields the snapshot depends on (trusted) calls makeWork itself.
func (c *Checker) runOf(replace map[string]string, ls []*lessons.Lesson) *run {
	r := &run{mod: c.mod, replace: replace, timeouts: map[string]time.Duration{}, race: !c.opts.NoRace,
		maxOutput: c.opts.MaxOutput, maxMemory: c.opts.MaxMemory, isolate: c.opts.Isolate, key: c.key}
	for _, l := range ls {
		r.hidden = append(r.hidden, l.ID)
		for _, t := range l.Tests {
			timeout := t.Timeout
			if r.race && t.Serial && c.opts.SerialWithoutRace {
				if r.serial == nil {
					r.serial = map[string]bool{}
				}
				r.serial[t.Name] = true
			} else if r.race {
				timeout *= 3 // the race detector slows code 2-10×
			}
			r.timeouts[t.Name] = timeout
			if t.Private {
				r.last = append(r.last, t.Name)
			}
		}
	}
	return r
}

// budgetSlack is what a lesson's budget allows beyond its build and its
// tests' limits: the starts and ends of its runs.
var budgetSlack = time.Minute

// lessonBudget is the wall-clock time a lesson's grading may take, from
// its start to its last run's end, however many runs that takes:
// buildAllowance, the sum of its tests' time limits (r.timeouts: each
// three times over under the race detector), and budgetSlack. A run is
// stopped when it runs out (runTests), and no run starts after it. Honest
// code never gets near it: each test takes at most its limit once, and
// after one hang (Options.MaxTimeouts) the tests not started do not start.
// It bounds what no per-test limit does: a lesson whose runs keep ending
// in crashes, each costing up to its tests' limits.
func (c *Checker) lessonBudget(r *run) time.Duration {
	budget := buildAllowance + budgetSlack
	for _, d := range r.timeouts {
		budget += d
	}
	return budget
}

// Budget is lesson l's budget (lessonBudget): the most wall-clock time
// its grading may take, however many runs that takes.
func (c *Checker) Budget(l *lessons.Lesson) time.Duration {
	return c.lessonBudget(c.runOf(nil, []*lessons.Lesson{l}))
}

// budgetMessage says a lesson's budget ran out.
func budgetMessage(budget time.Duration) string {
	return fmt.Sprintf("the lesson's time budget (%s: its tests' time limits together, the build's and a minute) ran out", budget)
}

// hangMessage is the message of test o, stopped at its limit: where the
// learner's code was, from the harness's goroutine dump, and, if withTail,
// the last lines the test printed. (Not when the test binary's own
// -test.timeout stopped it: its last lines are the testing package's
// dump of every goroutine.)
func (c *Checker) hangMessage(rr *runResult, o *outcome, limit time.Duration, replace map[string]string, withTail bool) string {
	where, out := c.hangLocation(rr.mod, outputOf(o), replace)
	if where != "" {
		where = " " + where + ":"
	}
	last := ""
	if withTail {
		last = tail(out, 5)
	}
	return strings.TrimSpace(fmt.Sprintf("did not finish within %s:%s stuck in a loop, or deadlocked? %s", limit, where, last))
}

// raceMessage is the message of a test whose own process reported a
// data race: the race, condensed (condenseRaces).
func (c *Checker) raceMessage(rr *runResult, testOut []string, replace map[string]string) string {
	var races []string
	for _, l := range c.condenseRaces(rr.mod, append(slices.Clone(testOut), rr.s.pkgOutput...), replace) {
		if strings.HasPrefix(l, "data race: ") && !slices.Contains(races, l) {
			races = append(races, l)
		}
	}
	if len(races) == 0 {
		return "data race: the race detector reported a race in this test's process, in code kata cannot place"
	}
	return strings.Join(races, "\n")
}

// notRunPrefix starts the message of a test a run did not get to.
const notRunPrefix = "not run: "

// FailsWithPrefix starts the message of a test that passed on its own but
// fails with another test of its guarantee (lessons.Test.Guarantee).
const FailsWithPrefix = "fails with "

// failedOnItsOwn reports whether t ran and failed: not a test a run did not
// get to, nor one that failed only with another test of its guarantee.
func failedOnItsOwn(t TestResult) bool {
	return t.Status != StatusPass && t.Message != didNotRun &&
		!strings.HasPrefix(t.Message, notRunPrefix) && !strings.HasPrefix(t.Message, FailsWithPrefix)
}

// didNotRun is the message of a test a run that reached its end did not
// run (a failure before it stopped a fail-fast run).
const didNotRun = "did not run"

// verdictRewritten is the message of a test the harness's report says
// passed but whose end, as the harness sent it the moment the test
// ended, did not: the report was written later, from the harness's
// memory, which the code under test can reach by a memory-unsafe trick.
const verdictRewritten = "the harness's report says this test passed, but when it ended the harness said it did not: the code under test changed the harness's memory after the test; no pass of this run can be trusted"

// settle records the tests of a run that reached its end, from the
// harness's report. A pass counts only if the harness also said so the
// moment the test ended (rr.ended): a later corruption of the harness's
// memory cannot turn an earlier failure into a pass.
func (c *Checker) settle(rr *runResult, names []string, replace map[string]string, record func(name, status, msg string, elapsed float64)) {
	h := rr.harness
	if !h.Honest {
		for _, name := range names {
			record(name, StatusFail, "the code under test interfered with the test harness (it called TestMain, or forged the harness's report): no result of this run can be trusted", 0)
		}
		return
	}
	message := func(o *outcome, fallback string) string {
		if o == nil {
			return fallback
		}
		return testMessage(c.summarizePanicIn(rr.mod, c.condenseRaces(rr.mod, o.output, replace), replace), fallback)
	}
	for _, name := range names {
		o := rr.s.tests[name]
		var elapsed float64
		if o != nil {
			elapsed = o.elapsed
		}
		switch h.Verdicts[name] {
		case "pass":
			if ended, ok := rr.ended[name]; !ok || ended != "pass" {
				record(name, StatusFail, verdictRewritten, elapsed)
				continue
			}
			record(name, StatusPass, "", elapsed)
		case "fail":
			record(name, StatusFail, message(o, "failed"), elapsed)
		case "skip":
			record(name, StatusFail, message(o, "skipped"), elapsed)
		default:
			record(name, StatusFail, didNotRun, 0)
		}
	}
}

// earlyExit says why a run that did not reach its end settled no test.
func (c *Checker) earlyExit(rr *runResult, replace map[string]string) string {
	crash := c.crashMessage(rr.mod, nil, rr.s.pkgOutput, replace)
	claimed := false
	for _, o := range rr.s.tests {
		if o.finished && o.action == "pass" {
			claimed = true
		}
	}
	switch {
	case rr.overOutput:
		return fmt.Sprintf("printed more than %d MiB before any test ran; stopped", c.opts.MaxOutput>>20)
	case rr.overMemory:
		return fmt.Sprintf("used more than %d MiB of memory before any test ran; stopped", c.opts.MaxMemory>>20)
	case rr.killed == "(build)":
		return fmt.Sprintf("building the tests took more than %s; stopped", buildAllowance)
	case rr.killed == "(start)":
		return "the test binary ran past its time limit before any test started: does your code loop, or block, in an init function?"
	case claimed:
		why := "the test binary exited before its tests ended (os.Exit? a crash?), so the passes it printed prove nothing"
		if crash != "" {
			why += ": " + crash
		}
		return why
	case crash != "":
		return "the test binary stopped before running this test: " + crash
	default:
		return "the test binary exited before running any test: does your code call os.Exit, or panic, in an init function?"
	}
}

// outputOf returns what a test printed, if it started.
func outputOf(o *outcome) []string {
	if o == nil {
		return nil
	}
	return o.output
}

// listSome joins up to n of items, saying how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// locationPrefix is the file:line a test's t.Error output starts with: the
// hidden test's own location, which means nothing to the learner.
var locationPrefix = regexp.MustCompile(`^\s*[\w.]+_test\.go:\d+: `)

// testMessage is what a failed test said, for the learner.
func testMessage(lines []string, fallback string) string {
	var out []string
	for _, l := range lines {
		l = locationPrefix.ReplaceAllString(l, "")
		if strings.TrimSpace(l) != "" {
			out = append(out, strings.TrimRight(l, " "))
		}
	}
	if len(out) == 0 {
		return fallback
	}
	const maxLines = 30
	if len(out) > maxLines {
		out = append(out[:maxLines], fmt.Sprintf("... (%d more lines)", len(out)-maxLines))
	}
	return strings.Join(out, "\n")
}

// crashMessage finds the panic (or fatal error) in a dead test binary's
// output.
func (c *Checker) crashMessage(mod *module, testOut, pkgOut []string, replace map[string]string) string {
	all := append(slices.Clone(testOut), pkgOut...)
	for i, l := range all {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "panic:") || strings.HasPrefix(t, "fatal error:") || strings.HasPrefix(t, "race: limit on") {
			return strings.Join(c.summarizePanicIn(mod, all[i:], replace), "\n")
		}
	}
	if testOut != nil {
		if t := tail(all, 8); t != "" {
			return "the test binary exited in the middle of this test (os.Exit?): " + t
		}
		return "the test binary exited in the middle of this test (does your code call os.Exit?)"
	}
	return tail(all, 8)
}

func tail(lines []string, n int) string {
	var keep []string
	for _, l := range lines {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "FAIL") && !strings.HasPrefix(t, "exit status") &&
			!strings.HasPrefix(t, "ok ") && t != "PASS" {
			keep = append(keep, l)
		}
	}
	if len(keep) > n {
		keep = keep[len(keep)-n:]
	}
	return strings.Join(keep, "\n")
}

// compileErrors rewrites the compiler's messages so they name the learner's
// files as the learner knows them, first error first.
func (c *Checker) compileErrors(lines []string, replace map[string]string) []string {
	return c.compileErrorsIn(c.mod, lines, replace)
}

// compileErrorsIn is compileErrors for a build of mod (the shared module or
// a run's private copy).
func (c *Checker) compileErrorsIn(mod *module, lines []string, replace map[string]string) []string {
	learner := map[string]string{} // absolute path → how to show it
	for _, p := range replace {
		abs, _ := filepath.Abs(p)
		learner[abs] = p
	}
	var out []string
	private := false // the lines go on about a private test's file
	for _, l := range lines {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		indent, abs, rest, ok := messageFile(l, mod.dir)
		if !ok {
			if private && strings.TrimLeft(l, " \t") != l {
				continue // its details (have, want): the pack's, as much as its lines
			}
			private = false
			out = append(out, l)
			continue
		}
		private = false
		if shown, ok := learner[abs]; ok {
			l = indent + shown + rest
		} else if strings.HasPrefix(abs, mod.pkgDir+string(filepath.Separator)) {
			base := filepath.Base(abs)
			switch {
			case isPackFile(base):
				// A student could break a private test's build on
				// purpose (a signature changed) to read its code in the
				// message: only the fact is told.
				private = true
				if !slices.Contains(out, privateNoCompile) {
					out = append(out, privateNoCompile)
				}
				continue
			case strings.HasPrefix(base, "zz_"):
				l = indent + base + " (hidden test)" + rest
			default:
				l = indent + base + " (reference)" + rest
			}
		}
		out = append(out, l)
	}
	return append(contractHints(out), out...)
}

// privateNoCompile is what a compiler message about a private test's
// file says.
const privateNoCompile = "a private test of the instructor's does not compile with your files (its code stays private): check that your functions keep the signatures the task gives"

// isPackFile reports whether base, a file of the graded package, is one
// of an instructor's private test pack (kata grade --tests): the pack's
// files are hidden files named pack_*, written as zz_<lesson>_pack_*.
func isPackFile(base string) bool {
	rest, ok := strings.CutPrefix(base, "zz_")
	return ok && strings.Contains(rest, "_pack_")
}

// messageFile splits a compiler message ("runq.go:12:3: undefined: x", or
// "\trunq.go:9:6: other declaration of x") into its indentation, the
// absolute path of the file it is about (relative paths are from dir),
// and the rest (":12:3: undefined: x"); ok is false if it names no Go
// file.
func messageFile(l, dir string) (indent, abs, rest string, ok bool) {
	t := strings.TrimLeft(l, " \t")
	i := strings.Index(t, ".go:")
	if i < 0 {
		return "", "", "", false
	}
	abs = t[:i+len(".go")]
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(dir, abs)
	}
	return l[:len(l)-len(t)], filepath.Clean(abs), t[i+len(".go"):], true
}
