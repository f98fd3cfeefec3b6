package grade

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunsCatchWhatPassesOnce grades lesson 03 with --runs 3 where the
// first run passes and the second fails, like a race that passes once by
// luck: graded once the lesson gets full marks; with three runs it gets
// none, every test says in how many runs it failed, and a lesson whose
// every test has failed is not run a third time.
//
// The runs are real gradings, of a correct file and of one that crashes:
// a file that passes in one process and fails in the next needs state
// that outlives a run, which the vetter (no os, no init) and the sandbox
// (nothing written outside the run survives it) both take away.
func TestRunsCatchWhatPassesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("grades lesson 03 twice; run without -short")
	}
	l := lesson(t, "03-globrunqget")
	dir := t.TempDir()
	write := func(name string, src []byte) map[string]string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, src, 0o644))
		return map[string]string{"globrunq.go": p}
	}
	good := write("good.go", ref(t, "globrunq.go"))
	crash := ref(t, "globrunq.go")
	for _, fn := range []string{"globrunqput(gp *g)", "globrunqputhead(gp *g)", "globrunqputbatch(batch *gQueue)", "globrunqget() *g", "globrunqgetbatch(n int32) (gp *g, q gQueue)"} {
		head := "func (sched *schedt) " + fn + " {"
		crash = edit(t, crash, head, head+"\n\tpanic(\"the second run goes wrong\")")
	}
	bad := write("bad.go", crash)

	g, err := New(Options{CacheDir: cacheDir(t), Lessons: []string{l.ID}, Jobs: 1, NoRace: true, Runs: 3})
	require.NoError(t, err)
	ctx := context.Background()
	pass, fail := g.ck.Lesson(ctx, l, good), g.ck.Lesson(ctx, l, bad)
	require.Equal(t, pass.MaxScore, pass.Score, "the reference: %s", pass.Error)
	for _, tr := range fail.Tests {
		require.NotEqual(t, checker.StatusPass, tr.Status, "%s passes with every function of globrunq.go crashing", tr.Name)
	}

	// The runs in the order given, each a copy (repeat edits what it gets).
	runs := func(results ...*checker.LessonResult) (*checker.LessonResult, int) {
		calls := 0
		res := g.repeatRuns(ctx, func() *checker.LessonResult {
			r := *results[calls]
			r.Tests = slices.Clone(r.Tests)
			calls++
			return &r
		})
		return res, calls
	}

	res, calls := runs(pass, pass, pass)
	assert.Equal(t, 3, calls, "a lesson that passes is graded three times")
	assert.Equal(t, res.MaxScore, res.Score, "passing three times is full marks")
	assert.Equal(t, checker.StatusPass, res.Status)

	res, calls = runs(pass, fail, pass)
	assert.Equal(t, 2, calls, "a lesson whose every test has failed is not run a third time")
	assert.Zero(t, res.Score, "graded three times, the second run fails every test")
	assert.Equal(t, checker.StatusFail, res.Status)
	for i, tr := range res.Tests {
		assert.Equal(t, "failed in 1 of 2 runs: "+fail.Tests[i].Message, tr.Message, "each test says how often it failed, and the failing run's message")
	}
	assert.Contains(t, res.Tests[0].Message, "the second run goes wrong")
}
