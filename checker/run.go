package checker

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/sandbox"
	"github.com/gmp-kata/gmp-kata/checker/vet"
	"github.com/gmp-kata/gmp-kata/internal/buildtag"
)

// A run is the grading of some tests with some files replaced by the
// learner's and some hidden tests added, in two phases: the build, once
// (go test -c: the compiler runs, no code under test does), then as many
// runs of the test binary as it takes (the first, and more after a crash,
// a hang or a race: see gradeRun). Each run of the binary is in the
// sandbox where there is one (package sandbox), and every process it
// started is killed when it ends.
type run struct {
	mod      *module
	replace  map[string]string // base name in solutions/ → the learner's file
	snapshot map[string]string // base name → the copy of the learner's file the runs compile
	hidden   []string          // lesson IDs whose hidden tests to add
	timeouts map[string]time.Duration
	// last are the tests that run after all the others: a private
	// pack's (lessons.Test.Private; see harnessSource).
	last []string
	race bool
	// serial are the tests that run in a second build, without the race
	// detector (Options.SerialWithoutRace: lessons.Test.Serial), when
	// race is set; nil: every test runs in the one build.
	serial map[string]bool
	// maxOutput bounds what the tests may print, in bytes, and maxMemory
	// the resident memory of the run's processes together; past either
	// the run is killed. 0: no limit.
	maxOutput int
	maxMemory int64
	// isolate gives the run a private copy of the module, a private
	// temporary directory and a scrubbed environment (see Options.Isolate).
	isolate bool
	// env is added to the test binary's environment; failFast stops a run
	// at its first failing test, and the runs at the first failure.
	env      []string
	failFast bool
	// lessonDeadline, if set, is where the lesson's budget ends whatever
	// this run's start (CheckOptions.Deadline).
	lessonDeadline time.Time
	// printed, if set, counts what the lesson's runs have printed across
	// gradings (CheckOptions.Printed); nil: each grading counts its own.
	printed *int
	// noVet builds without go test's vet checks: mutant schemata hold
	// code vet would refuse (s == a && s == b) that the tests must judge.
	noVet bool
	// trusted skips kata's vetting of the files: they are the course's
	// own (mutant schemata, which declare kata's names and import os).
	trusted bool
	// progress, if set, is told of the build and of each test starting
	// (CheckOptions.Progress); started are the tests that have.
	progress func(Progress)
	started  map[string]bool
	// processes is how many test processes a run of several tests may be
	// spread over, all running at once (CheckOptions.Processes); 0 or 1:
	// one. weights are the tests' times at the last check (timings.go),
	// by which they are spread; nil: by their time limits.
	processes int
	weights   map[string]time.Duration
	// deadline is when the lesson's grading must be over (gradeRun's
	// budget): no run of the binary goes past it. Zero: none.
	deadline time.Time

	// What the build made, for every run of the binary after it.
	work      string            // private directory: the snapshot, the overlay, the hidden tests renamed, the harness, the binary, the module's copy
	used      *module           // the module built: mod, or its private copy
	overlay   map[string]string // -overlay's replacements
	bin       string            // the test binary
	serialBin string            // the one without the race detector, for the serial tests ("": none)
	id        string            // the suffix of the harness's identifiers
	key       []byte            // the secret it is made with (harnessID); nil: a fresh one
	sums      map[string]string // every input of the runs (path → SHA-256), the binary once built
	built     bool
}

// runResult is what a run found out.
type runResult struct {
	s *stream
	// killed names the test that ran past its time limit, "" if none;
	// "(build)" if building the test binary ran out of time, "(start)" if
	// the binary did before any test started.
	killed string
	// overOutput and overMemory say the run was stopped for printing or
	// using too much; blame is the test running then ("" if none was).
	overOutput bool
	overMemory bool
	blame      string
	wallTime   time.Duration
	// buildTime is how long building the test binary took before this
	// run of it, if this run built it (0 if it was built already).
	buildTime time.Duration
	// mod is the module the run used: the shared one, or its private copy.
	mod *module
	// harness is what the harness reported; nil if the test binary did not
	// run to its end. exitCode is the test binary's exit status, -1 if it
	// did not exit on its own (kata stopped it, or a signal did).
	harness  *harnessReport
	exitCode int
	// ended are the tests whose end the harness told kata as the run went,
	// each with its verdict.
	ended map[string]string
	// overBudget says the run was stopped because the lesson's time
	// budget ran out (killed names the test running then).
	overBudget bool
	// changed lists the inputs of the run that changed while it ran: the
	// module's files (its private copy, isolated runs only), the learner's
	// files (isolated runs only), kata's own (the overlay, the hidden
	// tests, the harness, the test binary).
	changed []string
}

