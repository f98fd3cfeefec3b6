package checker

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/sandbox"
)

// runTests runs the test binary once, for tests, in the sandbox if there
// is one, with the harness's secret, events and report on pipes of their
// own (harness_unix.go), and its output turned into go test -json's
// events by test2json, which kata runs beside it, outside the run, as go
// test -json does. (test2json running the binary itself, as before, exits
// 0 or 1 whatever the binary's status: kata needs that status, see
// gradeRun.)
//
// Its time is kata's to decide, from what the run cannot forge: a test
// has its limit from when the harness says it started, the run has
// gapAllowance before its first test, between two and after its last,
// all of them by kata's own clock; the whole run has the sum of its
// tests' limits and a minute, and no more than what is left of the
// lesson's budget (r.deadline). Nothing the binary prints moves any of
// them. The run ends when every process of it has exited or been killed;
// only then is the harness's report read, and the run's inputs checked.
//
// The phases, in order: startTests (test2json, the harness's channel, the
// binary in its sandbox), watch (the run's output and limits, until every
// process of it has ended), finish (the exit status, the harness's report,
// the inputs checked again).
func (r *run) runTests(ctx context.Context, tests []string) (*runResult, error) {
	res := &runResult{s: newStream(), mod: r.used, exitCode: -1}
	res.s.standalone = true
	res.s.known = map[string]bool{}
	for _, t := range tests {
		res.s.known[t] = true
	}
	if res.changed = r.changes(); len(res.changed) > 0 {
		return res, nil
	}
	total := time.Minute
	for _, t := range tests {
		total += r.timeouts[t]
	}
	lr, err := r.startTests(ctx, tests, total)
	if err != nil {
		return nil, err
	}
	end := lr.start.Add(total)
	budget := !r.deadline.IsZero() && r.deadline.Before(end)
	if budget {
		end = r.deadline
	}
	runCtx, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	interrupted := lr.watch(ctx, runCtx, res, budget)
	return lr.finish(res, interrupted)
}

// A liveRun is a run of the test binary under way: the processes and
// pipes runTests started, and what watch saw of them.
type liveRun struct {
	r      *run
	p      *sandbox.Proc
	ch     *reportChannel
	conv   *exec.Cmd // test2json
	jsonR  *os.File  // test2json's output
	lines  <-chan []byte
	quit   chan struct{}
	exited chan error // the run's processes have all ended
	start  time.Time

	stopped bool  // kata killed the run
	done    bool  // every process of the run has ended
	waitErr error // how the run ended
}

// stopConv ends test2json.
func (lr *liveRun) stopConv() {
	_ = lr.conv.Process.Kill()
	_ = lr.conv.Wait()
}

