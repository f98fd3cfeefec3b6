package main

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	gmpkata "github.com/gmp-kata/gmp-kata"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

var checkCommand = &cli.Command{
	Name:      "check",
	Usage:     "grade lessons: your files, run inside the reference scheduler with the hidden tests",
	ArgsUsage: "[LESSON...]  (default: your next lesson)",
	Flags: []cli.Flag{
		&cli.BoolFlag{Name: "all", Usage: "every lesson, then the capstone: all your files together"},
		&cli.StringFlag{Name: "format", Value: "text", Usage: "text, json, or classroom (GitHub Classroom's autograding result on stdout, the text on stderr)"},
		&cli.BoolFlag{Name: "no-race", Usage: "grade without the race detector (faster; misses data races)"},
		&cli.IntFlag{Name: "count", Value: 1, Usage: "grade `N` times over: a test passes only if it passed every time (races hide in some runs)"},
		&cli.StringFlag{Name: "run", Usage: "grade only the tests whose names match `REGEXP` (not recorded as progress)"},
		&cli.BoolFlag{Name: "no-blame", Usage: "after a failure, do not look for the function at fault (by running the failing tests again with each of your functions in turn replaced by the reference's)"},
		&cli.Uint64Flag{Name: "seed", Usage: "replay the controlled interleaving `N` a failure named (tests that explore interleavings run only it)"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "say where the time went: kata's start, the vetting, the build, each run of the tests, the search for the function at fault"},
	},
	Action: runCheck,
}

// checkReport is check's JSON output.
type checkReport struct {
	Lessons []*checker.LessonResult `json:"lessons"`
}

func runCheck(c *cli.Context) error {
	r, err := newCheckRun(c)
	if err != nil {
		return err
	}
	todo, err := lessonsToCheck(c, r.ws)
	if err != nil {
		return err
	}
	began := time.Now()
	if r.ck, err = checker.New(learnerOptions(c)); err != nil {
		return couldNot(err)
	}
	if r.verbose {
		fmt.Fprintf(r.human, "kata: started in %.2fs (the reference's sources read and hashed)\n", time.Since(began).Seconds())
	}
	r.warnStrangers(todo)
	var report checkReport
	passed := 0
	for _, l := range todo {
		res := r.lesson(l, len(todo) == 1)
		if res.Status == checker.StatusPass {
			passed++
		}
		report.Lessons = append(report.Lessons, res)
	}
	if r.all {
		if res := r.capstone(todo, passed); res != nil {
			report.Lessons = append(report.Lessons, res)
		}
	}
	if err := r.ws.Save(); err != nil {
		return couldNot(err)
	}
	if err := r.writeResults(report); err != nil {
		return couldNot(err)
	}
	return checkExit(report.Lessons)
}

// checkRun is one kata check: what its flags asked for, and where it
// writes.
type checkRun struct {
	c    *cli.Context
	ws   *workspace.Workspace
	ck   *checker.Checker
	opts checker.CheckOptions
	// human is where the person's report goes: stdout, or stderr when
	// stdout carries Classroom's result.
	human     io.Writer
	asJSON    bool // --format json: the report as JSON on stdout, no text
	classroom bool // --format classroom
	all       bool // --all: every lesson, then the capstone
	verbose   bool // -v: where the time went
	focused   bool // --run or --seed: some tests only, not recorded as progress
}

// newCheckRun reads check's flags and finds the workspace; a flag that
// makes no sense is a usage error that says why.
func newCheckRun(c *cli.Context) (*checkRun, error) {
	r := &checkRun{c: c, human: c.App.Writer, all: c.Bool("all")}
	switch f := c.String("format"); f {
	case "text":
	case "json":
		r.asJSON = true
	case "classroom":
		r.classroom = true
		r.human = c.App.ErrWriter
	default:
		return nil, usageError(fmt.Sprintf("check: --format %q: want text, json or classroom", f))
	}
	r.verbose = c.Bool("verbose") && !r.asJSON
	r.opts = checker.CheckOptions{Count: c.Int("count"), Seed: c.Uint64("seed"), Processes: checkProcesses()}
	if r.opts.Count < 1 {
		return nil, usageError(fmt.Sprintf("check: --count %d: want 1 or more", r.opts.Count))
	}
	if pattern := c.String("run"); pattern != "" {
		var err error
		if r.opts.Run, err = regexp.Compile(pattern); err != nil {
			return nil, usageError(fmt.Sprintf("check: --run %q is not a regular expression: %v", pattern, err))
		}
		if r.all {
			return nil, usageError("check: --run focuses on some tests of a lesson; name the lesson instead of --all")
		}
	}
	r.focused = r.opts.Run != nil || r.opts.Seed != 0
	var err error
	if r.ws, err = findWorkspace(c); err != nil {
		return nil, err
	}
	return r, nil
}