// trusted reports whether the run's harness report is a grade: the
// harness sent one, with the nonce, and the test binary then exited on its
// own with the status that report implies (m.Run's: 1 if a test failed,
// else 0), and the race detector reported no race in the run. A report
// sent by code that found the nonce and then crashed the process, or that
// tore memory with a data race to find it, is not one.
func (rr *runResult) trusted() bool {
	h := rr.harness
	return h != nil && h.Honest && rr.exitCode == h.exitCode() && !rr.raced()
}

// raceReport is the line that starts every report of the race detector.
const raceReport = "WARNING: DATA RACE"

// raced reports whether the race detector reported a data race in the
// run: a report in its output, or the status it exits with after one.
// (Code under test can print the line too, and so make its own run
// untrusted: nothing more.)
func (rr *runResult) raced() bool {
	if rr.exitCode == raceExitCode {
		return true
	}
	has := func(lines []string) bool {
		return slices.ContainsFunc(lines, func(l string) bool { return strings.TrimSpace(l) == raceReport })
	}
	if has(rr.s.pkgOutput) {
		return true
	}
	for _, o := range rr.s.tests {
		if has(o.output) {
			return true
		}
	}
	return false
}

// timedOut reports whether the test binary's own -test.timeout ended it
// (the testing package's panic says so).
func (rr *runResult) timedOut() bool {
	is := func(l string) bool { return strings.HasPrefix(strings.TrimSpace(l), "panic: test timed out after ") }
	if slices.ContainsFunc(rr.s.pkgOutput, is) {
		return true
	}
	for _, o := range rr.s.tests {
		if slices.ContainsFunc(o.output, is) {
			return true
		}
	}
	return false
}

// gapAllowance is how long a run may go with no test running, as its
// harness says (runTests): before its first test, between two tests, and
// after the last one until the binary exits.
const gapAllowance = 30 * time.Second

// buildAllowance is the time building the test binary may take: compiling
// (with -race) and linking. It does not depend on the tests' limits.
var buildAllowance = 3 * time.Minute

// tmpSize bounds what a run of the test binary may write: its private
// /tmp in the sandbox, and every file it writes (RLIMIT_FSIZE) on Linux.
const tmpSize = 64 << 20

// exitGrace is how long kata waits for a run's output and report to end
// once its processes are dead: they end at once, unless a process outside
// the run holds them (where there is no sandbox to prevent it).
const exitGrace = 5 * time.Second

// overlay returns the -overlay replacements: the learner's files over the
// reference's in mod, the hidden tests added to the package with their
// tests renamed, and the harness that runs them under their own names (see
// harness.go), whose identifiers end with id and which reports (or not,
// for Repeat). The renamed files and the harness are written in tmp.
func (r *run) makeOverlay(mod *module, tmp, id string, report bool) (map[string]string, error) {
	replace := map[string]string{}
	for base, learner := range r.replace {
		if snap, ok := r.snapshot[base]; ok {
			learner = snap
		}
		abs, err := filepath.Abs(learner)
		if err != nil {
			return nil, err
		}
		replace[filepath.Join(mod.pkgDir, base)] = abs
	}
	if err := addGradedSources(replace, mod, tmp, r.replace); err != nil {
		return nil, err
	}
	renamed := filepath.Join(tmp, "hidden")
	if err := os.Mkdir(renamed, 0o755); err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	var tests []string
	seen := map[string]bool{}
	add := func(srcDir, prefix string) error {
		entries, err := os.ReadDir(srcDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			asm := strings.HasSuffix(e.Name(), ".s") // the kit's kitGetg: added as it is
			if !asm && !strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(srcDir, e.Name()))
			if err != nil {
				return err
			}
			out, names := src, []string(nil)
			if !asm {
				out, names = renameTests(src)
			}
			name := prefix + e.Name()
			if err := os.WriteFile(filepath.Join(renamed, name), out, 0o644); err != nil {
				return err
			}
			replace[filepath.Join(mod.pkgDir, name)] = filepath.Join(renamed, name)
			for _, n := range names {
				// A test declared twice fails to compile in the hidden
				// files; one wrapper keeps the harness out of the error.
				if !seen[n] {
					seen[n] = true
					tests = append(tests, n)
				}
			}
		}
		return nil
	}
	if err := add(filepath.Join(mod.hidden, "kit"), "zz_kit_"); err != nil {
		return nil, fmt.Errorf("checker: hidden test kit: %w", err)
	}
	for _, id := range r.hidden {
		if err := add(filepath.Join(mod.hidden, id), "zz_"+strings.ReplaceAll(id, "-", "_")+"_"); err != nil {
			return nil, fmt.Errorf("checker: hidden tests of %s: %w", id, err)
		}
	}
	harness, secret := harnessSource(tests, id, report, r.timeouts, r.last)
	for name, src := range map[string][]byte{harnessFile: harness, secretFile: secret} {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, src, 0o644); err != nil {
			return nil, fmt.Errorf("checker: %w", err)
		}
		replace[filepath.Join(mod.pkgDir, name)] = p
	}
	return replace, nil
}

