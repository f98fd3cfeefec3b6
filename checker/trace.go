package checker

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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
	"github.com/gmp-kata/gmp-kata/internal/scenario"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// This file is the engine under `kata trace --workspace`: it runs one of
// internal/scenario's named workloads on the reference scheduler with some
// of the learner's files in place of the reference's, in a program of its
// own (a learner's scheduler may panic, deadlock or spin forever), and
// returns the scheduler's events for the renderer.
//
// The program is built in the grading module with -overlay: the learner's
// files replace the reference's in solutions/, and two packages that are
// not on disk are added, internal/scenario (kata's own scenario sources,
// embedded, with their import of the scheduler pointed at the grading
// module's) and cmd/kata-trace, a main that runs one scenario and prints
// the events as JSON lines.

// DefaultTraceLimit is how long a scenario may run in Trace.
const DefaultTraceLimit = 30 * time.Second

// A TraceRun is one run of a scenario.
type TraceRun struct {
	Scenario string
	Procs    int
	Seed     uint64
	// Events are the scheduler's events, in time order.
	Events []sched.Event
	// WaitErr is what Runtime.Wait returned, "" for nil: a deadlock is
	// the runtime's "all goroutines are asleep - deadlock!" with the
	// waiting Gs, a G's panic "panic in G N: value".
	WaitErr string
	// Deadlock says that Wait reported a deadlock (checkdead).
	Deadlock bool
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

// A TraceProgram is the scenario program built with a learner's files, to
// run as often as wanted: its runs on real threads differ, so that one run
// says little of a scheduler's timing. Close removes it.
type TraceProgram struct {
	c      *Checker
	dir    string
	bin    string
	files  map[string]string
	lesson string // the lesson CodeFailure names, "" for several or none
	s      scenario.Scenario
	procs  int
}

// Trace runs the named scenario (see internal/scenario; procs 0: its own
// number of Ps) with files (base name in solutions/ → path of the
// learner's file, as Lesson takes them; none: the reference alone) and
// returns its events. The run may take DefaultTraceLimit; building the
// program is not counted.
//
// When the learner's code fails — it does not compile, panics, runs past
// the limit, deadlocks in a scenario that should not (or does not in the
// one that should) — the error is a *CodeFailure in the learner's terms.
// If the run got as far as Wait returning, the run is returned with the
// error, so that a broken run can still be drawn. Other errors mean kata
// could not run the scenario.
func (c *Checker) Trace(ctx context.Context, files map[string]string, scenarioName string, procs int, seed uint64) (*TraceRun, error) {
	return c.TraceLimit(ctx, files, scenarioName, procs, seed, DefaultTraceLimit)
}

// TraceLimit is Trace with the run's time limit given.
func (c *Checker) TraceLimit(ctx context.Context, files map[string]string, scenarioName string, procs int, seed uint64, limit time.Duration) (*TraceRun, error) {
	prog, err := c.BuildTrace(ctx, files, scenarioName, procs)
	if err != nil {
		return nil, err
	}
	defer prog.Close()
	return prog.Run(ctx, seed, limit)
}

// BuildTrace builds the program that runs the named scenario with files,
// as Trace does, for Run to run once or many times. Errors are as Trace's.
func (c *Checker) BuildTrace(ctx context.Context, files map[string]string, scenarioName string, procs int) (*TraceProgram, error) {
	s, err := scenario.Lookup(scenarioName)
	if err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	if procs == 0 {
		procs = s.Procs
	}
	if procs < 1 || procs > 64 {
		return nil, fmt.Errorf("checker: trace: %d Ps: want 1 to 64", procs)
	}
	lesson := ""
	for _, base := range sortedFileNames(files) {
		if filepath.Base(base) != base || !strings.HasSuffix(base, ".go") {
			return nil, fmt.Errorf("checker: trace: file %q: want the base name of a file of solutions/", base)
		}
		owner := c.reg.Owner(base)
		switch {
		case owner == nil:
			return nil, fmt.Errorf("checker: trace: no lesson owns %s: only lessons' files can be the learner's", base)
		case lesson == "":
			lesson = owner.ID
		case lesson != owner.ID:
			lesson = "-" // several lessons: CodeFailure names none
		}
		if _, err := os.Stat(files[base]); err != nil {
			return nil, &CodeFailure{Lesson: strings.TrimPrefix(lesson, "-"), Problem: fmt.Sprintf("your %s is missing (kata reset restores a lesson's files)", base)}
		}
	}
	if lesson == "-" {
		lesson = ""
	}

	tmp, err := os.MkdirTemp("", "kata-trace-")
	if err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	bin, err := c.buildTrace(ctx, tmp, files, lesson)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &TraceProgram{c: c, dir: tmp, bin: bin, files: files, lesson: lesson, s: s, procs: procs}, nil
}

// Close removes the program.
func (p *TraceProgram) Close() error {
	return os.RemoveAll(p.dir)
}

// Run runs the program once with seed, for at most limit, and returns its
// events; errors are as Trace's.
func (p *TraceProgram) Run(ctx context.Context, seed uint64, limit time.Duration) (*TraceRun, error) {
	c, s, procs, files, lesson := p.c, p.s, p.procs, p.files, p.lesson
	runCtx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	cmd := exec.Command(p.bin, s.Name, strconv.Itoa(procs), strconv.FormatUint(seed, 10))
	cmd.Dir = p.dir
	stdout, stderr := &cappedBuffer{max: 256 << 20}, &cappedBuffer{max: 1 << 20}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	waitErr := startKillable(runCtx, cmd)
	errLines := strings.Split(strings.TrimRight(stderr.String(), "\n"), "\n")
	fail := func(problem string, details []string) error {
		return &CodeFailure{Lesson: lesson, Problem: problem, Details: details}
	}
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("checker: trace: %w", ctx.Err())
	case runCtx.Err() != nil:
		return nil, fail(fmt.Sprintf("scenario %s did not finish within %s with your code: a G lost from a run queue, an M that never wakes, or a loop that never ends?", s.Name, limit), nil)
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return nil, fmt.Errorf("checker: trace: %w", waitErr)
	}

	run := &TraceRun{Scenario: s.Name, Procs: procs, Seed: seed}
	var res *traceResult
	sc := bufio.NewScanner(bytes.NewReader(stdout.Bytes()))
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
				return nil, fmt.Errorf("checker: trace: reading the result: %w", err)
			}
		}
		// Anything else is the learner's own printing.
	}
	// The program writes events as they come, a few milliseconds late:
	// put them in time order.
	slices.SortStableFunc(run.Events, func(a, b sched.Event) int { return cmp.Compare(a.When, b.When) })
	if res == nil {
		// The program died before it could report: a panic outside any G
		// (in an M's scheduling loop, say) crashes it, as in Go. What it
		// wrote before, if anything, is returned to judge and draw, with
		// what its panic says.
		run.Crashed = true
		if m := dispatchedTwice.FindStringSubmatch(stderr.String()); m != nil {
			run.DispatchedTwice, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if m := stranded.FindStringSubmatch(stderr.String()); m != nil {
			run.Stranded, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if p := c.condensePanic(errLines, files); p != nil {
			return run, fail(fmt.Sprintf("your code crashed scenario %s", s.Name), p)
		}
		if stdout.over {
			return run, fail(fmt.Sprintf("scenario %s printed more than %d MiB with your code; stopped", s.Name, stdout.max>>20), nil)
		}
		return run, fail(fmt.Sprintf("scenario %s stopped without a result (%v)", s.Name, waitErr), strings.Split(tail(errLines, 8), "\n"))
	}
	run.WaitErr, run.Deadlock = res.Err, res.Deadlock
	switch {
	case res.Panic != "":
		lines := append([]string{fmt.Sprintf("panic in G %d: %s", res.PanicG, res.Panic), ""}, strings.Split(res.Stack, "\n")...)
		return run, fail(fmt.Sprintf("your code panicked in scenario %s", s.Name), c.condensePanic(lines, files))
	case res.Deadlock && !s.WantDeadlock:
		return run, fail(fmt.Sprintf("scenario %s deadlocked with your code: a G parked that nobody readied, or a readied G lost?", s.Name), strings.Split(res.Err, "\n"))
	case s.WantDeadlock && !res.Deadlock:
		why := "every G finished"
		if res.Err != "" {
			why = "Wait returned " + res.Err
		}
		return run, fail(fmt.Sprintf("scenario %s must end in a deadlock (checkdead), but %s", s.Name, why), nil)
	case res.Err != "" && !res.Deadlock:
		return run, fail(fmt.Sprintf("scenario %s: Wait returned %s", s.Name, res.Err), nil)
	}
	return run, nil
}

// traceResult is the last line of the trace program: what Wait returned.
type traceResult struct {
	Procs    int    `json:"procs"`
	Err      string `json:"err"`
	Deadlock bool   `json:"deadlock"`
	PanicG   int64  `json:"panic_g"`
	Panic    string `json:"panic"`
	Stack    string `json:"stack"`
}

// buildTrace builds the trace program with files over the reference's.
func (c *Checker) buildTrace(ctx context.Context, tmp string, files map[string]string, lesson string) (string, error) {
	ov := map[string]string{}
	for base, p := range files {
		abs, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		ov[filepath.Join(c.mod.pkgDir, base)] = abs
	}
	srcDir := filepath.Join(tmp, "src")
	if err := os.MkdirAll(srcDir, 0o755); err != nil {
		return "", err
	}
	names, err := fs.Glob(gmpkata.Sources, "internal/scenario/*.go")
	if err != nil {
		return "", err
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		data, err := fs.ReadFile(gmpkata.Sources, name)
		if err != nil {
			return "", err
		}
		src := strings.ReplaceAll(string(data), `"github.com/gmp-kata/gmp-kata/solutions"`, `"gmpkata.grade/solutions"`)
		if strings.Contains(src, `"github.com/gmp-kata/gmp-kata/`) {
			return "", fmt.Errorf("checker: trace: %s imports a package of kata other than the scheduler: the grading module has only the scheduler", name)
		}
		p := filepath.Join(srcDir, "scenario_"+filepath.Base(name))
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			return "", err
		}
		ov[filepath.Join(c.mod.dir, "internal", "scenario", filepath.Base(name))] = p
	}
	mainPath := filepath.Join(srcDir, "main.go")
	if err := os.WriteFile(mainPath, []byte(traceMain), 0o644); err != nil {
		return "", err
	}
	ov[filepath.Join(c.mod.dir, "cmd", "kata-trace", "main.go")] = mainPath
	overlay, err := writeOverlay(filepath.Join(tmp, "overlay.json"), ov)
	if err != nil {
		return "", err
	}

	bin := filepath.Join(tmp, "kata-trace")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	buildCtx, cancel := context.WithTimeout(ctx, buildAllowance)
	defer cancel()
	// Without buildtag.Interleave: a trace shows the scheduler as it runs
	// outside the hidden tests, with no scheduling point in its atomics.
	cmd := exec.Command("go", "build", "-overlay", overlay, "-o", bin, "./cmd/kata-trace")
	cmd.Dir = c.mod.dir
	cmd.Env = goEnv()
	out, err := runKillable(buildCtx, cmd)
	if err == nil {
		return bin, nil
	}
	if ctx.Err() != nil || buildCtx.Err() != nil {
		return "", fmt.Errorf("checker: trace: building the scenario program: %w", context.Cause(buildCtx))
	}
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		return "", fmt.Errorf("checker: go build: %w (is Go installed and on PATH?)", err)
	}
	// With no learner's file, or with an error in kata's own scenario
	// program, the fault is the course's; otherwise the learner's files
	// broke the build (even if the error shows in a reference file that
	// calls them).
	if len(files) == 0 || bytes.Contains(out, []byte(srcDir)) {
		return "", fmt.Errorf("checker: trace: the scenario program does not build (a bug in the course):\n%s", out)
	}
	errs := c.compileErrors(strings.Split(strings.TrimRight(string(out), "\n"), "\n"), files)
	return "", &CodeFailure{Lesson: lesson, Problem: "your code does not compile", Details: firstN(errs, 10)}
}

