package grade

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunsCatchWhatPassesOnce grades lesson 01 in a test binary that
// passes in the first process it runs in and crashes in the second, like a
// race that passes once by luck. Graded once it gets full marks; with
// --runs 3 it gets none, and every test says in how many runs it failed.
//
// The flakiness lives in an instructor's test pack, not in the submission:
// a lesson file may not keep state across processes (the vetter refuses
// os and init), but pack tests are the instructor's own code.
func TestRunsCatchWhatPassesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("grades lesson 01 three times; run without -short")
	}
	// Graded code does not get the grader's environment, so the counter's
	// path is written into the pack's test file.
	counter := filepath.Join(t.TempDir(), "processes")
	packDir := writePack(t, t.TempDir(), map[string]string{
		"01-ringbuffer/tests.json": `{"tests": [{"name": "TestPackL01Counted", "points": 5, "timeout": "10s"}]}`,
		"01-ringbuffer/counted_test.go": `package sched

import (
	"os"
	"strconv"
	"testing"
)

// Counts the test processes it starts in; the second one crashes.
func init() {
	path := ` + strconv.Quote(counter) + `
	data, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(string(data))
	_ = os.WriteFile(path, []byte(strconv.Itoa(n+1)), 0o644)
	if n == 1 {
		panic("the second run goes wrong")
	}
}

func TestPackL01Counted(t *testing.T) {}
`,
	})
	pack, err := LoadPack(packDir, lessons.Default)
	require.NoError(t, err)
	class := t.TempDir()
	workspace(t, filepath.Join(class, "flaky"), map[string][]byte{"runq.go": ref(t, "runq.go")})

	grade := func(runs int) (score, max int, reasons []string) {
		t.Helper()
		require.NoError(t, os.WriteFile(counter, []byte("0"), 0o644))
		rep, _ := gradeClass(t, Options{CacheDir: cacheDir(t), Lessons: []string{"01-ringbuffer"}, Pack: pack, Jobs: 1, NoRace: true, Runs: runs}, class)
		require.Len(t, rep.Students, 1)
		lg := rep.Students[0].Lessons[0]
		for _, tg := range lg.Tests {
			reasons = append(reasons, tg.Name+": "+tg.Reason)
		}
		return lg.Score, lg.MaxScore, reasons
	}

	score, max, reasons := grade(1)
	require.Equal(t, max, score, "graded once, the first process passes everything:\n%s", strings.Join(reasons, "\n"))
	data, err := os.ReadFile(counter)
	require.NoError(t, err)
	require.Equal(t, "1", string(data), "one grading of a lesson that passes starts one test process")

	score, _, reasons = grade(3)
	assert.Zero(t, score, "graded three times, the second run fails every test")
	require.NotEmpty(t, reasons)
	for _, r := range reasons {
		assert.Contains(t, r, "the second run goes wrong", "the failing run's message")
		assert.Contains(t, r, ": failed in 1 of 2 runs: ", "a lesson whose every test has failed is not run a third time, and each test says how often it failed")
	}
}