// lessonsToCheck is the lessons named, or every lesson with --all, or else
// the learner's next one.
func lessonsToCheck(c *cli.Context, ws *workspace.Workspace) ([]*lessons.Lesson, error) {
	todo, err := lookupLessons(c.Args().Slice())
	if err != nil {
		return nil, err
	}
	if c.Bool("all") {
		if len(todo) > 0 {
			return nil, usageError("check: --all checks every lesson; name no lessons with it")
		}
		return lessons.Default.All(), nil
	}
	if len(todo) == 0 {
		next := nextLesson(ws)
		if next == nil {
			return nil, usageError("check: every lesson passes; name one to check again, or use --all")
		}
		todo = []*lessons.Lesson{next}
	}
	return todo, nil
}

// warnStrangers says which of the workspace's files no lesson grades.
//
// Why a helper is not graded: a lesson's grade is about its own file, run
// inside the reference; a helper file would be compiled into every
// lesson's runs, and name clashes with the reference would fail lessons it
// has nothing to do with.
func (r *checkRun) warnStrangers(todo []*lessons.Lesson) {
	strangers := r.ws.Strangers()
	if len(strangers) == 0 {
		return
	}
	verb, what := "are", "they declare"
	if len(strangers) == 1 {
		verb, what = "is", "it declares"
	}
	fmt.Fprintf(r.c.App.ErrWriter, "kata: %s %s not graded: each lesson grades only its own file (%s); move what %s into that file\n",
		strings.Join(strangers, ", "), verb, lessonFileList(todo), what)
}

// lesson checks one lesson, looks for the function at fault if it failed
// and is the only lesson checked (alone asks for it), records the result
// as progress unless the check was focused, and prints it.
func (r *checkRun) lesson(l *lessons.Lesson, alone bool) *checker.LessonResult {
	if r.all && notStarted(r.ws, l) {
		// One line, not a page of "not implemented" panics: its tests
		// would all fail, and that is no news.
		res := notStartedResult(l)
		if !r.asJSON {
			st := styleFor(r.human)
			fmt.Fprintf(r.human, "%s %s  %s  0/%d  not started: %s is the skeleton's (kata task %s)\n\n", st.dim("TODO"), st.bold(l.ID), l.Title, res.MaxScore, strings.Join(l.Files, ", "), l.ID[:2])
		}
		return res
	}
	o := r.opts
	live := liveProgress(r.human, l, r.asJSON)
	o.Progress = live.show
	res := r.ck.LessonWith(r.c.Context, l, r.ws.LessonFiles(l), o)
	// No blame for the skeleton's own stubs: every function is at fault,
	// and looking for one would cost a learner's first check seconds.
	if res.Status == checker.StatusFail && alone && !r.c.Bool("no-blame") && !notStarted(r.ws, l) {
		live.say("which function is at fault? your failing tests again, with one of your functions at a time replaced by the reference's ...")
		start := time.Now()
		res.Blame, _ = r.ck.Blame(r.c.Context, l, r.ws.LessonFiles(l), res) // no answer: nothing to say
		res.Phases = append(res.Phases, checker.Phase{Name: "blame", Seconds: time.Since(start).Seconds()})
	}
	live.clear()
	if !r.focused {
		record(r.ws, l, res, false)
	}
	if !r.asJSON {
		printLessonResult(r.human, res, r.ws, l)
	}
	if r.verbose {
		printPhases(r.human, res)
	}
	return res
}