func sortedFileNames(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// startKillable runs cmd in a process group of its own and waits for it;
// when ctx is done first, the whole group is killed.
func startKillable(ctx context.Context, cmd *exec.Cmd) error {
	setProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		killProcessGroup(cmd)
		if err := <-done; err != nil {
			return err
		}
		return ctx.Err()
	}
}

// cappedBuffer keeps the first max bytes written to it and drops the
// rest, so that a program printing without end cannot exhaust memory.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// traceMain is the trace program: run one scenario, print its events and
// what Wait returned, one JSON value a line ("E {event}", then
// "R {result}"). Anything else on stdout is the learner's own printing.
const traceMain = `// Command kata-trace runs one scenario of internal/scenario and prints
// its events. Written by kata (checker/trace.go).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"gmpkata.grade/internal/scenario"
	sched "gmpkata.grade/solutions"
)

type result struct {
	Procs    int    ` + "`json:\"procs\"`" + `
	Err      string ` + "`json:\"err\"`" + `
	Deadlock bool   ` + "`json:\"deadlock\"`" + `
	PanicG   int64  ` + "`json:\"panic_g\"`" + `
	Panic    string ` + "`json:\"panic\"`" + `
	Stack    string ` + "`json:\"stack\"`" + `
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: kata-trace SCENARIO PROCS SEED")
		os.Exit(2)
	}
	s, err := scenario.Lookup(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	procs, err1 := strconv.Atoi(os.Args[2])
	seed, err2 := strconv.ParseUint(os.Args[3], 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "kata-trace: bad PROCS or SEED")
		os.Exit(2)
	}

	// Events are written every few milliseconds as they come, so that a
	// run that crashes (a panic in an M kills the program) leaves all but
	// its last few milliseconds to draw and judge.
	out := &events{w: bufio.NewWriterSize(os.Stdout, 64<<10)}
	stopWriting := out.every(5 * time.Millisecond)
	rt := sched.New(sched.Config{Procs: procs, Seed: seed, Trace: out.record})
	rt.Go(s.Main)
	werr := rt.Wait()
	res := result{Procs: procs}
	if werr != nil {
		res.Err = werr.Error()
		var de *sched.DeadlockError
		var pe *sched.PanicError
		switch {
		case errors.As(werr, &de):
			res.Deadlock = true
		case errors.As(werr, &pe):
			res.PanicG, res.Panic, res.Stack = pe.G, fmt.Sprint(pe.Value), string(pe.Stack)
			res.Err = fmt.Sprintf("panic in G %d: %v", pe.G, pe.Value)
		}
	}
	// A broken scheduler may never finish closing: give it a moment, then
	// report anyway.
	closed := make(chan struct{})
	go func() {
		rt.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
	}

	stopWriting()
	out.write()
	b, _ := json.Marshal(res)
	out.w.WriteString("R ")
	out.w.Write(b)
	out.w.WriteByte('\n')
	out.w.Flush()
	os.Exit(0)
}

// events holds the events not yet written.
type events struct {
	mu      sync.Mutex
	pending []sched.Event
	w       *bufio.Writer // only write uses it
}

func (e *events) record(ev sched.Event) {
	e.mu.Lock()
	e.pending = append(e.pending, ev)
	e.mu.Unlock()
}

// write writes the pending events, one "E {json}" line each, and flushes.
func (e *events) write() {
	e.mu.Lock()
	evs := e.pending
	e.pending = nil
	e.mu.Unlock()
	for _, ev := range evs {
		b, _ := json.Marshal(ev)
		e.w.WriteString("E ")
		e.w.Write(b)
		e.w.WriteByte('\n')
	}
	e.w.Flush()
}

// every calls write every period until stop is called; stop returns once
// the last call has returned.
func (e *events) every(period time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				e.write()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
`
