package trace

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/program"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
	"github.com/gmp-kata/gmp-kata/lessons"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// DefaultLimit is how long a scenario may run, unless told otherwise.
const DefaultLimit = 30 * time.Second

// A Run is one run of a scenario.
type Run struct {
	Scenario string
	Procs    int
	Seed     uint64
	// Events are the scheduler's events, in time order.
	Events []sched.Event
	// WaitErr is what Runtime.Wait returned, "" for nil: a deadlock is
	// the runtime's "all goroutines are asleep - deadlock!" with the
	// waiting Gs, a G's panic "panic in G N: value".
	WaitErr string
	// Deadlock says that Wait reported a deadlock (checkdead), and
	// Waiting which Gs it found blocked, with what each waits for.
	Deadlock bool
	Waiting  []sched.WaitingG
	// Crashed says that the program died before Wait returned (a panic
	// in an M's scheduling loop, say): Events are those it wrote before
	// (none if it died within a few milliseconds), and the last few
	// milliseconds of them are missing.
	Crashed bool
	// DispatchedTwice is the G that execute found not runnable, when that
	// is what crashed the run: two Ms took it, or one took it twice.
	DispatchedTwice int64
	// Stranded is the G that checkdead found runnable with no M running,
	// when that is what crashed the run: a G lost from the run queues.
	Stranded int64
}

// dispatchedTwice finds execute's panic in a crash's output: the G it
// names was handed to an M when it was not runnable (solutions/proc.go).
var dispatchedTwice = regexp.MustCompile(`execute: G (\d+) is \S+, not runnable`)

// stranded finds checkdead's panic for a runnable G that no M will run
// (solutions/checkdead.go).
var stranded = regexp.MustCompile(`checkdead: runnable g (\d+) with no M running`)

// A Program is the scenario program built with a learner's files, to run
// as often as wanted: its runs on real threads differ, so that one run
// says little of a scheduler's timing. Close removes it.
type Program struct {
	c      *checker.Checker
	dir    string
	bin    string
	files  map[string]string
	lesson string // the lesson CodeFailure names, "" for several or none
	s      scenario.Scenario
	procs  int
}

// Once runs the named scenario (see internal/scenario; procs 0: its own
// number of Ps) in c's grading module with files (base name in solutions/
// → path of the learner's file, as checker.Checker.Lesson takes them;
// none: the reference alone) and returns its events. The run may take
// limit (DefaultLimit, say); building the program is not counted.
//
// When the learner's code fails — it does not compile, panics, runs past
// the limit, deadlocks in a scenario that should not (or does not in the
// one that should) — the error is a *program.CodeFailure in the learner's
// terms. If the run got as far as Wait returning, the run is returned
// with the error, so that a broken run can still be drawn. Other errors
// mean kata could not run the scenario.
func Once(ctx context.Context, c *checker.Checker, files map[string]string, scenarioName string, procs int, seed uint64, limit time.Duration) (*Run, error) {
	prog, err := Build(ctx, c, files, scenarioName, procs)
	if err != nil {
		return nil, err
	}
	defer prog.Close()
	return prog.Run(ctx, seed, limit)
}

// Build builds the program that runs the named scenario with files, as
// Once does, for Program.Run to run once or many times. Errors are as
// Once's.
func Build(ctx context.Context, c *checker.Checker, files map[string]string, scenarioName string, procs int) (*Program, error) {
	s, err := scenario.Lookup(scenarioName)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	if procs == 0 {
		procs = s.Procs
	}
	if procs < 1 || procs > 64 {
		return nil, fmt.Errorf("trace: %d Ps: want 1 to 64", procs)
	}
	lesson, err := filesLesson(c.Registry(), files)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "kata-trace-")
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	bin, err := build(ctx, c, tmp, files, lesson)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Program{c: c, dir: tmp, bin: bin, files: files, lesson: lesson, s: s, procs: procs}, nil
}

// filesLesson checks that files are lessons' files, there to read, and
// returns the lesson they are of: the one a CodeFailure names, "" if they
// are of several lessons or none.
func filesLesson(reg *lessons.Registry, files map[string]string) (string, error) {
	lesson := ""
	for _, base := range slices.Sorted(maps.Keys(files)) {
		if filepath.Base(base) != base || !strings.HasSuffix(base, ".go") {
			return "", fmt.Errorf("trace: file %q: want the base name of a file of solutions/", base)
		}
		owner := reg.Owner(base)
		switch {
		case owner == nil:
			return "", fmt.Errorf("trace: no lesson owns %s: only lessons' files can be the learner's", base)
		case lesson == "":
			lesson = owner.ID
		case lesson != owner.ID:
			lesson = "-" // several lessons: CodeFailure names none
		}
		if _, err := os.Stat(files[base]); err != nil {
			return "", &program.CodeFailure{Lesson: strings.TrimPrefix(lesson, "-"), Problem: fmt.Sprintf("your %s is missing (kata reset restores a lesson's files)", base)}
		}
	}
	if lesson == "-" {
		lesson = ""
	}
	return lesson, nil
}

