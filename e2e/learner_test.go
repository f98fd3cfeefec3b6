package e2e

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// buildKata builds the kata command, once for the whole run (its tests
// use it as a learner would use one installed binary), into a directory
// TestMain removes.
func buildKata(t *testing.T) string {
	t.Helper()
	kata.once.Do(func() {
		dir, err := os.MkdirTemp("", "kata-e2e-bin-")
		if err != nil {
			kata.err = err
			return
		}
		kata.dir, kata.bin = dir, filepath.Join(dir, "kata")
		if runtime.GOOS == "windows" {
			kata.bin += ".exe"
		}
		if out, err := exec.Command("go", "build", "-o", kata.bin, "../cmd/kata").CombinedOutput(); err != nil {
			kata.err = fmt.Errorf("building kata: %v\n%s", err, out)
		}
	})
	require.NoError(t, kata.err)
	return kata.bin
}

var kata struct {
	once     sync.Once
	dir, bin string
	err      error
}

func TestMain(m *testing.M) {
	// The tests here mostly wait: on kata's subprocesses, on a browser.
	// With go test's default of one test at a time per core, the waiting
	// left cores idle; four at once keep them busy. An explicit
	// -test.parallel (or -parallel) wins.
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", strconv.Itoa(max(4, runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	if kata.dir != "" {
		os.RemoveAll(kata.dir)
	}
	os.Exit(code)
}

// run runs the kata binary in dir and returns its output and exit code.
func run(t *testing.T, bin, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KATA_WORKSPACE=", "KATA_CACHE="+cacheDir(t))
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return string(out), exit.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

func cacheDir(t *testing.T) string {
	return filepath.Join(os.TempDir(), "kata-e2e-cache")
}

type checkJSON struct {
	Lessons []struct {
		ID       string `json:"id"`
		Status   string `json:"status"`
		Score    int    `json:"score"`
		MaxScore int    `json:"max_score"`
		Tests    []struct {
			Name     string `json:"name"`
			Status   string `json:"status"`
			Score    int    `json:"score"`
			MaxScore int    `json:"max_score"`
			Message  string `json:"message"`
		} `json:"tests"`
		CompileErrors []string `json:"compile_errors"`
	} `json:"lessons"`
}

// TestLearnerSolvesLessonOne walks the README's path: init a workspace,
// check the untouched lesson (it fails, scoring 0), break it (the compile
// error names the learner's file and line), write it (here: a correct
// implementation written differently from the reference), check again
// (it passes), and see kata point at the next lesson.
func TestLearnerSolvesLessonOne(t *testing.T) {
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	home := t.TempDir()
	ws := filepath.Join(home, "ws")

	out, code := run(t, bin, home, "init", ws)
	require.Equal(t, 0, code, out)

	out, code = run(t, bin, ws, "check", "01", "--format", "json")
	require.Equal(t, 1, code, "an untouched lesson must fail: %s", out)
	var rep checkJSON
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Lessons, 1)
	l := rep.Lessons[0]
	assert.Equal(t, "01-ringbuffer", l.ID)
	assert.Equal(t, "fail", l.Status)
	assert.Equal(t, 0, l.Score)
	assert.Equal(t, 100, l.MaxScore)
	for _, tr := range l.Tests {
		assert.Equal(t, "fail", tr.Status, tr.Name)
		assert.Contains(t, tr.Message, "not implemented", tr.Name)
	}

	runq := filepath.Join(ws, "runq.go")
	skel, err := os.ReadFile(runq)
	require.NoError(t, err)
	broken := strings.Replace(string(skel), `panic("not implemented: runqputtail")`, `panic(undefinedThing)`, 1)
	require.NoError(t, os.WriteFile(runq, []byte(broken), 0o644))
	out, code = run(t, bin, ws, "check", "01")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "does not compile")
	assert.Regexp(t, `runq\.go:\d+:\d+: undefined: undefinedThing`, out)

	alt, err := os.ReadFile("../lessons/01-ringbuffer/testdata/alternates/masked/runq.go")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(runq, alt, 0o644))
	out, code = run(t, bin, ws, "check", "01")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "PASS 01-ringbuffer")
	assert.Contains(t, out, "100/100")

	out, code = run(t, bin, ws)
	assert.Equal(t, 0, code)
	assert.NotContains(t, out, "Next: 01-ringbuffer", "after passing lesson 01, kata must move on: %s", out)

	out, code = run(t, bin, ws, "list", "--format", "json")
	require.Equal(t, 0, code)
	var list []struct{ ID, Status string }
	require.NoError(t, json.Unmarshal([]byte(out), &list))
	assert.Equal(t, "pass", list[0].Status)

	// check --all, one lesson in: the seven untouched lessons are a line
	// each, and the capstone waits until every lesson passes.
	out, code = run(t, bin, ws, "check", "--all", "--no-race")
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "PASS 01-ringbuffer")
	for _, id := range []string{"02-runnext", "03-globrunqget", "04-findrunnable", "05-spinning", "06-gopark", "07-sysmon", "08-procresize"} {
		assert.Regexp(t, `(?m)^TODO `+id+`  .*  0/100  not started: \S+\.go is the skeleton's \(kata task `+id[:2]+`\)$`, out)
	}
	assert.Contains(t, out, "WAIT capstone  all lessons together: runs once every lesson passes (1 of 8 pass)")
	assert.NotContains(t, out, "not implemented", "no stub was run")
	out, code = run(t, bin, ws, "check", "--all", "--no-race", "--format", "json")
	assert.Equal(t, 1, code, out)
	rep = checkJSON{}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Lessons, 8, "the eight lessons; no capstone while some fail")
	for _, l := range rep.Lessons[1:] {
		assert.Equal(t, "fail", l.Status, l.ID)
		assert.Equal(t, 100, l.MaxScore, l.ID)
		for _, tr := range l.Tests {
			assert.Equal(t, "not started: the skeleton's stubs, unchanged", tr.Message, tr.Name)
		}
	}
}
