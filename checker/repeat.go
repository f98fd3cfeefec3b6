package checker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/buildtag"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// Repeat runs the hidden tests of ls on the reference, n times each, and
// returns the tests that failed at least once with their failure counts. A
// hidden test that ever fails on the reference is a flaky test: it would
// fail a correct learner.
//
// The test binary is built once; the n runs are shared between as many
// processes as the machine has CPUs (repeatShares), run at once: one
// process runs the tests one after the other and leaves the other cores
// mostly idle, and a flaky test shows up under load at least as often.
func (c *Checker) Repeat(ctx context.Context, ls []*lessons.Lesson, n int) (map[string]int, error) {
	r := &run{mod: c.mod, replace: map[string]string{}, race: !c.opts.NoRace, timeouts: map[string]time.Duration{}}
	var names []string
	var total time.Duration
	for _, l := range ls {
		r.hidden = append(r.hidden, l.ID)
		for _, t := range l.Tests {
			names = append(names, t.Name)
			total += t.Timeout * 3
		}
	}
	tmp, err := os.MkdirTemp("", "kata-repeat-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin, err := c.buildRepeat(ctx, r, tmp)
	if err != nil {
		return nil, err
	}
	shares := repeatShares(n, runtime.NumCPU())
	outs := make([][]byte, len(shares))
	var wg sync.WaitGroup
	for i, k := range shares {
		wg.Add(1)
		go func() {
			defer wg.Done()
			limit := total * time.Duration(k)
			// The tests run as they are graded: renamed, under the
			// harness (which here reports nothing), in the package's
			// directory, as go test runs them.
			cmd := exec.CommandContext(ctx, "go", "tool", "test2json", "-t", bin, "-test.v=test2json",
				fmt.Sprintf("-test.count=%d", k), "-test.timeout="+limit.String(),
				"-test.run=^("+strings.Join(names, "|")+")$")
			cmd.Dir = filepath.Join(c.mod.dir, "solutions")
			cmd.Env = raceEnv(os.Environ())
			outs[i], _ = cmd.Output()
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fails := map[string]int{}
	passes := 0
	for _, out := range outs {
		for _, line := range strings.Split(string(out), "\n") {
			s := newStream()
			s.add([]byte(line))
			for name, o := range s.tests {
				if !o.finished || strings.Contains(name, "/") {
					continue
				}
				switch o.action {
				case "fail":
					fails[name]++
				case "pass":
					passes++
				}
			}
		}
	}
	if want := len(names) * n; passes+sum(fails) != want {
		return fails, fmt.Errorf("checker: %d of %d test runs reported (the test binary died?)", passes+sum(fails), want)
	}
	return fails, nil
}

// buildRepeat builds, in dir, the test binary of r's hidden tests on the
// reference, as they are graded: renamed, under the harness.
func (c *Checker) buildRepeat(ctx context.Context, r *run, dir string) (bin string, err error) {
	replace, err := r.makeOverlay(c.mod, dir, harnessID(c.key, nil, r.hidden), false)
	if err != nil {
		return "", err
	}
	overlay, err := saveOverlay(dir, replace)
	if err != nil {
		return "", err
	}
	bin = filepath.Join(dir, "repeat.test")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	args := append([]string{"test", "-c", "-o", bin, "-overlay", overlay}, buildtag.GoArgs()...)
	if r.race {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./solutions")...)
	cmd.Dir = c.mod.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("checker: the reference with the hidden tests does not compile: %v\n%s", err, out)
	}
	return bin, nil
}

// repeatShares splits n runs between at most cpus processes, as evenly as
// it can: 12 runs on 2 CPUs are 6 and 6.
func repeatShares(n, cpus int) []int {
	p := max(1, min(n, cpus))
	shares := make([]int, p)
	for i := range shares {
		shares[i] = n / p
		if i < n%p {
			shares[i]++
		}
	}
	return shares
}

func sum(m map[string]int) int {
	total := 0
	for _, v := range m {
		total += v
	}
	return total
}