// Close removes the program.
func (p *Program) Close() error {
	return os.RemoveAll(p.dir)
}

// Run runs the program once with seed, for at most limit, and returns its
// events; errors are as Once's.
func (p *Program) Run(ctx context.Context, seed uint64, limit time.Duration) (*Run, error) {
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.Command(p.bin, p.s.Name, strconv.Itoa(p.procs), strconv.FormatUint(seed, 10))
	cmd.Dir = p.dir
	stdout, stderr := &program.CappedBuffer{Max: 256 << 20}, &program.CappedBuffer{Max: 1 << 20}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	waitErr := checker.StartKillable(runCtx, cmd)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("trace: %w", ctx.Err())
	case runCtx.Err() != nil:
		return nil, p.fail(fmt.Sprintf("scenario %s did not finish within %s with your code: a G lost from a run queue, an M that never wakes, or a loop that never ends?", p.s.Name, limit), nil)
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return nil, fmt.Errorf("trace: %w", waitErr)
	}
	run := &Run{Scenario: p.s.Name, Procs: p.procs, Seed: seed}
	res, err := readOutput(run, stdout.Bytes())
	if err != nil {
		return nil, err
	}
	if res == nil {
		return run, p.crashed(run, stdout, stderr.String(), waitErr)
	}
	return run, p.judge(run, res)
}

// readOutput reads the program's standard output into run's events, and
// returns what Wait returned, nil if the program did not get to say.
func readOutput(run *Run, stdout []byte) (*traceResult, error) {
	var res *traceResult
	sc := bufio.NewScanner(bytes.NewReader(stdout))
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("E ")):
			// A line cut short by a crash, or broken into by the
			// learner's own printing, is skipped.
			var ev sched.Event
			if json.Unmarshal(line[2:], &ev) == nil {
				run.Events = append(run.Events, ev)
			}
		case bytes.HasPrefix(line, []byte("R ")):
			res = &traceResult{}
			if err := json.Unmarshal(line[2:], res); err != nil {
				return nil, fmt.Errorf("trace: reading the result: %w", err)
			}
		}
		// Anything else is the learner's own printing.
	}
	// The program writes events as they come, a few milliseconds late:
	// put them in time order.
	slices.SortStableFunc(run.Events, func(a, b sched.Event) int { return cmp.Compare(a.When, b.When) })
	return res, nil
}

// crashed says why the program died before it could report: a panic
// outside any G (in an M's scheduling loop, say) crashes it, as in Go.
// What it wrote before, if anything, is in run, to judge and draw, with
// what its panic says.
func (p *Program) crashed(run *Run, stdout *program.CappedBuffer, stderr string, waitErr error) error {
	run.Crashed = true
	if m := dispatchedTwice.FindStringSubmatch(stderr); m != nil {
		run.DispatchedTwice, _ = strconv.ParseInt(m[1], 10, 64)
	}
	if m := stranded.FindStringSubmatch(stderr); m != nil {
		run.Stranded, _ = strconv.ParseInt(m[1], 10, 64)
	}
	errLines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
	if panicked := p.c.CondensePanic(errLines, p.files); panicked != nil {
		return p.fail(fmt.Sprintf("your code crashed scenario %s", p.s.Name), panicked)
	}
	if stdout.Over {
		return p.fail(fmt.Sprintf("scenario %s printed more than %d MiB with your code; stopped", p.s.Name, stdout.Max>>20), nil)
	}
	return p.fail(fmt.Sprintf("scenario %s stopped without a result (%v)", p.s.Name, waitErr), strings.Split(checker.Tail(errLines, 8), "\n"))
}

