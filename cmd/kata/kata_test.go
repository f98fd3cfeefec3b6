package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kata runs the CLI in-process, in dir, and returns stdout, stderr and the
// exit code (as main would compute it).
func kata(t *testing.T, dir string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return kataInput(t, dir, "", args...)
}

// kataInput is kata, with stdin as the standard input.
func kataInput(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("KATA_WORKSPACE", "")
	t.Setenv("NO_COLOR", "1")
	if dir != "" {
		t.Chdir(dir)
	}
	app := newApp()
	var out, errOut bytes.Buffer
	app.Writer, app.ErrWriter = &out, &errOut
	app.Reader = strings.NewReader(stdin)
	err := app.RunContext(context.Background(), flagsFirst(app, append([]string{"kata"}, args...)))
	if err != nil {
		if msg := err.Error(); msg != "" {
			errOut.WriteString("kata: " + msg + "\n")
		}
		code = exitCode(err)
	}
	return out.String(), errOut.String(), code
}

func TestNoWorkspaceSaysHowToStart(t *testing.T) {
	out, _, code := kata(t, t.TempDir())
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "kata init")
}

func TestInitMakesAWorkspaceThatBuilds(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	out, errOut, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "kata check 01")
	for _, f := range []string{"go.mod", "runq.go", "proc.go", "README.md", workspace.ProgressFile} {
		assert.FileExists(t, filepath.Join(dir, f))
	}
	status, _, code := kata(t, dir)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, status, "Next: 01-ringbuffer")
}

// TestInitPreparesTheFirstCheck: the first init with a kata and a Go
// builds what every check needs (the race detector's build of the
// library, the reference and the kit), so that the learner's first check
// does not spend half a minute on it (30 s here on an empty Go build
// cache, 4 s after init); the next init finds the stamp and does nothing.
func TestInitPreparesTheFirstCheck(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("KATA_CACHE", cache)
	out, errOut, code := kata(t, "", "init", filepath.Join(t.TempDir(), "ws"))
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `Building the race detector's version of Go's library and of the scheduler, .*\.\.\. done in \d+s\.`, out)
	stamps, err := filepath.Glob(filepath.Join(cache, "prepared", "*"))
	require.NoError(t, err)
	assert.Len(t, stamps, 1, "the stamp that says this kata and this Go are prepared")

	out, errOut, code = kata(t, "", "init", filepath.Join(t.TempDir(), "ws2"))
	require.Equal(t, exitOK, code, errOut)
	assert.NotContains(t, out, "Building the race detector's version", "prepared once, not at every init")
}

func TestInitNeverOverwritesWithoutForce(t *testing.T) {
	dir := t.TempDir()
	mine := filepath.Join(dir, "runq.go")
	require.NoError(t, os.WriteFile(mine, []byte("package sched // my work\n"), 0o644))

	_, errOut, code := kata(t, "", "init", dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "not empty")
	assert.Contains(t, errOut, "--force")
	data, _ := os.ReadFile(mine)
	assert.Equal(t, "package sched // my work\n", string(data), "init without --force changed the learner's file")

	_, errOut, code = kata(t, "", "init", "--force", dir)
	require.Equal(t, exitOK, code, errOut)
	backups, _ := filepath.Glob(filepath.Join(dir, workspace.BackupDir, "*", "runq.go"))
	require.Len(t, backups, 1, "--force must save the replaced file")
	saved, _ := os.ReadFile(backups[0])
	assert.Equal(t, "package sched // my work\n", string(saved))

	_, errOut, code = kata(t, "", "init", dir)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "already a kata workspace")
}

func TestListJSONShape(t *testing.T) {
	out, _, code := kata(t, t.TempDir(), "list", "--format", "json")
	require.Equal(t, exitOK, code)
	var entries []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &entries))
	require.NotEmpty(t, entries)
	for _, key := range []string{"id", "title", "order", "files", "status"} {
		assert.Contains(t, entries[0], key)
	}
	assert.Equal(t, "01-ringbuffer", entries[0]["id"])
	assert.Equal(t, "todo", entries[0]["status"])
}

func TestHintsAdvanceAndAreRemembered(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	_, _, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code)
	first, _, _ := kata(t, dir, "hint", "01")
	assert.Contains(t, first, "(1 of 3)")
	second, _, _ := kata(t, dir, "hint", "01")
	assert.Contains(t, second, "(2 of 3)")
	again, _, _ := kata(t, dir, "hint", "01", "--level", "1")
	assert.Contains(t, again, "(1 of 3)")
	third, _, _ := kata(t, dir, "hint", "ringbuffer")
	assert.Contains(t, third, "(3 of 3)")
	assert.Contains(t, third, "last hint")
	_, errOut, code := kata(t, dir, "hint", "01", "--level", "9")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "hints 1 to 3")
}

func TestResetSavesTheLearnersFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	_, _, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "runq.go"), []byte("package sched // attempt\n"), 0o644))
	out, _, code := kata(t, dir, "reset", "01")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "saved in")
	skel, err := workspace.Skeleton("runq.go")
	require.NoError(t, err)
	now, _ := os.ReadFile(filepath.Join(dir, "runq.go"))
	assert.Equal(t, string(skel), string(now))
	backups, _ := filepath.Glob(filepath.Join(dir, workspace.BackupDir, "*", "runq.go"))
	require.Len(t, backups, 1)
}

func TestSolutionWaitsForAPass(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	_, _, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code)
	_, errOut, code := kata(t, dir, "solution", "01")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "--force")
	out, _, code := kata(t, dir, "solution", "01", "--force")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "func runqputtail(pp *p, gp *g) {\n\tfor {")
	diff, _, _ := kata(t, dir, "solution", "--force", "--diff", "01")
	assert.Contains(t, diff, "+++ reference/runq.go")
	assert.Contains(t, diff, `-	panic("not implemented: runqputtail")`)
}

func TestUsageErrors(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"check", "--format", "yaml"},
		{"hint"},
		{"task", "99"},
		{"frobnicate"},
		{"demo", "nosuch"},
		{"init"},
		{"list", "--bogus"},
		{"hint", "01", "--level"},
	} {
		_, errOut, code := kata(t, dir, args...)
		assert.Equal(t, exitUsage, code, "kata %s: %s", strings.Join(args, " "), errOut)
		assert.NotEmpty(t, errOut, "kata %s must say what is wrong", strings.Join(args, " "))
		assert.NotContains(t, errOut, "kata: kata", "doubled prefix")
	}
}

func TestFlagsFirst(t *testing.T) {
	app := newApp()
	for _, tc := range []struct{ in, want string }{
		{"kata check 01 --format json", "kata check --format json -- 01"},
		{"kata check --all", "kata check --all"},
		{"kata hint 01 --level 2", "kata hint --level 2 -- 01"},
		{"kata -w /x check 01 --no-race", "kata -w /x check --no-race -- 01"},
		{"kata hint 05 --level 1 -w /ws", "kata -w /ws hint --level 1 -- 05"},
		{"kata check --workspace=/ws 01", "kata --workspace=/ws check -- 01"},
		{"kata demo --all", "kata demo --all"},
		{"kata", "kata"},
	} {
		got := strings.Join(flagsFirst(app, strings.Fields(tc.in)), " ")
		assert.Equal(t, tc.want, got, "flagsFirst(%q)", tc.in)
	}
}

func TestUnifiedDiff(t *testing.T) {
	a := "a\nb\nc\nd\n"
	b := "a\nB\nc\nd\ne\n"
	got := unifiedDiff("x", "y", a, b)
	assert.Equal(t, "--- x\n+++ y\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n", got)
	assert.Contains(t, unifiedDiff("yours/f.go", "y", a, a), "identical")
}

func TestTaskSaysWhatToDoFirstOnlyUntilItPasses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	_, _, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code)
	out, _, code := kata(t, dir, "task", "2")
	require.Equal(t, exitOK, code)
	assert.Contains(t, out, "Best done first (this lesson builds on them; until you pass them, checks use the reference's files in their place): 01-ringbuffer")

	ws, err := workspace.Find(dir)
	require.NoError(t, err)
	ws.Progress.Lesson("01-ringbuffer").Record("pass", 100, 100, time.Now())
	require.NoError(t, ws.Save())
	out, _, code = kata(t, dir, "task", "02")
	require.Equal(t, exitOK, code)
	assert.NotContains(t, out, "Best done first", "lesson 01 passed: nothing is left to do first")
}

// A helper file of the learner's own is named at once as not graded,
// with where its code must go.
func TestCheckNamesHelperFilesItDoesNotGrade(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ws")
	_, _, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ringhelpers.go"), []byte("package sched\n\nfunc ringSlot(i uint32) uint32 { return i % 256 }\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ring_test.go"), []byte("package sched\n"), 0o644))
	_, errOut, _ := kata(t, dir, "check", "01", "--run", "FIFO", "--no-race")
	assert.Contains(t, errOut, "kata: ringhelpers.go is not graded: each lesson grades only its own file (runq.go for 01-ringbuffer); move what it declares into that file")
	assert.NotContains(t, errOut, "ring_test.go", "a test file of the learner's is theirs to run, not a helper kata ignores")
}