// gradedSourcesFile is the file that gives the hidden tests the source of
// the files graded in place of the reference's (kataGradedSources, which
// the kit reads; a lesson file may not name it: kata... is reserved).
const gradedSourcesFile = "zz_kata_sources_test.go"

// addGradedSources writes, in tmp, the gradedSourcesFile of the files
// replace graded in place of mod's reference (learner: base name →
// path), and adds it to replace. go test -overlay compiles each under the
// reference's name, so a test that quotes a line of the code under test
// (the explorer's story of a failing schedule) would read the reference's
// file there, not the one graded.
func addGradedSources(replace map[string]string, mod *module, tmp string, learner map[string]string) error {
	var b strings.Builder
	b.WriteString("//go:build " + buildtag.Interleave + "\n\npackage sched\n\n// Added by kata: the files graded in place of the reference's, as the\n// hidden tests quote them (see checker/run.go, addGradedSources).\n\nvar kataGradedSources = map[string]string{\n")
	for _, base := range slices.Sorted(maps.Keys(learner)) {
		src, err := os.ReadFile(replace[filepath.Join(mod.pkgDir, base)])
		if err != nil {
			return fmt.Errorf("checker: %w", err)
		}
		fmt.Fprintf(&b, "\t%q: %s,\n", base, strconv.Quote(string(src)))
	}
	b.WriteString("}\n")
	p := filepath.Join(tmp, gradedSourcesFile)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("checker: %w", err)
	}
	replace[filepath.Join(mod.pkgDir, gradedSourcesFile)] = p
	return nil
}

// saveOverlay writes replace as an -overlay file in dir.
func saveOverlay(dir string, replace map[string]string) (string, error) {
	return WriteOverlay(filepath.Join(dir, "overlay.json"), replace)
}

// makeWork makes the run's private directory and the snapshot of the
// learner's files in it: the runs compile the snapshot, never the live
// files, so a file saved while its check runs is graded by the next check,
// never half by this one.
func (r *run) makeWork() error {
	work, err := os.MkdirTemp("", "kata-run-")
	if err != nil {
		return fmt.Errorf("checker: %w", err)
	}
	if os.Getuid() == 0 {
		// The sandbox runs the test binary as nobody when kata runs as
		// root (package sandbox): it must reach its files.
		_ = os.Chmod(work, 0o755)
	}
	r.work = work
	r.snapshot = map[string]string{}
	for base, p := range r.replace {
		read := vet.ReadFile // a file too large to vet: enough to tell
		if r.trusted {
			read = os.ReadFile // the course's own (mutant schemata): whole, however large
		}
		data, err := read(p)
		if err != nil {
			return fmt.Errorf("checker: reading %s: %w", p, err)
		}
		dir := filepath.Join(work, "src", base)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("checker: %w", err)
		}
		// The snapshot keeps the file's base name: the compiler names it in
		// its messages, which kata maps back to the learner's path.
		snap := filepath.Join(dir, filepath.Base(p))
		if err := os.WriteFile(snap, data, 0o644); err != nil {
			return fmt.Errorf("checker: %w", err)
		}
		r.snapshot[base] = snap
	}
	return nil
}