// judge records in run what Wait returned (res), and says what is wrong
// with it for the scenario, if anything.
func (p *Program) judge(run *Run, res *traceResult) error {
	s := p.s
	run.WaitErr, run.Deadlock, run.Waiting = res.Err, res.Deadlock, res.Waiting
	switch {
	case res.Panic != "":
		lines := append([]string{fmt.Sprintf("panic in G %d: %s", res.PanicG, res.Panic), ""}, strings.Split(res.Stack, "\n")...)
		return p.fail(fmt.Sprintf("your code panicked in scenario %s", s.Name), p.c.CondensePanic(lines, p.files))
	case res.Deadlock && !s.WantDeadlock:
		return p.fail(fmt.Sprintf("scenario %s deadlocked with your code: a G parked that nobody readied, or a readied G lost?", s.Name), strings.Split(res.Err, "\n"))
	case s.WantDeadlock && !res.Deadlock:
		why := "every G finished"
		if res.Err != "" {
			why = "Wait returned " + res.Err
		}
		return p.fail(fmt.Sprintf("scenario %s must end in a deadlock (checkdead), but %s", s.Name, why), nil)
	case res.Err != "" && !res.Deadlock:
		return p.fail(fmt.Sprintf("scenario %s: Wait returned %s", s.Name, res.Err), nil)
	}
	return nil
}

// fail is the learner's code failing in the program.
func (p *Program) fail(problem string, details []string) error {
	return &program.CodeFailure{Lesson: p.lesson, Problem: problem, Details: details}
}

// traceResult is the last line of the trace program: what Wait returned.
type traceResult struct {
	Procs    int    `json:"procs"`
	Err      string `json:"err"`
	Deadlock bool   `json:"deadlock"`
	PanicG   int64  `json:"panic_g"`
	Panic    string `json:"panic"`
	Stack    string `json:"stack"`
	// Waiting is checkdead's list of the blocked Gs, with a deadlock.
	Waiting []sched.WaitingG `json:"waiting"`
}

// build builds the trace program with files over the reference's, in tmp.
func build(ctx context.Context, c *checker.Checker, tmp string, files map[string]string, lesson string) (string, error) {
	dirs := c.ModuleDirs()
	ov, err := program.LearnerOverlay(dirs, files)
	if err != nil {
		return "", err
	}
	srcDir := filepath.Join(tmp, "src")
	if err := addSources(dirs, srcDir, ov); err != nil {
		return "", err
	}
	overlay, err := checker.WriteOverlay(filepath.Join(tmp, "overlay.json"), ov)
	if err != nil {
		return "", err
	}
	bin := filepath.Join(tmp, "kata-trace")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	// Without buildtag.Interleave: a trace shows the scheduler as it runs
	// outside the hidden tests, with no scheduling point in its atomics.
	out, err := program.Go(ctx, dirs, "build", "-overlay", overlay, "-o", bin, "./cmd/kata-trace")
	if err == nil {
		return bin, nil
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return "", fmt.Errorf("trace: building the scenario program: %w", err)
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return "", fmt.Errorf("trace: go build: %w (is Go installed and on PATH?)", err)
	}
	// With no learner's file, or with an error in kata's own scenario
	// program, the fault is the course's; otherwise the learner's files
	// broke the build (even if the error shows in a reference file that
	// calls them).
	if len(files) == 0 || bytes.Contains(out, []byte(srcDir)) {
		return "", fmt.Errorf("trace: the scenario program does not build (a bug in the course):\n%s", out)
	}
	return "", program.CompileFailure(c, lesson, out, files)
}

// addSources writes in srcDir the two packages of the trace program that
// are not in the grading module, and adds them to the overlay ov:
// internal/scenario (kata's own scenario sources, embedded, with their
// import of the scheduler pointed at the grading module's) and
// cmd/kata-trace (traceMain).
func addSources(dirs checker.ModuleDirs, srcDir string, ov map[string]string) error {
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		return err
	}
	names, err := fs.Glob(gmpkata.Sources, "internal/scenario/*.go")
	if err != nil {
		return err
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fs.ReadFile(gmpkata.Sources, name)
		if err != nil {
			return err
		}
		src := strings.ReplaceAll(string(data), `"github.com/gmp-kata/gmp-kata/solutions"`, `"gmpkata.grade/solutions"`)
		if strings.Contains(src, `"github.com/gmp-kata/gmp-kata/`) {
			return fmt.Errorf("trace: %s imports a package of kata other than the scheduler: the grading module has only the scheduler", name)
		}
		p := filepath.Join(srcDir, "scenario_"+filepath.Base(name))
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			return err
		}
		ov[filepath.Join(dirs.Root, "internal", "scenario", filepath.Base(name))] = p
	}
	mainPath := filepath.Join(srcDir, "main.go")
	if err := os.WriteFile(mainPath, []byte(traceMain), 0o644); err != nil {
		return err
	}
	ov[filepath.Join(dirs.Root, "cmd", "kata-trace", "main.go")] = mainPath
	return nil
}
