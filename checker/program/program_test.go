package program

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/internal/checkertest"
)

func TestMain(m *testing.M) { checkertest.Main(m) }

// TestGoStoppedIsNotABuildFailure: a build killed when its time is up
// exits as a failed build would (an *exec.ExitError, "signal: killed"),
// and would be read as the learner's code not compiling. Go says it was
// stopped instead.
func TestGoStoppedIsNotABuildFailure(t *testing.T) {
	dirs := checkertest.Checker(t).ModuleDirs()
	// -a rebuilds the standard library too: far longer than the limit.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	out, err := Go(ctx, dirs, "build", "-a", "-o", os.DevNull, "./solutions")
	t.Logf("after %s: %v", time.Since(start).Round(time.Millisecond), err)
	var exitErr *exec.ExitError
	if !errors.Is(err, context.DeadlineExceeded) || errors.As(err, &exitErr) {
		t.Fatalf("Go stopped at its deadline returned %v (output %q), want an error wrapping context.DeadlineExceeded and no *exec.ExitError", err, out)
	}
}

// TestGoBuildFailure: a build that fails is an *exec.ExitError, with the
// compiler's message in the output.
func TestGoBuildFailure(t *testing.T) {
	c := checkertest.Checker(t)
	dirs := c.ModuleDirs()
	files := checkertest.LessonFile(t, "runq.go", []byte("package sched\n\nfunc runqlen(oops) {}\n"))
	ov, err := LearnerOverlay(dirs, files)
	if err != nil {
		t.Fatal(err)
	}
	overlay, err := checker.WriteOverlay(t.TempDir()+"/overlay.json", ov)
	if err != nil {
		t.Fatal(err)
	}
	out, err := Go(context.Background(), dirs, "build", "-overlay", overlay, "-o", os.DevNull, "./solutions")
	var exitErr *exec.ExitError
	if !errors.As(err, &exitErr) {
		t.Fatalf("a build of a file that does not compile returned %v, want an *exec.ExitError", err)
	}
	cf := CompileFailure(c, "01-ringbuffer", out, files)
	if len(cf.Details) == 0 || !strings.HasPrefix(cf.Details[0], files["runq.go"]+":") {
		t.Errorf("CompileFailure = %+v, want the compiler's errors, the first naming the learner's %s", cf, files["runq.go"])
	}
}

func TestCappedBuffer(t *testing.T) {
	b := &CappedBuffer{Max: 10}
	for _, s := range []string{"hello", " world", "!"} {
		if n, err := b.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v: want all of it taken, no error (the writer must not stop)", s, n, err)
		}
	}
	if b.String() != "hello worl" || !b.Over {
		t.Errorf("after 12 bytes into 10: %q, over %v; want the first 10 and over", b.String(), b.Over)
	}
}