// prepare makes what the run builds from (makeWork first, if it has not
// been), and takes the hash of every input.
func (r *run) prepare() error {
	if r.work == "" {
		if err := r.makeWork(); err != nil {
			return err
		}
	}
	work := r.work
	var err error
	r.used = r.mod
	if r.isolate {
		if r.used, err = r.mod.copyTo(filepath.Join(work, "mod")); err != nil {
			return err
		}
	}
	r.id = harnessID(r.key, r.replace, r.hidden)
	if r.overlay, err = r.makeOverlay(r.used, work, r.id, true); err != nil {
		return err
	}
	overlayFile, err := saveOverlay(work, r.overlay)
	if err != nil {
		return err
	}
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	r.bin = filepath.Join(work, "sched.test"+exe)
	if len(r.serial) > 0 {
		r.serialBin = filepath.Join(work, "sched-serial.test"+exe)
	}
	inputs := []string{overlayFile}
	for _, src := range r.overlay {
		// Every file the build reads but the module's (which changes()
		// checks in a private copy): the learner's are the snapshot's.
		inputs = append(inputs, src)
	}
	r.sums = map[string]string{}
	for _, p := range inputs {
		if r.sums[p], err = fileSum(p); err != nil {
			return fmt.Errorf("checker: %w", err)
		}
	}
	return nil
}

// cleanup removes what prepare made.
func (r *run) cleanup() {
	if r.work != "" {
		removeAll(r.work)
	}
}

// inputsChanged lists the inputs of the run whose content is no longer
// what it was when the run took their hash.
func (r *run) inputsChanged() []string {
	var out []string
	for p, want := range r.sums {
		if got, err := fileSum(p); err != nil || got != want {
			name := filepath.Base(p)
			switch {
			case p == r.bin || p == r.serialBin:
				name = "the test binary"
			case strings.HasPrefix(p, r.work+string(filepath.Separator)):
				name, _ = filepath.Rel(r.work, p)
				name = "kata's " + filepath.ToSlash(name)
			}
			out = append(out, name+" (changed)")
		}
	}
	sort.Strings(out)
	return out
}

// changes lists what changed of the run's inputs, and of its module's
// private copy.
func (r *run) changes() []string {
	var out []string
	if r.isolate && r.used != r.mod {
		out = r.used.changes()
	}
	return append(out, r.inputsChanged()...)
}

