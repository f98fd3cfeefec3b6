package checker

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// lessonFile writes src as the learner's file name in a fresh directory,
// as a workspace holds it, and returns the files map a Checker takes.
func lessonFile(t *testing.T, name string, src []byte) map[string]string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return map[string]string{name: p}
}

// embedded is a file of kata's own sources (gmpkata.Sources): the
// reference's or the skeleton's.
// runqSource is the reference's runq.go as the tests that edit it were
// written against: with the import of sync/atomic it had, at the line it
// had (the third), before the ring's slots were atomicRingSlot; a blank
// alias at the end uses it. They add imports and atomics beside it.
func runqSource(t *testing.T) string {
	return withAtomicImport(t, embedded(t, "solutions/runq.go"))
}

// withAtomicImport is runqSource for any file of runq.go's shape (the
// skeleton's).
func withAtomicImport(t *testing.T, src []byte) string {
	t.Helper()
	const pkg = "package sched\n\n"
	if !strings.HasPrefix(string(src), pkg) || strings.Contains(string(src), `import "sync/atomic"`) {
		t.Fatalf("runq.go does not start with %q, or imports sync/atomic already: has the reference changed?", pkg)
	}
	return pkg + "import \"sync/atomic\"\n\n" + string(src[len(pkg):]) + "\ntype _ = atomic.Bool\n"
}

func embedded(t *testing.T, path string) []byte {
	t.Helper()
	data, err := fs.ReadFile(gmpkata.Sources, path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func lesson(t *testing.T, id string) *lessons.Lesson {
	t.Helper()
	l, err := lessons.Default.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// execOne is one run of r's test binary for tests (run.exec of one batch).
func execOne(r *run, tests []string) (*runResult, error) {
	rrs, err := r.exec(context.Background(), tests)
	if err != nil {
		return nil, err
	}
	return rrs[0], nil
}

// gradeSched grades src as the sched.go of l with c, in one real go test
// run, and fails t if it could not be graded or did not compile.
func gradeSched(t *testing.T, c *Checker, l *lessons.Lesson, src string) *LessonResult {
	t.Helper()
	r, err := c.newRun(lessonFile(t, "sched.go", []byte(src)), []*lessons.Lesson{l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.cleanup)
	res := c.gradeRun(context.Background(), l.ID, l.Title, r, []*lessons.Lesson{l})
	if res.Status == StatusError || res.NotCompiled {
		t.Fatalf("%s: %s %q", res.Status, res.Error, res.CompileErrors)
	}
	return res
}