// startTests starts test2json, then the test binary for tests in the
// sandbox (if this system has one) with total as its own backstop.
func (r *run) startTests(ctx context.Context, tests []string, total time.Duration) (*liveRun, error) {
	t2j, err := test2jsonPath(ctx, filepath.Join(r.work, "gotmp"))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	isolated := sandboxed()
	tmp := "/tmp"
	if !isolated {
		tmp = filepath.Join(r.work, "tmp")
		if err := os.MkdirAll(tmp, 0o700); err != nil {
			return nil, fmt.Errorf("checker: %w", err)
		}
	}
	ch, err := newReportChannel(r.work)
	if err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	lr := &liveRun{r: r, ch: ch}
	// The binary's output → test2json → kata.
	outW, err := lr.startConv(t2j)
	if err != nil {
		ch.close()
		return nil, err
	}
	env := func(tmp string) []string {
		return raceEnv(append(append(r.runEnv(tmp), r.env...), ch.env...))
	}
	bin := r.binFor(tests)
	spec := &sandbox.Spec{
		Path: bin,
		// -test.timeout is the binary's own backstop, past kata's deadline
		// for the run: kata stops the run first.
		Args: []string{bin, "-test.paniconexit0", "-test.v=test2json", "-test.count=1",
			"-test.timeout=" + (total + 30*time.Second).String(), "-test.run=^(" + strings.Join(tests, "|") + ")$"},
		Env:        env(tmp),
		Dir:        r.used.pkgDir,
		Stdout:     outW,
		Stderr:     outW, // the test binary's crashes and race reports, as package output
		ExtraFiles: ch.files,
		Isolate:    isolated,
		ReadOnly:   []string{r.work, r.used.dir},
		TmpSize:    tmpSize,
		FileSize:   tmpSize,
	}
	if r.failFast {
		spec.Args = append(spec.Args, "-test.failfast")
	}
	lr.start = time.Now()
	p, err := sandbox.Start(spec)
	if err != nil && isolated && !r.isolate {
		// kata check: the learner's own code, which the sandbox is not
		// there to contain. Where this system gives one but not for this
		// run (a directory it cannot bind, say), run it as if there were
		// none rather than not at all.
		tmp = filepath.Join(r.work, "tmp")
		if err = os.MkdirAll(tmp, 0o700); err == nil {
			spec.Isolate, spec.Env = false, env(tmp)
			p, err = sandbox.Start(spec)
		}
	}
	outW.Close()
	ch.started()
	if err != nil {
		lr.jsonR.Close()
		lr.stopConv()
		ch.close()
		return nil, fmt.Errorf("checker: running the tests: %w", err)
	}
	lr.p = p
	lr.exited = make(chan error, 1)
	go func() { lr.exited <- p.Wait() }()
	lr.lines, lr.quit = readLines(lr.jsonR)
	return lr, nil
}

// binFor is the binary that runs tests: the build without the race
// detector if they are serial (all of them: a batch is of one build,
// grading.batches), else r.bin.
func (r *run) binFor(tests []string) string {
	if r.serialBin != "" && len(tests) > 0 && r.serial[tests[0]] {
		return r.serialBin
	}
	return r.bin
}

// startConv starts test2json (t2j) and returns the pipe the test binary
// is to write its output on.
func (lr *liveRun) startConv(t2j string) (outW *os.File, err error) {
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	jsonR, jsonW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return nil, fmt.Errorf("checker: %w", err)
	}
	conv := exec.Command(t2j, "-t", "-p", "gmpkata.grade/solutions")
	conv.Stdin, conv.Stdout, conv.Stderr = outR, jsonW, jsonW
	conv.Env = []string{} // it needs nothing of kata's
	err = conv.Start()
	outR.Close()
	jsonW.Close()
	if err != nil {
		outW.Close()
		jsonR.Close()
		return nil, fmt.Errorf("checker: starting test2json: %w", err)
	}
	lr.conv, lr.jsonR = conv, jsonR
	return outW, nil
}

// blameOf is the test to blame for a limit, as the harness said: the one
// running, or else the last one that ran.
func blameOf(st harnessState) string {
	if st.running != "" {
		return st.running
	}
	return st.last
}

// deadlineOf is when the test running, or the gap the run is in, runs out.
func (lr *liveRun) deadlineOf(st harnessState) time.Time {
	if st.running != "" {
		if limit, ok := lr.r.timeouts[st.running]; ok {
			return st.since.Add(limit)
		}
	}
	if st.last == "" {
		return lr.start.Add(gapAllowance)
	}
	return st.since.Add(gapAllowance)
}

// kill stops the run.
func (lr *liveRun) kill() {
	lr.stopped = true
	lr.p.Kill()
}