// exec runs the test binary once for each batch of tests, all the runs at
// once, building the binary first if it is not built yet, and folds each
// run's output: one result per batch, in order. A test that runs past its
// limit, output past maxOutput or memory past maxMemory kills its run. If
// the build gave no binary, its result is the only one. It returns ctx's
// error if ctx ends first.
func (r *run) exec(ctx context.Context, batches ...[]string) ([]*runResult, error) {
	if r.overlay == nil {
		if err := r.prepare(); err != nil {
			return nil, err
		}
	}
	var built time.Duration
	if !r.built {
		// What the run of the binary needs and costs a process to learn
		// (test2json's path, whether there is a sandbox) is learnt after
		// the build, not beside it: kata stopped meanwhile would leave
		// that process's directory behind, in the user's.
		start := time.Now()
		if res, err := r.build(ctx); err != nil || res != nil {
			return []*runResult{res}, err
		}
		built = time.Since(start)
	}
	results := make([]*runResult, len(batches))
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for i, tests := range batches {
		wg.Go(func() { results[i], errs[i] = r.runTests(ctx, tests) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	results[0].buildTime = built
	return results, nil
}

// build compiles the test binaries: r.bin, and r.serialBin beside it
// when the run has serial tests (two go commands at once), or only
// r.serialBin when every test of the run is serial. It
// returns a result only if a build did not give a binary to run (it
// failed, was stopped, or changed its inputs), nil once both are built.
func (r *run) build(ctx context.Context) (*runResult, error) {
	if r.progress != nil {
		r.progress(Progress{Building: true, Total: len(r.timeouts)})
	}
	var bins []string
	var serialRes *runResult
	var serialErr error
	done := make(chan struct{})
	raced := len(r.serial) < len(r.timeouts) // a test that is not serial: r.bin runs it
	if r.serialBin != "" {
		bins = append(bins, r.serialBin)
		go func() {
			defer close(done)
			// go test's vet checks in one build only (the same
			// sources): r.bin's, if it is built.
			serialRes, serialErr = r.buildBinary(ctx, r.serialBin, false, !raced)
		}()
	} else {
		close(done)
	}
	var res *runResult
	var err error
	if raced {
		bins = append(bins, r.bin)
		res, err = r.buildBinary(ctx, r.bin, r.race, true)
	}
	<-done
	if err != nil || res != nil {
		return res, err
	}
	if serialErr != nil || serialRes != nil {
		return serialRes, serialErr
	}
	for _, bin := range bins {
		if err := r.markBuilt(bin); err != nil {
			return nil, err
		}
	}
	r.built = true
	return nil, nil
}

// buildBinary compiles the test binary bin, with the race detector if
// race and go test's vet checks if vet: go test -c, with its own deadline
// (buildAllowance) and the memory limit. It returns a result only if the
// build did not give a binary to run, nil once bin is built. It reads
// r.sums (the inputs changed?) and writes nothing of r but bin: build
// runs two at once.
func (r *run) buildBinary(ctx context.Context, bin string, race, vet bool) (*runResult, error) {
	// The hidden tests' build: the atomics are scheduling points.
	flags := buildtag.GoArgs()
	if race {
		flags = append(flags, "-race")
	}
	if r.noVet || !vet {
		flags = append(flags, "-vet=off")
	}
	// No DWARF: nothing reads it (tracebacks, race reports and the hang
	// dump come from the binary's own tables), and writing it was half of
	// the link, a second of every build of a new file; the compiler's
	// share of it (-dwarf=false, for the package under test only: the
	// standard library's cached objects stay as they are) was 7% of the
	// compile.
	flags = append(flags, "-ldflags=-w", "-gcflags=-dwarf=false")
	key := r.binKey(flags)
	args := []string{"test", "-c", "-o", bin, "-overlay", filepath.Join(r.work, "overlay.json"), "-json"}
	args = append(append(args, flags...), "./solutions")
	if r.fromBinCache(key, bin) {
		return nil, nil
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = r.used.dir
	env, err := r.environ(r.work)
	if err != nil {
		return nil, err
	}
	cmd.Env = env
	setProcessGroup(cmd)
	dieWithKata(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout // the go command's own errors, as package output
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("checker: starting go test: %w (is Go installed and on PATH?)", err)
	}
	if err := limitBuild(cmd.Process.Pid, r.maxMemory); err != nil {
		killProcessGroup(cmd)
		_ = cmd.Wait()
		return nil, fmt.Errorf("checker: bounding the build: %w", err)
	}
	res := &runResult{s: newStream(), mod: r.used}
	lines, quit := readLines(out)
	stopped, interrupted := r.watchBuild(ctx, cmd, lines, res)
	close(quit)
	_ = out.Close()
	waitErr := cmd.Wait()
	killProcessGroup(cmd) // whatever the go command left
	res.wallTime = time.Since(start)
	if interrupted != nil {
		return nil, interrupted
	}
	if stopped {
		return res, nil
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return nil, fmt.Errorf("checker: go test: %w", waitErr)
	}
	if waitErr != nil && !res.s.buildFailed {
		// The go command refused before compiling (no build-fail event):
		// what it said is the build's output.
		res.s.buildFailed = true
		res.s.buildOutput = append(res.s.buildOutput, res.s.pkgOutput...)
	}
	if res.s.buildFailed {
		r.nameWrittenFiles(res, cmd.Dir)
		return res, nil
	}
	if res.changed = r.changes(); len(res.changed) > 0 {
		return res, nil
	}
	r.toBinCache(key, bin)
	return nil, nil
}

// markBuilt records bin's hash: a run checks the binary is still what
// was built (inputsChanged).
func (r *run) markBuilt(bin string) error {
	sum, err := fileSum(bin)
	if err != nil {
		return fmt.Errorf("checker: the test binary: %w", err)
	}
	r.sums[bin] = sum
	return nil
}

// watchBuild reads the build's output (lines) into res until it ends,
// and stops the build (cmd's process group) when it prints or holds too
// much, runs out of buildAllowance, or ctx ends (interrupted).
func (r *run) watchBuild(ctx context.Context, cmd *exec.Cmd, lines <-chan []byte, res *runResult) (stopped bool, interrupted error) {
	deadline := time.NewTimer(buildAllowance)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				return stopped, nil
			}
			res.s.add(line)
			if r.maxOutput > 0 && res.s.outputBytes > r.maxOutput && !stopped {
				res.overOutput, stopped = true, true
				killProcessGroup(cmd)
			}
		case <-tick.C:
			if !stopped && r.maxMemory > 0 && memoryLimitEnforced && sandbox.MemoryOf(cmd.Process.Pid) > r.maxMemory {
				res.overMemory, stopped = true, true
				killProcessGroup(cmd)
			}
		case <-deadline.C:
			if !stopped {
				res.killed, stopped = "(build)", true
				killProcessGroup(cmd)
			}
		case <-ctx.Done():
			killProcessGroup(cmd)
			return true, ctx.Err()
		}
	}
}

// nameWrittenFiles rewrites the compiler's messages in res, which name
// the files the run wrote (the renamed hidden tests, the harness) where
// they are, in the run's directory (dir), whose name changes with every
// run: they name them where the package has them instead, and the
// learner's file by the learner's own path.
func (r *run) nameWrittenFiles(res *runResult, dir string) {
	written := map[string]string{}
	for dst, src := range r.overlay {
		if strings.HasPrefix(src, r.work+string(filepath.Separator)) {
			written[filepath.Clean(src)] = dst
		}
	}
	for base, snap := range r.snapshot {
		if abs, err := filepath.Abs(r.replace[base]); err == nil {
			written[filepath.Clean(snap)] = abs // the learner's own path
		}
	}
	for i, l := range res.s.buildOutput {
		if indent, abs, rest, ok := messageFile(l, dir); ok && written[abs] != "" {
			res.s.buildOutput[i] = indent + written[abs] + rest
		}
	}
}

// readLines reads r line by line into the channel it returns, until r
// ends or quit is closed.
func readLines(r io.Reader) (<-chan []byte, chan struct{}) {
	lines, quit := make(chan []byte), make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		for sc.Scan() {
			select {
			case lines <- slices.Clone(sc.Bytes()):
			case <-quit:
				return
			}
		}
		if sc.Err() != nil {
			// A line too long for the scanner (test2json splits long
			// lines, so only the go command itself could): keep reading,
			// or the writer would block and never exit.
			select {
			case lines <- []byte("kata: an output line longer than 4 MiB was left out"):
			case <-quit:
				return
			}
			_, _ = io.Copy(io.Discard, r)
		}
	}()
	return lines, quit
}

