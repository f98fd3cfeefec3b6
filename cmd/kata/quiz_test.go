package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/quiz"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// question is the question seed makes on lesson id, as kata quiz asks it.
func question(t *testing.T, id string, seed uint64) quiz.Question {
	t.Helper()
	l, err := lessons.Default.Lookup(id)
	require.NoError(t, err)
	_, q := quiz.Make(l.Quiz, seed)
	return q
}

func TestQuizRightAndWrong(t *testing.T) {
	dir := t.TempDir() // no workspace: the quiz needs only the reference
	q := question(t, "03", 12)
	out, errOut, code := kataInput(t, dir, q.Answer.String()+"\n", "quiz", "03", "--seed", "12")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "03-globrunqget, question (kata quiz 03 --seed 12)")
	assert.Contains(t, out, wrap(q.Text, 78))
	assert.Contains(t, out, "Right.")
	assert.Contains(t, out, wrap(q.Explain, 78))

	out, _, code = kataInput(t, dir, q.Answer.String()+"1\n", "quiz", "03", "--seed", "12")
	assert.Equal(t, exitFailed, code, "a wrong answer must exit 1")
	assert.Contains(t, out, "Wrong: the answer is "+q.Answer.String()+".")
	assert.Contains(t, out, wrap(q.Explain, 78))
}

// TestQuizAsksAgain: an answer in the wrong form is no answer: kata says
// what form to use and asks the same question again.
func TestQuizAsksAgain(t *testing.T) {
	q := question(t, "03", 12)
	out, errOut, code := kataInput(t, t.TempDir(), "lots\n"+q.Answer.String()+"\n", "quiz", "03", "--seed", "12")
	assert.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, `"lots" is not a number: answer with digits, like 12.`)
	assert.Equal(t, 2, strings.Count(out, wrap(q.Text, 78)), "the question must be asked again:\n%s", out)
	assert.Equal(t, 1, strings.Count(out, "Right."), out)
}

func TestQuizEndOfInput(t *testing.T) {
	_, errOut, code := kataInput(t, t.TempDir(), "", "quiz", "05", "--seed", "3")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "the input ended")
	assert.Contains(t, errOut, "kata quiz 05 --seed 3 --answers")
}

// TestQuizStopsOnCtrlC: a quiz waiting for an answer stops when kata is
// interrupted, as kata watch does.
func TestQuizStopsOnCtrlC(t *testing.T) {
	t.Setenv("NO_COLOR", "1")
	t.Chdir(t.TempDir())
	app := newApp()
	var out bytes.Buffer
	app.Writer, app.ErrWriter = &out, &out
	stdin, typing := io.Pipe() // nobody types
	defer typing.Close()
	app.Reader = stdin
	ctx, stop := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer stop()
	err := app.RunContext(ctx, flagsFirst(app, []string{"kata", "quiz", "02", "--seed", "4"}))
	assert.NoError(t, err)
	assert.True(t, strings.HasSuffix(out.String(), "\nStopped.\n"), out.String())
}

func TestQuizScore(t *testing.T) {
	var in []string
	for seed := uint64(40); seed < 43; seed++ {
		a := question(t, "08", seed).Answer.String()
		if seed == 41 {
			a = "none" // wrong: every answer of lesson 08 names something
		}
		in = append(in, a)
	}
	out, _, code := kataInput(t, t.TempDir(), strings.Join(in, "\n")+"\n", "quiz", "8", "--seed", "40", "--count", "3")
	assert.Equal(t, exitFailed, code)
	for _, h := range []string{"question 1 of 3 (kata quiz 08 --seed 40)", "question 2 of 3 (kata quiz 08 --seed 41)", "question 3 of 3 (kata quiz 08 --seed 42)"} {
		assert.Contains(t, out, h)
	}
	assert.Equal(t, 2, strings.Count(out, "Right."), out)
	assert.Contains(t, out, "Score: 2 of 3.")
}

// TestQuizAnswersReplay: --answers prints without asking, and a seed makes
// the same questions every time, the random one included.
func TestQuizAnswersReplay(t *testing.T) {
	dir := t.TempDir()
	out, _, code := kata(t, dir, "quiz", "ringbuffer", "--answers", "--count", "3", "--seed", "7")
	require.Equal(t, exitOK, code)
	for seed := uint64(7); seed < 10; seed++ {
		q := question(t, "01", seed)
		assert.Contains(t, out, fmt.Sprintf("(kata quiz 01 --seed %d)", seed))
		assert.Contains(t, out, "Answer: "+q.Answer.Long()+"\n"+wrap(q.Explain, 78))
	}
	again, _, _ := kata(t, dir, "quiz", "01", "--answers", "--count", "3", "--seed", "7")
	assert.Equal(t, out, again, "--seed 7 made different questions")
	other, _, _ := kata(t, dir, "quiz", "01", "--answers", "--count", "3", "--seed", "70")
	assert.NotEqual(t, out, other, "--seed 7 and --seed 70 made the same questions")

	random, _, code := kata(t, dir, "quiz", "04", "--answers")
	require.Equal(t, exitOK, code)
	m := regexp.MustCompile(`kata quiz 04 --seed (\d+)\)`).FindStringSubmatch(random)
	require.NotNil(t, m, "the random seed is not printed:\n%s", random)
	replay, _, _ := kata(t, dir, "quiz", "04", "--answers", "--seed", m[1])
	assert.Equal(t, random, replay)
}

