package checker

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A run is one `go test` of the grading module with some files replaced by
// the learner's and some hidden tests added.
type run struct {
	mod      *module
	replace  map[string]string // base name in solutions/ → the learner's file
	hidden   []string          // lesson IDs whose hidden tests to add
	tests    []string          // the tests to run, in order
	timeouts map[string]time.Duration
	race     bool
	// maxOutput bounds what the tests may print, in bytes; past it the run
	// is killed.
	maxOutput int
}

// runResult is what a run found out.
type runResult struct {
	s *stream
	// killed names the test that ran past its time limit, "" if none;
	// overOutput says the run printed more than maxOutput.
	killed     string
	overOutput bool
	wallTime   time.Duration
}

// overlay writes the -overlay file: the learner's files over the
// reference's, and the hidden tests added to the package.
func (r *run) overlay(dir string) (string, error) {
	replace := map[string]string{}
	for base, learner := range r.replace {
		abs, err := filepath.Abs(learner)
		if err != nil {
			return "", err
		}
		replace[filepath.Join(r.mod.pkgDir, base)] = abs
	}
	add := func(srcDir, prefix string) error {
		entries, err := os.ReadDir(srcDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), "_test.go") {
				replace[filepath.Join(r.mod.pkgDir, prefix+e.Name())] = filepath.Join(srcDir, e.Name())
			}
		}
		return nil
	}
	if err := add(filepath.Join(r.mod.hidden, "kit"), "zz_kit_"); err != nil {
		return "", fmt.Errorf("checker: hidden test kit: %w", err)
	}
	for _, id := range r.hidden {
		if err := add(filepath.Join(r.mod.hidden, id), "zz_"+strings.ReplaceAll(id, "-", "_")+"_"); err != nil {
			return "", fmt.Errorf("checker: hidden tests of %s: %w", id, err)
		}
	}
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	f := filepath.Join(dir, "overlay.json")
	return f, os.WriteFile(f, data, 0o644)
}

// exec runs `go test` once for the given tests and folds its output. A test
// that runs past its limit, or output past maxOutput, kills the whole
// process group.
func (r *run) exec(ctx context.Context, tests []string) (*runResult, error) {
	tmp, err := os.MkdirTemp("", "kata-run-")
	if err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	defer os.RemoveAll(tmp)
	overlay, err := r.overlay(tmp)
	if err != nil {
		return nil, err
	}
	var total time.Duration
	for _, t := range tests {
		total += r.timeouts[t]
	}
	total += buildAllowance
	args := []string{"test", "-overlay", overlay, "-json", "-count=1", "-p=1",
		"-timeout", total.String(), "-run", "^(" + strings.Join(tests, "|") + ")$"}
	if r.race {
		args = append(args, "-race")
	}
	args = append(args, "./solutions")

	ctx, cancel := context.WithTimeout(ctx, total+30*time.Second)
	defer cancel()
	cmd := exec.Command("go", args...)
	cmd.Dir = r.mod.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GO111MODULE=on")
	setProcessGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout // the go command's own errors, as package output
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("checker: starting go test: %w (is Go installed and on PATH?)", err)
	}

	res := &runResult{s: newStream()}
	lines := make(chan []byte)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		for sc.Scan() {
			lines <- slices.Clone(sc.Bytes())
		}
		close(lines)
	}()

	var deadline time.Time
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	kill := func() {
		killProcessGroup(cmd)
	}
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break loop
			}
			before := res.s.running
			res.s.add(line)
			if res.s.running != before && res.s.running != "" {
				deadline = time.Now().Add(r.timeouts[res.s.running])
			}
			if r.maxOutput > 0 && res.s.outputBytes > r.maxOutput && !res.overOutput {
				res.overOutput = true
				kill()
			}
		case <-tick.C:
			if res.s.running != "" && !deadline.IsZero() && time.Now().After(deadline) && res.killed == "" {
				res.killed = res.s.running
				kill()
			}
		case <-ctx.Done():
			if res.killed == "" {
				res.killed = res.s.running
				if res.killed == "" {
					res.killed = "(build)"
				}
			}
			kill()
			// Drain what is left so the reader goroutine can finish.
			for range lines {
			}
			break loop
		}
	}
	waitErr := cmd.Wait()
	res.wallTime = time.Since(start)
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return nil, fmt.Errorf("checker: go test: %w", waitErr)
	}
	return res, nil
}

// buildAllowance is the time a run may take beyond its tests' limits:
// compiling (with -race) and linking the test binary.
const buildAllowance = 3 * time.Minute