// capstone runs every lesson's tests on all the learner's files at once,
// once every lesson passes; until then it says so and returns nil: with a
// lesson failing it cannot pass, and would say nothing new.
func (r *checkRun) capstone(todo []*lessons.Lesson, passed int) *checker.LessonResult {
	if passed < len(todo) {
		if !r.asJSON {
			st := styleFor(r.human)
			fmt.Fprintf(r.human, "%s %s  all lessons together: runs once every lesson passes (%d of %d pass)\n", st.dim("WAIT"), st.bold(checker.CapstoneID), passed, len(todo))
		}
		return nil
	}
	files := map[string]string{}
	for _, l := range todo {
		for f, p := range r.ws.LessonFiles(l) {
			files[f] = p
		}
	}
	res := r.ck.Capstone(r.c.Context, files)
	if !r.asJSON {
		printLessonResult(r.human, res, r.ws, nil)
	}
	return res
}

// writeResults writes what goes on stdout besides the text: Classroom's
// result, or the JSON report.
func (r *checkRun) writeResults(report checkReport) error {
	if r.classroom {
		return writeClassroom(r.c.App.Writer, report.Lessons)
	}
	if r.asJSON {
		enc := json.NewEncoder(r.c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(report)
	}
	return nil
}

// live is the one line, on a terminal, that says where a check is while
// it runs: the build, then each test as it starts. It is cleared before the
// lesson's grade is printed.
type live struct {
	w     io.Writer
	l     *lessons.Lesson
	shown bool
}

// liveProgress returns the live line for checking l on w: a no-op unless
// w is a terminal and the report is for a person.
func liveProgress(w io.Writer, l *lessons.Lesson, asJSON bool) *live {
	if asJSON || !isTerminal(w) {
		return &live{}
	}
	return &live{w: w, l: l}
}

func (lv *live) show(p checker.Progress) {
	if lv.w == nil {
		return
	}
	if p.Building {
		fmt.Fprintf(lv.w, "\r\x1b[K  building %s's tests (the first build takes up to a minute; then a few seconds) ...", lv.l.ID)
	} else {
		fmt.Fprintf(lv.w, "\r\x1b[K  %s: %s (%d of %d) ...", lv.l.ID, p.Test, p.Started, p.Total)
	}
	lv.shown = true
}

// say shows msg on the live line.
func (lv *live) say(msg string) {
	if lv.w == nil {
		return
	}
	fmt.Fprintf(lv.w, "\r\x1b[K  %s: %s", lv.l.ID, msg)
	lv.shown = true
}

func (lv *live) clear() {
	if lv.shown {
		fmt.Fprint(lv.w, "\r\x1b[K")
	}
}

// notStarted reports whether every file of l in ws is still the skeleton's.
func notStarted(ws *workspace.Workspace, l *lessons.Lesson) bool {
	for name, path := range ws.LessonFiles(l) {
		stub, err := fs.ReadFile(gmpkata.Sources, "skeleton/"+name)
		if err != nil {
			return false
		}
		mine, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(mine, stub) {
			return false
		}
	}
	return true
}

// notStartedResult is the grade of a lesson whose files are the skeleton's:
// every test failed, as running them would have it, without running them.
func notStartedResult(l *lessons.Lesson) *checker.LessonResult {
	res := &checker.LessonResult{ID: l.ID, Title: l.Title, Status: checker.StatusFail}
	for _, t := range l.Tests {
		res.MaxScore += t.Points
		res.Tests = append(res.Tests, checker.TestResult{Name: t.Name, Status: checker.StatusFail, MaxScore: t.Points,
			Kind: string(t.Kind), About: t.About, Message: "not started: the skeleton's stubs, unchanged"})
	}
	return res
}

// lessonFileList names the files of ls: "runq.go for 01-ringbuffer".
func lessonFileList(ls []*lessons.Lesson) string {
	var parts []string
	for _, l := range ls {
		parts = append(parts, strings.Join(l.Files, ", ")+" for "+l.ID)
	}
	if len(parts) > 3 {
		parts = append(parts[:3], "...")
	}
	return strings.Join(parts, "; ")
}

// learnerOptions are the checker's options for a learner's own check: once
// one test has hung, the lesson's tests that have not run do not start (each
// would likely hang too, and wait out its whole limit); what passed before
// is confirmed. A looping lesson is then reported after one limit, not
// after the sum of them. The serial tests run without the race detector,
// which can find nothing in them (checker.Options.SerialWithoutRace).
func learnerOptions(c *cli.Context) checker.Options {
	return checker.Options{NoRace: c.Bool("no-race"), MaxTimeouts: 1, SerialWithoutRace: true}
}

// record stores a lesson's result in the workspace's progress: a check
// the learner asked for, or (saved) one kata watch made on a save.
func record(ws *workspace.Workspace, l *lessons.Lesson, res *checker.LessonResult, saved bool) {
	if res.Status == checker.StatusError {
		return
	}
	lp := ws.Progress.Lesson(l.ID)
	if saved {
		lp.RecordSave(res.Status, res.Score, res.MaxScore, time.Now())
		return
	}
	lp.Record(res.Status, res.Score, res.MaxScore, time.Now())
}

// checkExit turns results into kata's exit code: 3 if any could not run, 1
// if any failed, else 0.
func checkExit(results []*checker.LessonResult) error {
	code := exitOK
	for _, r := range results {
		switch r.Status {
		case checker.StatusError:
			return cli.Exit("", exitCouldNot)
		case checker.StatusFail:
			code = exitFailed
		}
	}
	if code != exitOK {
		return cli.Exit("", code)
	}
	return nil
}

// printLessonResult writes one lesson's grade for a person. l is nil for
// the capstone.
func printLessonResult(w io.Writer, res *checker.LessonResult, ws *workspace.Workspace, l *lessons.Lesson) {
	st := styleFor(w)
	verdict := st.green("PASS")
	switch res.Status {
	case checker.StatusFail:
		verdict = st.red("FAIL")
	case checker.StatusError:
		verdict = st.red("ERROR")
	}
	fmt.Fprintf(w, "%s %s  %s  %d/%d  %s\n", verdict, st.bold(res.ID), res.Title, res.Score, res.MaxScore, st.dim(fmt.Sprintf("(%.1fs)", res.WallTime)))
	if res.Error != "" {
		fmt.Fprintf(w, "  kata could not run the check: %s\n", res.Error)
		return
	}
	if len(res.VetProblems) > 0 {
		fmt.Fprintf(w, "  Your code breaks a rule of lesson files, so kata did not compile it. Fix these first:\n")
		printLines(w, res.VetProblems)
		return
	}
	if len(res.CompileErrors) > 0 {
		fmt.Fprintf(w, "  Your code does not compile. Fix the first error first:\n")
		printLines(w, res.CompileErrors)
		return
	}
	printBlame(w, res.Blame)
	said := map[string]string{} // a failure's message → the first test that said it
	for _, t := range res.Tests {
		if t.Status == checker.StatusPass {
			fmt.Fprintf(w, "  %s %-28s %2d/%-2d %s\n", st.green("✓"), t.Name, t.Score, t.MaxScore, st.dim(t.About))
			continue
		}
		fmt.Fprintf(w, "  %s %-28s %2d/%-2d %s\n", st.red("✗"), t.Name, t.Score, t.MaxScore, t.About)
		if first, ok := said[t.Message]; ok && strings.Contains(t.Message, "\n") {
			// The same crash, test after test: said once.
			fmt.Fprintf(w, "      %s\n", st.dim("the same as "+first))
			continue
		}
		said[t.Message] = t.Name
		for _, line := range strings.Split(t.Message, "\n") {
			fmt.Fprintf(w, "      %s\n", line)
		}
	}
	if l != nil && res.Status == checker.StatusFail {
		level := ws.Progress.Lesson(l.ID).HintLevel
		if level < len(l.Hints) {
			fmt.Fprintf(w, "  Stuck? kata hint %s  (hint %d of %d)\n", l.ID[:2], level+1, len(l.Hints))
		}
	}
	fmt.Fprintln(w)
}

// printLines writes the first ten of a list of messages (compile errors,
// vet problems), indented, and how many more there are.
func printLines(w io.Writer, lines []string) {
	for i, e := range lines {
		if i == 10 {
			fmt.Fprintf(w, "    ... and %d more\n", len(lines)-i)
			break
		}
		fmt.Fprintf(w, "    %s\n", e)
	}
}

// writeClassroom writes GitHub Classroom's autograding result of a check:
// each lesson's tests with their points, the capstone as one test worth
// nothing (its tests are the lessons' again).
func writeClassroom(w io.Writer, results []*checker.LessonResult) error {
	var graded, info []report.LessonGrade
	for _, res := range results {
		if res.ID == checker.CapstoneID {
			info = append(info, report.FromResult(res, nil))
			continue
		}
		var tests []lessons.Test
		if l, err := lessons.Default.Lookup(res.ID); err == nil {
			tests = l.Tests
		}
		graded = append(graded, report.FromResult(res, tests))
	}
	enc, err := report.EncodeClassroom(report.Classroom("kata check", graded, info))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, enc)
	return err
}