func TestQuizJSON(t *testing.T) {
	dir := t.TempDir()
	out, _, code := kata(t, dir, "quiz", "06", "--answers", "--count", "3", "--seed", "3", "--format", "json")
	require.Equal(t, exitOK, code)
	var recs []quizRecord
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r quizRecord
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		recs = append(recs, r)
	}
	require.Len(t, recs, 3)
	for i, r := range recs {
		q := question(t, "06", uint64(3+i))
		assert.Equal(t, "question", r.Event)
		assert.Equal(t, "06-gopark", r.Lesson)
		assert.Equal(t, uint64(3+i), *r.Seed)
		assert.Equal(t, q.Text, r.Question)
		assert.Equal(t, q.Answer.String(), r.Answer)
		assert.Equal(t, q.Explain, r.Explanation)
		assert.Equal(t, q.Answer.Choices(), r.Choices)
	}

	q := question(t, "06", 3)
	out, _, code = kataInput(t, dir, "z\n"+q.Answer.String()+"\n", "quiz", "06", "--seed", "3", "--format", "json")
	require.Equal(t, exitOK, code, out)
	var events []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r quizRecord
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		events = append(events, r.Event)
		if r.Event == "question" {
			assert.Empty(t, r.Answer, "a question being asked must not carry its answer")
		}
		if r.Event == "result" {
			assert.True(t, *r.Right)
		}
	}
	assert.Equal(t, []string{"question", "invalid", "result"}, events)
}

func TestQuizCommandLine(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"3", "03", "03-globrunqget", "globrunqget"} {
		out, errOut, code := kata(t, dir, "quiz", name, "--answers", "--seed", "1")
		assert.Equal(t, exitOK, code, "kata quiz %s: %s", name, errOut)
		assert.Contains(t, out, "03-globrunqget, question (kata quiz 03 --seed 1)")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"quiz", "99"}, `no lesson "99" (run 'kata list')`},
		{[]string{"quiz"}, "name one lesson, like 'kata quiz 01'"},
		{[]string{"quiz", "01", "--count", "0"}, "--count 0: want 1 or more"},
		{[]string{"quiz", "01", "--format", "yaml"}, `--format "yaml": want text or json`},
	} {
		_, errOut, code := kata(t, dir, tc.args...)
		assert.Equal(t, exitUsage, code, "kata %s", strings.Join(tc.args, " "))
		assert.Contains(t, errOut, tc.want)
	}
}

// TestQuizEveryLesson: every lesson has at least three kinds of question,
// and each kind makes a valid question from each of 200 seeds: a question
// that asks something, an answer that its own form reads back as right,
// and an explanation that cites the runtime, by line, correctly.
func TestQuizEveryLesson(t *testing.T) {
	cite := regexp.MustCompile("`(?:\\(\\*?\\w+\\)\\.)?(\\w+)`\\s*\\((proc\\.go):(\\d+)\\)")
	cited := map[string]string{} // "name proc.go:N" → where
	for _, l := range lessons.Default.All() {
		if len(l.Quiz) < 3 {
			t.Errorf("lesson %s has %d kinds of question, want at least 3", l.ID, len(l.Quiz))
			continue
		}
		for k, kind := range l.Quiz {
			for i := range 200 {
				seed := uint64(i*len(l.Quiz) + k)
				got, q := quiz.Make(l.Quiz, seed)
				where := fmt.Sprintf("kata quiz %s --seed %d (%s)", l.ID[:2], seed, kind.Name)
				if got.Name != kind.Name {
					t.Fatalf("%s made a question of kind %s", where, got.Name)
				}
				if !strings.Contains(q.Text, "?") || q.Answer.Expect() == "" {
					t.Errorf("%s: not a question: %q", where, q.Text)
				}
				if right, err := q.Answer.Judge(q.Answer.String()); !right || err != nil {
					t.Errorf("%s: the answer %q is not judged right (%v)", where, q.Answer.String(), err)
				}
				cites := cite.FindAllStringSubmatch(q.Explain, -1)
				if len(cites) == 0 {
					t.Errorf("%s: the explanation cites no runtime function as `name` (proc.go:N): %s", where, q.Explain)
				}
				for _, c := range cites {
					cited[c[1]+" "+c[2]+":"+c[3]] = where
				}
				if i < 10 {
					if _, again := quiz.Make(l.Quiz, seed); again.Text != q.Text || again.Answer.String() != q.Answer.String() {
						t.Errorf("%s: the same seed made another question", where)
					}
				}
			}
		}
	}
	checkCitations(t, cited)
}

// checkCitations checks each "name proc.go:N" against the runtime's source
// when the toolchain is the release the book cites: line N names name or
// lies inside the function name, the rule of the book's own citation test
// (book/realbook_test.go).
func checkCitations(t *testing.T, cited map[string]string) {
	const citedGoVersion = "go1.26.8"
	if runtime.Version() != citedGoVersion {
		t.Logf("not checking the explanations' citations: they are to %s's runtime; this toolchain is %s", citedGoVersion, runtime.Version())
		return
	}
	f, err := os.Open(filepath.Join(runtime.GOROOT(), "src", "runtime", "proc.go"))
	require.NoError(t, err)
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	for c, where := range cited {
		name, ref, _ := strings.Cut(c, " ")
		n, _ := strconv.Atoi(ref[strings.IndexByte(ref, ':')+1:])
		if n < 1 || n > len(lines) {
			t.Errorf("%s: %s: proc.go has %d lines", where, c, len(lines))
			continue
		}
		if regexp.MustCompile(`\b` + name + `\b`).MatchString(lines[n-1]) {
			continue
		}
		at := n - 1
		for at > 0 && !strings.HasPrefix(lines[at], "func ") {
			at--
		}
		if !regexp.MustCompile(`^func (\([^)]*\) )?` + name + `\b`).MatchString(lines[at]) {
			t.Errorf("%s: %s: line %d is %q, which neither names %s nor is inside it", where, c, n, strings.TrimSpace(lines[n-1]), name)
		}
	}
}
