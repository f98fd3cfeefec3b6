package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	hostile := strings.Replace(string(src), `import "sync/atomic"`, "import (\n\t\"os\"\n\t\"sync/atomic\"\n)\n\nfunc init() { os.Exit(0) }", 1)
	require.NotEqual(t, string(src), hostile)
	require.NoError(t, os.WriteFile(runq, []byte(hostile), 0o644))

	out, errOut, code := kata(t, dir, "check", "--no-race", "01")
	assert.Equal(t, exitFailed, code, errOut)
	assert.Contains(t, out, "FAIL 01-ringbuffer")
	assert.Contains(t, out, "  0/100")
	assert.Contains(t, out, "  Your code breaks a rule of lesson files, so kata did not compile it. Fix these first:\n"+
		"    runq.go:4:2: import \"os\" is not allowed in a lesson file (allowed: errors, fmt, math, math/bits, slices, sync, sync/atomic, time): remove it\n"+
		"    runq.go:8:6: a lesson file may not declare an init function")

	out, _, code = kata(t, dir, "check", "--no-race", "--format", "json", "01")
	assert.Equal(t, exitFailed, code)
	var rep checkReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Lessons, 1)
	assert.Len(t, rep.Lessons[0].VetProblems, 2)
	assert.Empty(t, rep.Lessons[0].CompileErrors)
}
