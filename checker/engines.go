package checker

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// This file is what the engines that build programs of their own in the
// grading module use of it: kata bench's (package checker/bench) and kata
// trace's (checker/trace), through the build and run they share
// (checker/program). They import this package; it imports none of them.
// The grader itself uses none of these exports: its build and runs are
// run.go's, with the harness, the sandbox and the limits a grade must
// have, which a program that times or draws the learner's code on the
// learner's machine goes without.

// ModuleDirs says where the grading module is on disk.
type ModuleDirs struct {
	// Root is the module's root (module gmpkata.grade): the go command
	// runs there.
	Root string
	// Package is Root/solutions, the reference scheduler: a learner's
	// file replaces the file of the same base name in it.
	Package string
	// Kit is the directory of the hidden tests' kit (its *_test.go
	// files), which the lessons' benchmarks use too.
	Kit string
}

// WriteOverlay writes a go build -overlay file at path mapping each path
// of the grading module to the file to use instead, and returns path. The
// grader's runs and the engines' programs all write theirs with it.
func WriteOverlay(path string, replace map[string]string) (string, error) {
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o644)
}

// ModuleDirs returns where c's grading module is.
func (c *Checker) ModuleDirs() ModuleDirs {
	return ModuleDirs{Root: c.mod.dir, Package: c.mod.pkgDir, Kit: filepath.Join(c.mod.hidden, "kit")}
}

// Registry returns the lessons c grades (Options.Registry).
func (c *Checker) Registry() *lessons.Registry {
	return c.reg
}

// BuildAllowance is the time a build in the grading module may take
// (compiling and linking), whatever it builds.
func BuildAllowance() time.Duration {
	return buildAllowance
}

// CompileErrors rewrites the go command's output for a build in c's
// grading module so that it names the learner's files (files: base name in
// solutions/ → the learner's path) as the learner knows them, and the
// others as reference files or hidden tests; first error first.
func (c *Checker) CompileErrors(lines []string, files map[string]string) []string {
	return c.compileErrors(lines, files)
}

// CondensePanic finds a panic in the output of a program built in c's
// grading module — a crash ("panic:", "fatal error:") or a G's panic that
// Runtime.Wait returned ("panic in G 3: ...", with its stack) — and
// condenses it for the learner: the panic line, then the scheduler's
// frames below the panic, each named by the file the learner knows
// (files as CompileErrors takes them). It returns nil if there is no
// panic.
func (c *Checker) CondensePanic(lines []string, files map[string]string) []string {
	start := -1
	var head string
	for i, l := range lines {
		// A crash in a benchmark that has already printed its name
		// continues that name's line: "BenchmarkL04Steal/sched-2 \tpanic: ...".
		t := strings.TrimSpace(benchNamePrefix.ReplaceAllString(TrimLocation(l), ""))
		if strings.HasPrefix(t, "panic:") || strings.HasPrefix(t, "fatal error:") || panicInG.MatchString(t) {
			start, head = i, t
			break
		}
	}
	if start < 0 {
		return nil
	}
	if m := panicInG.FindStringSubmatch(head); m != nil {
		head = "panic: " + m[2] + " (in G " + m[1] + ")"
	}
	rest := lines[start+1:]
	// Skip the frames of a recovery (debug.Stack and gpanic for a G's
	// panic, testing's tRunner for a re-panic): in the panicking
	// goroutine's stack, the frames that matter start below the call of
	// panic, if there is one.
	inStack := false
	for i, l := range rest {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "goroutine ") {
			inStack = true
		} else if inStack && t == "" {
			break // the end of the first goroutine's stack
		}
		if strings.HasPrefix(t, "panic(") {
			rest = rest[i+1:]
			break
		}
	}
	return c.summarizePanic(append([]string{head}, rest...), files)
}

// benchNamePrefix is a benchmark's name as the testing package prints it
// before the benchmark runs, with no newline until it reports.
var benchNamePrefix = regexp.MustCompile(`^Benchmark\S*\s+`)

// panicInG is how a *sched.PanicError starts.
var panicInG = regexp.MustCompile(`^panic in G (\d+): (.*)$`)

// TrimLocation removes the file:line a test's (or a benchmark's) t.Error
// output starts with: the hidden test's own location, which means nothing
// to the learner.
func TrimLocation(line string) string {
	return locationPrefix.ReplaceAllString(line, "")
}

// Tail is the last n lines of a program's output that say something: the
// go command's and the testing package's own closing lines (FAIL, exit
// status, ok, PASS) and blank lines left out.
func Tail(lines []string, n int) string {
	return tail(lines, n)
}

// StartKillable runs cmd in a process group of its own and waits for it;
// when ctx is done first, the whole group is killed (on Windows, the
// process tree).
func StartKillable(ctx context.Context, cmd *exec.Cmd) error {
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