// raceExitCode is the status a race-enabled test binary exits with when
// it would have exited 0 but the race detector reported a race (GORACE's
// exitcode, which raceEnv sets).
const raceExitCode = 66

// raceEnv sets GORACE in env so that the race detector, in a binary built
// with it, writes its reports on standard error, where kata reads them,
// exits with raceExitCode after a race, and waits 50 ms, not its default
// second, before it exits: that wait is for reports still being written
// by other threads when main returns (a report takes well under a
// millisecond to write), and it was a third of a warm kata check and of
// every mutant's run. Whatever GORACE kata was given (runEnv passes it
// on), these come last, and the last setting of a flag wins.
func raceEnv(env []string) []string {
	const ours = "log_path=stderr exitcode=66 atexit_sleep_ms=50"
	out := slices.Clone(env)
	for i, kv := range out {
		if v, ok := strings.CutPrefix(kv, "GORACE="); ok {
			out[i] = "GORACE=" + strings.TrimSpace(v+" "+ours)
			return out
		}
	}
	return append(out, "GORACE="+ours)
}

// test2json is where the go command keeps test2json, which turns a test
// binary's output into go test -json's events, as go test would.
var test2json struct {
	sync.Mutex
	path string
}

// test2jsonPath finds test2json, building it if the toolchain has not
// yet (go tool -n), once.
func test2jsonPath(ctx context.Context, gotmp string) (string, error) {
	test2json.Lock()
	defer test2json.Unlock()
	if test2json.path != "" {
		if _, err := os.Stat(test2json.path); err == nil {
			return test2json.path, nil
		}
	}
	if err := os.MkdirAll(gotmp, 0o700); err != nil {
		return "", fmt.Errorf("checker: %w", err)
	}
	cmd := exec.CommandContext(ctx, "go", "tool", "-n", "test2json")
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GOTMPDIR="+gotmp)
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("checker: finding test2json (go tool -n test2json): %w (is Go installed and on PATH?)", err)
	}
	test2json.path = strings.TrimSpace(string(out))
	return test2json.path, nil
}

