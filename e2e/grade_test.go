package e2e

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gradeClass makes a class of three with the kata binary, as an instructor
// would receive it: alice wrote lesson 03 (here: the reference's file),
// bob did nothing, carol's globrunq.go does not compile. Lesson 03 has
// quick tests: what is graded here is kata grade's bookkeeping, not the
// lessons.
func gradeClass(t *testing.T, bin string) string {
	t.Helper()
	class := filepath.Join(t.TempDir(), "class")
	for _, name := range []string{"alice", "bob", "carol"} {
		out, code := run(t, bin, t.TempDir(), "init", filepath.Join(class, name))
		require.Equal(t, 0, code, out)
	}
	for _, f := range []string{"globrunq.go"} {
		data, err := os.ReadFile(filepath.Join("..", "solutions", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(class, "alice", f), data, 0o644))
	}
	globrunq := filepath.Join(class, "carol", "globrunq.go")
	data, err := os.ReadFile(globrunq)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(globrunq, bytes.Replace(data, []byte(`panic("not implemented: globrunqput")`), []byte(`panic(notDeclared)`), 1), 0o644))
	return class
}

// gradeCmd is kata grade run in dir with its own cache and temporary
// directory.
func gradeCmd(bin, cache, tmp, dir string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, append([]string{"grade"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KATA_WORKSPACE=", "KATA_CACHE="+cache, "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
	return cmd
}

// scratch is a temporary directory removed at the end of the test, with
// retries: a kata killed with SIGKILL cannot remove its own, and its go
// test runs, in process groups of their own, stop only when they next
// write to the pipe of the kata that is gone.
func scratch(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "kata-e2e-grade-")
	require.NoError(t, err)
	t.Cleanup(func() {
		for range 100 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove %s", dir)
	})
	return dir
}

func exitOf(t *testing.T, err error) int {
	t.Helper()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

// TestGradeKilledAndResumed kills kata grade (SIGKILL: no chance to tidy
// up) once it has finished some grades, runs the same command again, and
// compares the gradebook with that of a grading never interrupted: byte
// for byte the same, with the grades finished before the kill not redone.
func TestGradeKilledAndResumed(t *testing.T) {
	if testing.Short() {
		t.Skip("grades a class three times (about a minute)")
	}
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	class := gradeClass(t, bin)
	work := t.TempDir()
	cache := t.TempDir()
	tmp := scratch(t)
	// One lesson: three grades, killed after the first (alice's, whose
	// tests all run), before the last (bob's skeleton is not started,
	// carol's file is vetted, then fails to compile).
	// Without the race detector: what is tested is the kill and the resume,
	// and each grading of alice's file under it took 20 s.
	argsTo := func(out string) []string {
		return []string{"--jobs", "1", "--no-race", "--lessons", "03", "--format", "csv", "--out", out, class}
	}
	args := argsTo("grades.csv")

	killed := gradeCmd(bin, cache, tmp, work, args...)
	require.NoError(t, killed.Start())
	deadline := time.Now().Add(5 * time.Minute)
	entries := func() int { // finished grades: not the tmp-*.json one being written
		m, _ := filepath.Glob(filepath.Join(cache, "grades", "*", "*.json"))
		n := 0
		for _, p := range m {
			if !strings.HasPrefix(filepath.Base(p), "tmp-") {
				n++
			}
		}
		return n
	}
	for entries() < 1 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	require.NoError(t, killed.Process.Kill())
	_ = killed.Wait()
	kept := entries()
	require.GreaterOrEqual(t, kept, 1, "kata did not finish a grade in five minutes")
	require.Less(t, kept, 3, "kata finished before it was killed: nothing to resume")
	assert.NoFileExists(t, filepath.Join(work, "grades.csv"), "a killed kata must not leave a gradebook")

	var stderr bytes.Buffer
	resumed := gradeCmd(bin, cache, tmp, work, args...)
	resumed.Stderr = &stderr
	assert.Equal(t, 1, exitOf(t, resumed.Run()), "students lost points: %s", stderr.String())
	assert.Contains(t, stderr.String(), " from the cache")
	assert.Regexp(t, `lesson grades: \d+ run, `+strconv.Itoa(kept)+` from the cache`, stderr.String(), "the grades finished before the kill are not redone")

	fresh := gradeCmd(bin, t.TempDir(), tmp, work, argsTo("fresh.csv")...)
	var freshErr bytes.Buffer
	fresh.Stderr = &freshErr
	assert.Equal(t, 1, exitOf(t, fresh.Run()), freshErr.String())
	a, err := os.ReadFile(filepath.Join(work, "grades.csv"))
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(work, "fresh.csv"))
	require.NoError(t, err)
	assert.Equal(t, string(b), string(a), "killed and resumed, the gradebook is the one an uninterrupted grading writes")
	assert.Equal(t, 4, strings.Count(string(a), "\n"), "a header and one row per student")
	assert.Contains(t, string(a), "alice,100,100,100,,")
	assert.Contains(t, string(a), "carol,0,100,0,")
	assert.Regexp(t, `03-globrunqget: does not compile: globrunq\.go:\d+:\d+: undefined: notDeclared`, string(a))
}