// printBlame says which of the learner's functions the failing tests point
// at (checker.Blame), before the failures: the first thing a learner reads
// names the function to look at, whichever test's message comes first.
func printBlame(w io.Writer, b *checker.Blame) {
	if b == nil {
		return
	}
	st := styleFor(w)
	tests := "every failing test passes"
	if len(b.Failing) == 1 {
		tests = b.Failing[0] + " passes"
	}
	switch len(b.Culprits) {
	case 0:
		fmt.Fprintf(w, "  %s\n", st.dim("No one of your functions is at fault alone: with the reference's version of any one of them, some failing test still fails. Look at how they work together."))
	case 1:
		fmt.Fprintf(w, "  %s your %s. With the reference's %s in place of yours, and your other functions, %s.\n",
			st.bold("Where to look:"), b.Culprits[0], b.Culprits[0], tests)
	default:
		fmt.Fprintf(w, "  %s your %s. With the reference's version of any one of them in place of yours, %s.\n",
			st.bold("Where to look:"), orList(b.Culprits), tests)
	}
}

// orList is "a", "a or b", "a, b or c".
func orList(xs []string) string {
	if len(xs) == 1 {
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}

// checkProcesses is how many test processes a check spreads a lesson's
// tests over, all at once (checker.CheckOptions.Processes): one per core,
// up to 4. More would cost memory (each is a race-detector process of up
// to a few hundred MiB) and save little: a lesson's longest test is a
// good part of its time.
func checkProcesses() int {
	return min(runtime.NumCPU(), 4)
}

// printPhases says where a lesson's grading spent its time (kata check -v).
func printPhases(w io.Writer, res *checker.LessonResult) {
	st := styleFor(w)
	var b strings.Builder
	sum := 0.0
	for _, ph := range res.Phases {
		if ph.Name == "blame" {
			continue // after WallTime, not in it
		}
		sum += ph.Seconds
	}
	fmt.Fprintf(&b, "  time: %.2fs", res.WallTime)
	for i := 0; i < len(res.Phases); {
		// The runs after a crash, one after another, are told as one.
		ph, n, tests := res.Phases[i], 1, res.Phases[i].Tests
		for i+n < len(res.Phases) && res.Phases[i+n].Name == ph.Name {
			ph.Seconds += res.Phases[i+n].Seconds
			tests += res.Phases[i+n].Tests
			n++
		}
		i += n
		what := ph.Name
		switch {
		case n > 1:
			what = fmt.Sprintf("%d %ss (%d tests)", n, ph.Name, tests)
		case ph.Processes > 1:
			what = fmt.Sprintf("%s (%d tests in %d processes at once)", ph.Name, tests, ph.Processes)
		case tests > 0:
			what = fmt.Sprintf("%s (%d tests)", ph.Name, tests)
		}
		fmt.Fprintf(&b, "; %s %.2fs", what, ph.Seconds)
	}
	if rest := res.WallTime - sum; rest >= 0.005 {
		fmt.Fprintf(&b, "; the rest (workspace snapshot, overlay, hashes) %.2fs", rest)
	}
	fmt.Fprintln(w, st.dim(b.String()))
	tests := slices.Clone(res.Tests)
	slices.SortFunc(tests, func(a, b checker.TestResult) int { return cmp.Compare(b.Elapsed, a.Elapsed) })
	var slow []string
	for _, t := range tests[:min(3, len(tests))] {
		if t.Elapsed > 0 {
			slow = append(slow, fmt.Sprintf("%s %.2fs", t.Name, t.Elapsed))
		}
	}
	if len(slow) > 0 {
		fmt.Fprintln(w, st.dim("  slowest tests: "+strings.Join(slow, ", ")))
	}
}
