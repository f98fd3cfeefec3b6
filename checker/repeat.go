package checker

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/buildtag"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// Repeat runs the hidden tests of ls on the reference, n times each, in one
// go test -count=n, and returns the tests that failed at least once with
// their failure counts. A hidden test that ever fails on the reference is a
// flaky test: it would fail a correct learner.
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
	// The tests run as they are graded: renamed, under the harness (which
	// here reports nothing).
	replace, err := r.makeOverlay(c.mod, tmp, harnessID(c.key, nil, r.hidden), false)
	if err != nil {
		return nil, err
	}
	overlay, err := saveOverlay(tmp, replace)
	if err != nil {
		return nil, err
	}
	limit := total*time.Duration(n) + buildAllowance
	args := []string{"test", "-overlay", overlay, "-json", fmt.Sprintf("-count=%d", n),
		"-timeout", limit.String(), "-run", "^(" + strings.Join(names, "|") + ")$"}
	args = append(args, buildtag.GoArgs()...)
	if r.race {
		args = append(args, "-race")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./solutions")...)
	cmd.Dir = c.mod.dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	out, _ := cmd.Output()
	fails := map[string]int{}
	passes := 0
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
		if s.buildFailed {
			return nil, fmt.Errorf("checker: the reference with the hidden tests does not compile: %s", strings.Join(s.buildOutput, "\n"))
		}
	}
	if want := len(names) * n; passes+sum(fails) != want {
		return fails, fmt.Errorf("checker: %d of %d test runs reported (the test binary died?)", passes+sum(fails), want)
	}
	return fails, nil
}

func sum(m map[string]int) int {
	total := 0
	for _, v := range m {
		total += v
	}
	return total
}
