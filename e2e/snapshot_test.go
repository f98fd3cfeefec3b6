package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckGradesOneSnapshot: a learner saves a fix 3 s into a check of a
// file whose retry loop never ends. The check grades the file as it was
// when the check began, all of it: none of its tests passes because the
// fix came in. And a looping lesson is reported after one test's limit,
// not after every test's (one per test process: each of them waits out
// one, at the same time).
func TestCheckGradesOneSnapshot(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out a hung test's limit")
	}
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	out, code := run(t, bin, home, "init", ws)
	require.Equal(t, 0, code, out)
	ref, err := os.ReadFile("../solutions/runq.go")
	require.NoError(t, err)
	// The commonest slip in a retry loop: `continue` where the empty ring
	// should return nil, so taking from an empty ring never ends.
	loop := strings.Replace(string(ref), "if t == h {\n\t\t\treturn nil\n\t\t}", "if t == h {\n\t\t\tcontinue\n\t\t}", 1)
	require.NotEqual(t, string(ref), loop)
	runq := filepath.Join(ws, "runq.go")
	require.NoError(t, os.WriteFile(runq, []byte(loop), 0o644))

	cmd := exec.Command(bin, "check", "01", "--no-race", "--format", "json")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KATA_WORKSPACE=", "KATA_CACHE="+cacheDir(t))
	var stdout strings.Builder
	cmd.Stdout = &stdout
	start := time.Now()
	require.NoError(t, cmd.Start())
	time.Sleep(3 * time.Second)
	require.NoError(t, os.WriteFile(runq, ref, 0o644)) // the fix, saved mid-check
	err = cmd.Wait()
	took := time.Since(start)
	var rep checkJSON
	require.NoError(t, json.Unmarshal([]byte(stdout.String()), &rep), "%v: %s", err, stdout.String())
	l := rep.Lessons[0]
	for _, tr := range l.Tests {
		if tr.Status == "pass" {
			// A pass is possible only for a test the loop cannot reach;
			// the reference's file would pass every test, so a pass of a
			// test that takes from an empty ring means the fix was graded.
			assert.NotContains(t, []string{"TestL01FIFO", "TestL01StealAndDrain", "TestL01InScheduler"}, tr.Name,
				"%s passed: the file saved during the check was graded", tr.Name)
		}
	}
	assert.Less(t, l.Score, l.MaxScore, "the looping file scored full marks: the fix saved mid-check was graded")
	var hung []string
	for _, tr := range l.Tests {
		if strings.Contains(tr.Message, "did not finish within") {
			hung = append(hung, tr.Name)
		}
	}
	// kata check runs the tests in one process per core (up to 4), at
	// once: each process waits out one hung test, all in the same limit.
	assert.NotEmpty(t, hung, "the loop hung no test")
	assert.LessOrEqual(t, len(hung), min(runtime.NumCPU(), 4), "once a test hung, the others of its process must not each wait out their limit: %v", hung)
	// The hung test names the looping function and a line of its loop
	// (where the goroutine dump caught it), and no path of kata's.
	first, last := funcLines(t, loop, "func runqgethead(")
	for _, tr := range l.Tests {
		if !strings.Contains(tr.Message, "did not finish within") {
			continue
		}
		// Each thread caught in the loop is named where it was caught: one
		// ("... was still running") or, when a test's threads loop on
		// different lines of it, two and "and N more" ("... were").
		m := regexp.MustCompile(`did not finish within \S+: ((?:runqgethead \(runq\.go:\d+\)(?:, )?)+)(?: and \d+ more)? (?:was|were) still running: stuck in a loop, or deadlocked\?`).FindStringSubmatch(tr.Message)
		if assert.NotNil(t, m, "the hung test's message names the looping function: %q", tr.Message) {
			for _, at := range regexp.MustCompile(`runq\.go:(\d+)`).FindAllStringSubmatch(m[1], -1) {
				line, _ := strconv.Atoi(at[1])
				assert.True(t, line > first && line < last, "line %d is not in runqgethead (lines %d-%d)", line, first, last)
			}
		}
		assert.NotContains(t, tr.Message, cacheDir(t), "the message names kata's cache")
		assert.NotContains(t, tr.Message, "goroutine ", "the goroutine dump is read, not shown")
	}
	// How long that took is not asserted: the limits are wall-clock, and
	// a loaded machine stretches the build around them (63 s once, beside
	// a mutation run). That each process waited out one limit, not one per
	// test, is the count of hung tests above.
	t.Logf("the looping lesson was reported in %v", took.Round(time.Second))
}

// funcLines returns the lines (from 1) where the function that starts with
// decl begins and ends in src.
func funcLines(t *testing.T, src, decl string) (first, last int) {
	t.Helper()
	lines := strings.Split(src, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, decl) {
			first = i + 1
		} else if first > 0 && l == "}" {
			return first, i + 1
		}
	}
	t.Fatalf("no %s in the file", decl)
	return 0, 0
}
