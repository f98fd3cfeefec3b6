package program

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gmp-kata/gmp-kata/checker"
)

// A CodeFailure is the learner's code failing under kata bench or kata
// trace: it does not compile, panics, gives a wrong result or hangs. It is
// the learner's to fix, unlike the engines' other errors, which mean kata
// could not do its job.
type CodeFailure struct {
	Lesson  string   // the lesson whose files failed, "" if several
	Problem string   // what went wrong, one line, for the learner
	Details []string // compiler errors, or the condensed panic or failure
}

func (e *CodeFailure) Error() string {
	var b strings.Builder
	if e.Lesson != "" {
		fmt.Fprintf(&b, "lesson %s is not passing yet: ", e.Lesson)
	}
	b.WriteString(e.Problem)
	if len(e.Details) > 0 {
		b.WriteString(":\n    " + strings.Join(e.Details, "\n    "))
	}
	if e.Lesson != "" {
		fmt.Fprintf(&b, "\nrun 'kata check %s' first", e.Lesson[:2])
	}
	return b.String()
}

// CompileFailure is the failure of a build that the learner's files
// (files: base name in solutions/ → the learner's path) broke: the
// compiler's first errors (out is the go command's output), naming the
// learner's files as the learner knows them.
func CompileFailure(c *checker.Checker, lesson string, out []byte, files map[string]string) *CodeFailure {
	errs := c.CompileErrors(strings.Split(strings.TrimRight(string(out), "\n"), "\n"), files)
	return &CodeFailure{Lesson: lesson, Problem: "your code does not compile", Details: FirstN(errs, 10)}
}

// LearnerOverlay lays files (base name in solutions/ → the learner's
// path) over the grading module's package: the -overlay replacements,
// path in the module → absolute path of the file to read instead. An
// engine adds its own files to the map before writing it.
func LearnerOverlay(dirs checker.ModuleDirs, files map[string]string) (map[string]string, error) {
	ov := map[string]string{}
	for base, p := range files {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, err
		}
		ov[filepath.Join(dirs.Package, base)] = abs
	}
	return ov, nil
}

// Go runs the go command with args in the grading module, within
// checker.BuildAllowance, and returns its combined output. A failed build
// is an *exec.ExitError. A build stopped, whatever the go command's exit
// said, is an error that wraps context.DeadlineExceeded when the
// allowance ran out, or ctx's cause when ctx ended. Any other error is a
// go command that could not run.
func Go(ctx context.Context, dirs checker.ModuleDirs, args ...string) ([]byte, error) {
	buildCtx, cancel := context.WithTimeout(ctx, checker.BuildAllowance())
	defer cancel()
	cmd := exec.Command("go", args...)
	cmd.Dir = dirs.Root
	// Module mode, no workspace, none of the user's GOFLAGS: the grading
	// module builds alike everywhere.
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GO111MODULE=on")
	out, err := Run(buildCtx, cmd)
	switch {
	// Killed: the exit status of a killed go command says nothing of the
	// code it was building.
	case err != nil && ctx.Err() != nil:
		return out, fmt.Errorf("go %s stopped: %w", args[0], context.Cause(ctx))
	case err != nil && buildCtx.Err() != nil:
		return out, fmt.Errorf("go %s took more than %s: %w", args[0], checker.BuildAllowance(), context.DeadlineExceeded)
	}
	return out, err
}

// Run runs cmd in a process group of its own and returns its combined
// output, the first 16 MiB of it; when ctx is done, the whole group is
// killed.
func Run(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	out := &CappedBuffer{Max: 16 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	err := checker.StartKillable(ctx, cmd)
	return out.Bytes(), err
}

// CappedBuffer keeps the first Max bytes written to it and drops the
// rest, so that a program printing without end cannot exhaust memory.
// Over says it dropped some.
type CappedBuffer struct {
	bytes.Buffer
	Max  int
	Over bool
}

func (b *CappedBuffer) Write(p []byte) (int, error) {
	if room := b.Max - b.Len(); room < len(p) {
		b.Over = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// FirstN is lines, or its first n and how many more there are.
func FirstN(lines []string, n int) []string {
	if len(lines) > n {
		return append(slices.Clone(lines[:n]), fmt.Sprintf("... and %d more", len(lines)-n))
	}
	return lines
}
