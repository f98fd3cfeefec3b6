package grade

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stopAfter cancels a grading once n runs have finished: a grader killed
// half-way.
type stopAfter struct {
	n      int
	cancel context.CancelFunc
}

func (s *stopAfter) Update(st Status, _ []report.Student) {
	if st.RunsDone >= s.n {
		s.cancel()
	}
}
func (s *stopAfter) Finish(Status) {}

func cached(t *testing.T, dir string) int {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(dir, "grades", "*", "*.json"))
	require.NoError(t, err)
	return len(entries)
}

// TestResumeGivesTheSameReport stops a grading after its first run, grades
// again, and compares with a grading that was never stopped: the same
// report, and what was finished before the stop is not graded again.
func TestResumeGivesTheSameReport(t *testing.T) {
	class := t.TempDir()
	workspace(t, filepath.Join(class, "ada"), nil)
	workspace(t, filepath.Join(class, "ben"), mutant(t, "01-ringbuffer", "grab-takes-all"))
	workspace(t, filepath.Join(class, "dee"), nil) // identical to ada: graded once
	grade := func(cache string, progress func(context.CancelFunc) Progress) (*report.Report, Stats, error) {
		// Without the race detector: what is resumed is the point, and
		// the race build and runs cost most of the time of each of the
		// test's four gradings (TestHostileCorpus grades with it).
		g, err := New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}, Jobs: 1, NoRace: true})
		require.NoError(t, err)
		subs, err := (&Finder{LessonFiles: g.LessonFiles()}).Find([]string{class})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		var p Progress
		if progress != nil {
			p = progress(cancel)
		}
		return g.Grade(ctx, subs, p)
	}

	cache := t.TempDir()
	_, stopped, err := grade(cache, func(cancel context.CancelFunc) Progress { return &stopAfter{n: 1, cancel: cancel} })
	require.True(t, errors.Is(err, context.Canceled), "want the grading stopped, got %v", err)
	assert.Equal(t, 2, stopped.Planned, "3 submissions, 2 different runq.go")
	assert.Equal(t, 1, stopped.Runs)
	kept := cached(t, cache)
	assert.Equal(t, 1, kept, "the finished grade is kept; the one stopped half-way is not")

	resumed, stats, err := grade(cache, nil)
	require.NoError(t, err)
	assert.Equal(t, kept, stats.Cached, "what was finished is not graded again")
	assert.Equal(t, 2-kept, stats.Runs)
	assert.Equal(t, 1, stats.Shared)

	whole, _, err := grade(t.TempDir(), nil)
	require.NoError(t, err)
	assert.Equal(t, whole, resumed, "a stopped and resumed grading must give the report of one never stopped")
	var a, b []byte
	for _, r := range []struct {
		rep *report.Report
		out *[]byte
	}{{whole, &a}, {resumed, &b}} {
		var buf writerBuf
		require.NoError(t, report.Write(&buf, "json", r.rep))
		*r.out = buf.b
	}
	assert.Equal(t, string(a), string(b), "byte for byte")
}

type writerBuf struct{ b []byte }

func (w *writerBuf) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
