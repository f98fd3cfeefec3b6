package grade

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/gmp-kata/gmp-kata/checker/proclimit"
)

// Running git within limits: its memory and CPU time (package proclimit,
// on Linux), what kata reads of its output, and its time (gitTimeout).

// maxGitStderr bounds what kata keeps of a git's error output.
const maxGitStderr = 64 << 10

// git returns the limits each git of a repository read within lim runs
// under: lim's, or DefaultLimits' where lim leaves them 0.
func (lim Limits) git() proclimit.Limits {
	out := proclimit.Limits{Memory: lim.GitMemory, CPU: lim.GitCPU}
	if out.Memory <= 0 {
		out.Memory = DefaultLimits.GitMemory
	}
	if out.CPU <= 0 {
		out.CPU = DefaultLimits.GitCPU
	}
	out.Address = out.Memory + proclimit.AddressSlack
	return out
}

// A gitLimitError says that git was stopped by one of its limits: the
// repository, not kata, is at fault.
type gitLimitError struct{ msg string }

func (e *gitLimitError) Error() string { return e.msg }

// start starts cmd and sets its limits; a git whose limits could not be
// set is killed, not run unbounded.
func (r *gitRepo) start(cmd *exec.Cmd) error {
	err := proclimit.Start(cmd, r.limits)
	var limit *proclimit.Error
	if errors.As(err, &limit) {
		return fmt.Errorf("kata could not limit git's memory (%v), so it did not read the repository", err)
	}
	return err
}

// wait waits for cmd and notes the memory it reached.
func (r *gitRepo) wait(cmd *exec.Cmd) error {
	err := cmd.Wait()
	r.peak = max(r.peak, proclimit.Peak(cmd.ProcessState))
	return err
}

// output runs cmd, as cmd.Output does, reading at most max bytes of its
// output: a git that writes more is stopped and refused.
func (r *gitRepo) output(cmd *exec.Cmd, max int64) ([]byte, error) {
	out := &cappedBuffer{max: max}
	stderr := &cappedBuffer{max: maxGitStderr}
	cmd.Stdout, cmd.Stderr = out, stderr
	if err := r.start(cmd); err != nil {
		return nil, err
	}
	err := r.wait(cmd)
	switch {
	case out.over:
		return nil, fmt.Errorf("git wrote more than %d bytes, more than it does for any repository kata reads", max)
	case err != nil:
		if lerr := r.overLimit(cmd, stderr.String()); lerr != nil {
			return nil, lerr
		}
		return nil, fmt.Errorf("git: %v: %s", err, strings.TrimSpace(stderr.String()))
	}
	return out.b, nil
}

// overLimit says, if cmd (waited for) failed for lack of memory or of CPU
// time, which: its error output names the memory (git's "Out of memory,
// malloc failed", "mmap failed: Cannot allocate memory"), its end the
// CPU time. Otherwise it returns nil.
func (r *gitRepo) overLimit(cmd *exec.Cmd, stderr string) error {
	switch {
	case strings.Contains(stderr, "Out of memory") || strings.Contains(stderr, "Cannot allocate memory") ||
		strings.Contains(stderr, "malloc failed"):
		return &gitLimitError{fmt.Sprintf("reading it takes git more than the %d MiB of memory kata gives it: an object in it inflates to more than that (a tree or a file built to, not a workspace's); submit the workspace's files, or a repository of them",
			r.limits.Memory>>20)}
	case proclimit.OverCPU(cmd.ProcessState, r.limits):
		return &gitLimitError{fmt.Sprintf("reading it takes git more than the %v of CPU time kata gives it (a workspace's takes milliseconds); submit the workspace's files, or a repository of them", r.limits.CPU)}
	}
	return nil
}

// cappedBuffer keeps at most max bytes written to it; past that, a write
// fails (the process writing is cut off) and over is set.
type cappedBuffer struct {
	b    []byte
	max  int64
	over bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if int64(len(c.b))+int64(len(p)) > c.max {
		c.over = true
		c.b = append(c.b, p[:c.max-int64(len(c.b))]...)
		return 0, errTooMuch
	}
	c.b = append(c.b, p...)
	return len(p), nil
}

func (c *cappedBuffer) String() string { return string(c.b) }