// watch reads the run's output into res until every process of the run
// has ended (and the output with them), killing the run when a test or a
// gap between tests runs out of time, when the run prints or holds too
// much, when something but the harness writes on the harness's channel,
// and when runCtx ends (ctx: kata was interrupted, which it returns;
// else the run's time or, if budget, the lesson's ran out).
func (lr *liveRun) watch(ctx, runCtx context.Context, res *runResult, budget bool) (interrupted error) {
	r := lr.r
	var nextMemCheck, exitedAt time.Time
	announced := ""
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	ctxDone := runCtx.Done()
	lines, exited := lr.lines, lr.exited
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				lines = nil
				if lr.done {
					return interrupted
				}
				continue
			}
			res.s.add(line)
			if r.maxOutput > 0 && res.s.outputBytes > r.maxOutput && !lr.stopped {
				res.overOutput, res.blame = true, blameOf(lr.ch.state())
				lr.kill()
			}
		case lr.waitErr = <-exited:
			// Every process of the run is dead (or, with no sandbox, was
			// killed): the output ends now.
			lr.done, exitedAt, exited = true, time.Now(), nil
			if lines == nil {
				return interrupted
			}
		case now := <-tick.C:
			if lr.done {
				if now.Sub(exitedAt) > exitGrace {
					return interrupted // something outside the run holds the output open
				}
				continue
			}
			if lr.stopped {
				continue
			}
			st := lr.ch.state()
			if name := st.last; name != announced && r.progress != nil {
				announced = name
				r.announce(name)
			}
			if st.tainted {
				// Something but the harness wrote on its channel: the
				// report is worthless already (it is not honest).
				lr.kill()
				continue
			}
			if now.After(lr.deadlineOf(st)) {
				if res.killed = blameOf(st); res.killed == "" {
					res.killed = "(start)"
				}
				lr.kill()
				continue
			}
			if r.maxMemory > 0 && memoryLimitEnforced && now.After(nextMemCheck) {
				nextMemCheck = now.Add(200 * time.Millisecond)
				if lr.p.Memory() > r.maxMemory {
					res.overMemory, res.blame = true, blameOf(st)
					lr.kill()
				}
			}
		case <-ctxDone:
			ctxDone = nil
			if ctx.Err() != nil {
				interrupted = ctx.Err()
			} else if res.killed == "" && !lr.stopped {
				if res.killed = blameOf(lr.ch.state()); res.killed == "" {
					res.killed = "(start)"
				}
				res.overBudget = budget
			}
			lr.kill()
		}
	}
}

// announcing makes the runs of a grading made at once (run.processes)
// announce one at a time.
var announcing sync.Mutex

// announce tells the check's progress that test name has started.
func (r *run) announce(name string) {
	if _, ok := r.timeouts[name]; !ok {
		return
	}
	announcing.Lock()
	defer announcing.Unlock()
	if r.started == nil {
		r.started = map[string]bool{}
	}
	r.started[name] = true
	r.progress(Progress{Test: name, Started: len(r.started), Total: len(r.timeouts)})
}

// finish ends what is left of the run once watch has returned, and fills
// in res: the run's time and exit status, the harness's report and what
// it saw end, and the inputs checked again.
func (lr *liveRun) finish(res *runResult, interrupted error) (*runResult, error) {
	close(lr.quit)
	_ = lr.jsonR.Close() // unblocks the reader if the pipe is still open
	if !lr.done {
		lr.p.Kill()
		lr.waitErr = <-lr.exited
	}
	lr.stopConv() // it has ended with its input, unless something outside the run holds that
	res.wallTime = time.Since(lr.start)
	res.harness = lr.ch.report(exitGrace)
	res.ended = lr.ch.feed.endings()
	if interrupted != nil {
		return nil, interrupted
	}
	var exitErr *exec.ExitError
	switch {
	case lr.waitErr == nil:
		if !lr.stopped {
			res.exitCode = 0
		}
	case errors.As(lr.waitErr, &exitErr):
		if !lr.stopped {
			res.exitCode = exitErr.ExitCode() // -1 if a signal ended it
		}
	default:
		return nil, fmt.Errorf("checker: running the tests: %w", lr.waitErr)
	}
	res.changed = lr.r.changes()
	return res, nil
}
