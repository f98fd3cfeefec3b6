package grade

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRunsCatchWhatPassesOnce grades a submission that passes lesson 01 in
// the first test process it runs in and crashes in the second, like a race
// that passes once by luck. Graded once it gets full marks; with --runs 3
// it gets none, and every test says in how many runs it failed.
func TestRunsCatchWhatPassesOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("grades lesson 01 three times; run without -short")
	}
	// Graded code does not get the grader's environment, so the counter's
	// path is written into it.
	counter := filepath.Join(t.TempDir(), "processes")
	flaky := edit(t, ref(t, "runq.go"), "import \"sync/atomic\"\n", `import (
	"os"
	"strconv"
	"sync/atomic"
)

// Counts the test processes it starts in; the second one crashes.
func init() {
	path := `+strconv.Quote(counter)+`
	data, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(string(data))
	_ = os.WriteFile(path, []byte(strconv.Itoa(n+1)), 0o644)
	if n == 1 {
		panic("the second run goes wrong")
	}
}
`)
	class := t.TempDir()
	workspace(t, filepath.Join(class, "flaky"), map[string][]byte{"runq.go": flaky})

	grade := func(runs int) (score, max int, reasons []string) {
		t.Helper()
		require.NoError(t, os.WriteFile(counter, []byte("0"), 0o644))
		rep, _ := gradeClass(t, Options{CacheDir: cacheDir(t), Lessons: []string{"01-ringbuffer"}, Jobs: 1, NoRace: true, Runs: runs}, class)
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
