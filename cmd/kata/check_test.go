package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckShowsWhyAFileIsRefused: a lesson file that breaks the rules of
// lesson files fails the check with each problem where it is, as a compile
// error is shown, and kata does not compile it.
func TestCheckShowsWhyAFileIsRefused(t *testing.T) {
	t.Setenv("KATA_CACHE", t.TempDir())
	dir := filepath.Join(t.TempDir(), "ws")
	_, errOut, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code, errOut)
	runq := filepath.Join(dir, "runq.go")
	src, err := os.ReadFile(runq)
	require.NoError(t, err)
	hostile := strings.Replace(string(src), "package sched\n\n", "package sched\n\nimport (\n\t\"os\"\n)\n\nfunc init() { os.Exit(0) }\n\n", 1)
	require.NotEqual(t, string(src), hostile)
	require.NoError(t, os.WriteFile(runq, []byte(hostile), 0o644))

	out, errOut, code := kata(t, dir, "check", "--no-race", "01")
	assert.Equal(t, exitFailed, code, errOut)
	assert.Contains(t, out, "FAIL 01-ringbuffer")
	assert.Contains(t, out, "  0/100")
	assert.Contains(t, out, "  Your code breaks a rule of lesson files, so kata did not compile it. Fix these first:\n"+
		"    runq.go:4:2: import \"os\" is not allowed in a lesson file: remove it (kata task lists the packages a lesson file may import)\n"+
		"    runq.go:7:6: a lesson file may not declare an init function")

	out, _, code = kata(t, dir, "check", "--no-race", "--format", "json", "01")
	assert.Equal(t, exitFailed, code)
	var rep checkReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Lessons, 1)
	assert.Len(t, rep.Lessons[0].VetProblems, 2)
	assert.Empty(t, rep.Lessons[0].CompileErrors)
}

// TestCheckFoldsTheSameCrash: tests that crash the same way are told once;
// the others point to the first.
func TestCheckFoldsTheSameCrash(t *testing.T) {
	crash := "crashed: panic: not implemented: procresize\n    at procresize (procresize.go:12)"
	res := &checker.LessonResult{ID: "08-procresize", Title: "t", Status: checker.StatusFail, MaxScore: 30, Tests: []checker.TestResult{
		{Name: "TestA", Status: checker.StatusFail, MaxScore: 10, Message: crash},
		{Name: "TestB", Status: checker.StatusFail, MaxScore: 10, Message: "got 3 Ps, want 4"},
		{Name: "TestC", Status: checker.StatusFail, MaxScore: 10, Message: crash},
	}}
	var b strings.Builder
	printLessonResult(&b, res, nil, nil)
	out := b.String()
	assert.Equal(t, 1, strings.Count(out, "not implemented: procresize"), out)
	assert.Contains(t, out, "got 3 Ps, want 4")
	assert.Regexp(t, `✗ TestC .*\n      the same as TestA\n`, out)
}

// TestPrintBlame: the blame is said before the failures, naming the one
// function at fault, or saying that none is alone.
func TestPrintBlame(t *testing.T) {
	var b bytes.Buffer
	printBlame(&b, &checker.Blame{Failing: []string{"TestA", "TestB"}, Culprits: []string{"gopark"}})
	if want := "Where to look: your gopark. With the reference's gopark in place of yours, and your other functions, every failing test passes."; !strings.Contains(b.String(), want) {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
	b.Reset()
	printBlame(&b, &checker.Blame{Failing: []string{"TestA"}})
	if !strings.Contains(b.String(), "No one of your functions is at fault alone") {
		t.Errorf("printed %q, want the no-culprit line", b.String())
	}
	b.Reset()
	printBlame(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no blame printed %q", b.String())
	}
}

// TestCheckVerboseSaysWhereTheTimeWent: kata check -v names each phase of
// a grading with its time; a second check of the same file needs no
// compile (the build is only the link, or nothing).
func TestCheckVerboseSaysWhereTheTimeWent(t *testing.T) {
	t.Setenv("KATA_CACHE", t.TempDir())
	dir := filepath.Join(t.TempDir(), "ws")
	_, errOut, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code, errOut)
	skeleton, err := os.ReadFile(filepath.Join(dir, "globrunq.go"))
	require.NoError(t, err)
	ref, err := os.ReadFile(filepath.Join("..", "..", "solutions", "globrunq.go"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "globrunq.go"), ref, 0o644))
	out, errOut, code := kata(t, dir, "check", "--no-race", "-v", "03")
	assert.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `kata: started in \d+\.\d\ds`, out)
	// Where there are cores to spare, the tests run in several processes
	// at once.
	runs := `run \(10 tests(?: in \d processes at once)?\) \d+\.\d\ds`
	assert.Regexp(t, `  time: \d+\.\d\ds; vet \d+\.\d\ds; build \d+\.\d\ds; `+runs, out)
	assert.Contains(t, out, "slowest tests: TestL03")

	// Again: the vetter passed this very file, and the linker built this
	// very binary, before; neither runs.
	out, errOut, code = kata(t, dir, "check", "--no-race", "-v", "03")
	assert.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `  time: \d+\.\d\ds; build 0\.0\ds; `+runs, out)

	// The skeleton crashes in every test: each crash costs a run, told as one.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "globrunq.go"), skeleton, 0o644))
	out, errOut, code = kata(t, dir, "check", "--no-race", "--no-blame", "-v", "03")
	assert.Equal(t, exitFailed, code, errOut)
	assert.Regexp(t, `; \d+ runs \(\d+ tests\) \d+\.\d\ds`, out)

	out, _, code = kata(t, dir, "check", "--no-race", "--format", "json", "03")
	assert.Equal(t, exitFailed, code)
	assert.NotContains(t, out, `"blame"`, "the skeleton's own stubs: no function to look for")

	// Started: a failed check looks for the function at fault.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "globrunq.go"), append(skeleton, "\n// started\n"...), 0o644))
	out, _, code = kata(t, dir, "check", "--no-race", "--format", "json", "03")
	assert.Equal(t, exitFailed, code)
	var rep checkReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Lessons, 1)
	var names []string
	for _, ph := range rep.Lessons[0].Phases {
		names = append(names, ph.Name)
	}
	assert.Contains(t, names, "run")
	assert.Contains(t, names, "blame", "a failed check looks for the function at fault, and times it")
}
