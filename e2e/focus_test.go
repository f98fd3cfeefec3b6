package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckFocusRepeatReplay is the learner's power over a check: a race
// the controlled scheduler found names its seed, and --seed replays that
// very interleaving; --run grades only some tests, without recording
// progress; --count grades several times over.
func TestCheckFocusRepeatReplay(t *testing.T) {
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	out, code := run(t, bin, home, "init", ws)
	require.Equal(t, 0, code, out)

	ref, err := os.ReadFile("../solutions/runq.go")
	require.NoError(t, err)
	// runqdrain claims the whole ring with a Store where a CAS is needed:
	// a thief that took a G in between takes it twice.
	race := strings.Replace(string(ref), "if !pp.runqhead.CompareAndSwap(h, h+qn) {\n\t\t\tcontinue\n\t\t}", "pp.runqhead.Store(h + qn)", 1)
	require.NotEqual(t, string(ref), race, "the edit did not apply")
	runq := filepath.Join(ws, "runq.go")
	require.NoError(t, os.WriteFile(runq, []byte(race), 0o644))

	// The failing checks here skip the blame (--no-blame): it would build
	// and run the failing test again with each function swapped, and what
	// is tested here is --run, --seed and the story. The blame is
	// cmd/kata's TestCheckVerboseSaysWhereTheTimeWent's and checker's.
	out, code = run(t, bin, ws, "check", "01", "--no-blame", "--run", "^TestL01Interleavings$", "--format", "json")
	require.Equal(t, 1, code, out)
	var rep checkJSON
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	require.Len(t, rep.Lessons[0].Tests, 1, "--run ^TestL01Interleavings$ graded other tests too")
	msg := rep.Lessons[0].Tests[0].Message
	seed := regexp.MustCompile(`kata check 01 --seed (\d+) --run TestL01Interleavings`).FindStringSubmatch(msg)
	require.NotNil(t, seed, "the failure names no seed to replay: %s", msg)

	out, code = run(t, bin, ws, "check", "01", "--no-blame", "--run", "TestL01Interleavings", "--seed", seed[1])
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "seed "+seed[1]+" (depth", "the replay did not fail in the same interleaving: %s", out)

	// The explorer's story of the failing order quotes the learner's file,
	// which go test -overlay compiles under the reference's path: with
	// three lines of notes on top, every line of it has moved.
	noted := strings.Replace(race, "package sched\n", "package sched\n\n// my notes\n// more notes\n// and more\n", 1)
	require.NoError(t, os.WriteFile(runq, []byte(noted), 0o644))
	out, code = run(t, bin, ws, "check", "01", "--no-blame", "--run", "^TestL01Explore$")
	assert.Equal(t, 1, code, out)
	storeLine := 1 + strings.Count(noted[:strings.Index(noted, "pp.runqhead.Store(h + qn)")], "\n")
	assert.Contains(t, out, fmt.Sprintf("pp.runqhead.Store(h + qn) in runqdrain (runq.go:%d)", storeLine),
		"the story of the failing order does not quote the learner's line: %s", out)

	require.NoError(t, os.WriteFile(runq, ref, 0o644))
	out, code = run(t, bin, ws, "check", "01", "--run", "FIFO|WrapAround", "--count", "3", "--format", "json")
	require.Equal(t, 0, code, out)
	rep = checkJSON{}
	require.NoError(t, json.Unmarshal([]byte(out), &rep), out)
	var names []string
	for _, tr := range rep.Lessons[0].Tests {
		names = append(names, tr.Name)
	}
	assert.Equal(t, []string{"TestL01FIFO", "TestL01WrapAround"}, names)
	out, _ = run(t, bin, ws, "list", "--format", "json")
	assert.NotContains(t, out, `"pass"`, "a check of some tests was recorded as the lesson passed")

	out, code = run(t, bin, ws, "check", "01", "--run", "NoSuchTest")
	assert.Equal(t, 3, code, out)
	assert.Contains(t, out, `matches none of lesson 01-ringbuffer's tests`)
	out, code = run(t, bin, ws, "check", "01", "--count", "0")
	assert.Equal(t, 2, code, out)
	assert.Contains(t, out, "--count 0: want 1 or more")
}