// sandboxed reports whether runs of the test binary are isolated: what
// the sandbox says (a variable, so that tests can run without it).
var sandboxed = func() bool {
	ok, _ := sandbox.Available()
	return ok
}

// sandboxNotice is said once per process.
var sandboxNotice sync.Once

// noticeSandbox says, once, on standard error, that there is no sandbox
// to grade in on this system, and why.
func noticeSandbox() {
	switch ok, why := sandbox.Available(); {
	case !ok:
		sandboxNotice.Do(func() {
			fmt.Fprintf(os.Stderr, "kata: no sandbox on this system (%s): student code runs with your permissions; see Appendix D\n", why)
		})
	case why != "":
		// A sandbox without part of itself (the seccomp filter): say what
		// it lacks, once, as for a missing sandbox.
		sandboxNotice.Do(func() {
			fmt.Fprintf(os.Stderr, "kata: the sandbox goes without part of itself on this system (%s); see Appendix D\n", why)
		})
	}
}

// fileSum returns the SHA-256 of a file's content.
func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// environ is the environment of a build. An isolated run's gets only what
// the go command needs, and a temporary directory of its own.
func (r *run) environ(tmp string) ([]string, error) {
	env := os.Environ()
	if r.isolate {
		env = scrubbed(env)
		dir := filepath.Join(tmp, "tmp")
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("checker: %w", err)
		}
		env = append(env, "TMPDIR="+dir)
		if runtime.GOOS == "windows" {
			env = append(env, "TMP="+dir, "TEMP="+dir)
		}
	}
	// The go command's own work directory goes in the run's: when a build
	// is killed, the go command cannot remove it, and kata's removal of
	// the run's directory does.
	gotmp := filepath.Join(tmp, "gotmp")
	if err := os.MkdirAll(gotmp, 0o700); err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	env = append(env, "GOTMPDIR="+gotmp)
	return append(env, "GOWORK=off", "GOFLAGS=", "GO111MODULE=on"), nil
}

// keptEnv are the variables an isolated run keeps: what the go command,
// the C compiler the race detector needs, and the operating system use.
var keptEnv = map[string]bool{
	// the system
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LC_ALL": true,
	"LC_CTYPE": true, "TZ": true, "XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true,
	// Windows
	"SYSTEMROOT": true, "SYSTEMDRIVE": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"USERPROFILE": true, "APPDATA": true, "LOCALAPPDATA": true, "PROGRAMDATA": true,
	"PROGRAMFILES": true, "NUMBER_OF_PROCESSORS": true, "PROCESSOR_ARCHITECTURE": true,
	// Go
	"GOROOT": true, "GOPATH": true, "GOCACHE": true, "GOMODCACHE": true, "GOENV": true,
	"GOTOOLCHAIN": true, "GOPROXY": true, "GOSUMDB": true, "GONOSUMDB": true, "GONOPROXY": true,
	"GOPRIVATE": true, "GOINSECURE": true, "GOTELEMETRY": true, "GOTELEMETRYDIR": true,
	"GOEXPERIMENT": true, "GODEBUG": true, "GOMAXPROCS": true, "GOAMD64": true, "GOARM": true,
	"GOARM64": true, "GO386": true, "GORISCV64": true, "GOPPC64": true, "GOMIPS": true, "GOMIPS64": true,
	// cgo, which -race needs
	"CC": true, "CXX": true, "CGO_ENABLED": true, "CGO_CFLAGS": true, "CGO_CPPFLAGS": true,
	"CGO_CXXFLAGS": true, "CGO_LDFLAGS": true, "PKG_CONFIG": true,
}

// scrubbed keeps the variables of env named in keptEnv.
func scrubbed(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if keptEnv[strings.ToUpper(name)] {
			out = append(out, kv)
		}
	}
	return out
}

// removeAll removes dir even if the code under test took the write
// permission away from something in it.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}
