package report_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// forgedReason is a line a student's code prints so that it becomes the
// one-line reason of its test, word for word (A29).
const forgedReason = "kata: grade: all tests passed; ignore the failures below"

// TestPrintedTextIsQuoted: what the program printed is shown quoted after
// "printed", kata's own words as they are, and a quotation cannot be
// closed early by what is inside it.
func TestPrintedTextIsQuoted(t *testing.T) {
	for msg, want := range map[string]string{
		forgedReason + "\nmore":                                    "printed “" + forgedReason + "”",
		"runqget returned G3, want G1":                             "printed “runqget returned G3, want G1”",
		"crashed: panic: boom on an M\n    at park_m (park.go:12)": "crashed: printed “panic: boom on an M”",
		"x” kata: all passed “y":                                   `printed “x\u201d kata: all passed \u201cy”`,
		"did not finish within 30s: runqgethead (runq.go:132) was still running: stuck in a loop, or deadlocked? tick": "did not finish within 30s: runqgethead (runq.go:132) was still running: stuck in a loop, or deadlocked? printed “tick”",
		"did not finish within 30s: stuck in a loop, or deadlocked?":                                                   "did not finish within 30s: stuck in a loop, or deadlocked?",
		"failed in 2 of 5 runs: " + forgedReason:                                                                       "failed in 2 of 5 runs: printed “" + forgedReason + "”",
		"failed in run 3 of 5 (it passed the 2 before): crashed: panic: x":                                             "failed in run 3 of 5 (it passed the 2 before): crashed: printed “panic: x”",
		"crashed: the test binary exited in the middle of this test (does your code call os.Exit?)":                    "crashed: the test binary exited in the middle of this test (does your code call os.Exit?)",
		"crashed: the test binary exited in the middle of this test (os.Exit?): bye":                                   "crashed: the test binary exited in the middle of this test (os.Exit?): printed “bye”",
		"used more than 2048 MiB of memory; stopped":                                                                   "used more than 2048 MiB of memory; stopped",
		"not run: an earlier test failed":                                                                              "not run: an earlier test failed",
		"does not compile: runq.go:3:1: x":                                                                             "printed “does not compile: runq.go:3:1: x”",
		"kata could not grade it: the disk is full":                                                                    "printed “kata could not grade it: the disk is full”",
	} {
		assert.Equal(t, want, report.Printed(msg, true), "%q", msg)
	}
	assert.Equal(t, "does not compile: runq.go:3:1: x", report.Printed("does not compile: runq.go:3:1: x", false), "a compile error is kata's where the lesson did not compile")

	res := &checker.LessonResult{ID: "01-ringbuffer", Status: checker.StatusFail, MaxScore: 10, Tests: []checker.TestResult{
		{Name: "TestL01A", Status: checker.StatusFail, MaxScore: 5, Message: forgedReason},
		{Name: "TestL01B", Status: checker.StatusFail, MaxScore: 5, Message: "does not compile: forged"},
	}}
	g := report.FromResult(res, nil)
	assert.Equal(t, "printed “"+forgedReason+"”", g.Tests[0].Reason)
	assert.Equal(t, "printed “does not compile: forged”", g.Tests[1].Reason, "a lesson that compiled has no compile error")
	assert.Equal(t, "2 of 2 tests failed; TestL01A: printed “"+forgedReason+"”", g.Reason)
	res = &checker.LessonResult{ID: "01-ringbuffer", Status: checker.StatusFail, MaxScore: 5, NotCompiled: true, CompileErrors: []string{"runq.go:3:1: x"}, Tests: []checker.TestResult{
		{Name: "TestL01A", Status: checker.StatusFail, MaxScore: 5, Message: "does not compile: runq.go:3:1: x"},
	}}
	assert.Equal(t, "does not compile: runq.go:3:1: x", report.FromResult(res, nil).Tests[0].Reason)
}

// TestPrintedTextNeverPassesForKatas: a class where one student's code
// printed kata's words (A29) and links; in every format, wherever that
// text is shown as a reason, it is inside a quotation after "printed".
func TestPrintedTextNeverPassesForKatas(t *testing.T) {
	r := a29Class()
	forged := regexp.MustCompile(`kata\\?: grade\\?: all tests passed`)
	for _, f := range report.Formats {
		out := writeFor(t, f, r, &r.Students[1])
		if f == "json" || f == "gradescope" {
			var v any
			require.NoError(t, json.Unmarshal(out, &v), f)
		}
		text := string(out)
		if f == "json" {
			// The whole message is data, in its own field; the reason
			// quotes it.
			var back report.Report
			require.NoError(t, json.Unmarshal(out, &back))
			text = back.Students[1].Lessons[0].Reason + "\n" + back.Students[1].Lessons[0].Tests[0].Reason
		}
		locs := forged.FindAllStringIndex(text, -1)
		require.NotEmpty(t, locs, "%s does not show the forged line at all", f)
		for _, loc := range locs {
			before := text[:loc[0]]
			assert.True(t, strings.HasSuffix(before, "printed “") || strings.HasSuffix(before, "| "),
				"%s shows the forged line as kata's words: ...%s", f, text[max(0, loc[0]-60):loc[1]])
		}
	}
}

// a29Class is a report of two students, an honest one and one whose code
// printed kata's words, a URL, "www." and an e-mail address, Markdown
// links and an @mention, and named itself like a web site.
func a29Class() *report.Report {
	msg := forgedReason + " see https://evil.example/regrade or www.evil.example, mail ab@c.de and ping @octocat [regrade](https://evil.example/r) ![t](https://evil.example/t.png) <a href=\"https://evil.example\">x</a>\n" +
		forgedReason + "\n    at runqputtail (runq.go:12)"
	res := &checker.LessonResult{ID: "01-ringbuffer", Status: checker.StatusFail, MaxScore: 10, Tests: []checker.TestResult{
		{Name: "TestL01A", Status: checker.StatusFail, MaxScore: 6, Message: msg},
		{Name: "TestL01B", Status: checker.StatusPass, Score: 4, MaxScore: 4},
	}}
	tests := []lessons.Test{{Name: "TestL01A", Points: 6}, {Name: "TestL01B", Points: 4}}
	g := report.FromResult(res, tests)
	g.Score = 4
	pass := report.LessonGrade{ID: "01-ringbuffer", Status: report.StatusPass, Score: 10, MaxScore: 10,
		Tests: []report.TestGrade{{Name: "TestL01A", Status: report.StatusPass, Score: 6, MaxScore: 6}, {Name: "TestL01B", Status: report.StatusPass, Score: 4, MaxScore: 4}}}
	return &report.Report{Kata: "k", Course: "c",
		Lessons: []report.Lesson{{ID: "01-ringbuffer", MaxScore: 10, Tests: []report.Test{{Name: "TestL01A", Points: 6, Visibility: "visible"}, {Name: "TestL01B", Points: 4, Visibility: "visible"}}}},
		Students: []report.Student{
			{Name: "alice", Source: "class/alice", Score: 10, MaxScore: 10, Lessons: []report.LessonGrade{pass}},
			{Name: "www.evil.example", Source: "class/www.evil.example", Score: 4, MaxScore: 10, Lessons: []report.LessonGrade{g}},
			{Name: "ab@c.de", Source: "class/ab@c.de", Score: 0, MaxScore: 10, Problem: "no runq.go in https://evil.example",
				Lessons: []report.LessonGrade{report.Failed(&lessons.Lesson{ID: "01-ringbuffer", Tests: tests}, "no runq.go in https://evil.example")}},
		}}
}

// TestMarkdownRendersNoLinkFromStudents (A24, A29): the Markdown report,
// rendered as GitHub renders it (GFM, here with goldmark, which the book
// uses), has no link, image or HTML element that students' names or
// their code's output made: not from a URL, "www.", an e-mail address,
// nor Markdown or HTML link syntax.
func TestMarkdownRendersNoLinkFromStudents(t *testing.T) {
	var html bytes.Buffer
	md := goldmark.New(goldmark.WithExtensions(extension.GFM))
	require.NoError(t, md.Convert(write(t, "markdown", a29Class()), &html))
	for _, bad := range []string{"<a ", "<img", "href=", "src="} {
		assert.NotContains(t, html.String(), bad, "rendered Markdown has %q:\n%s", bad, html.String())
	}
	assert.Contains(t, html.String(), "www.evil.example", "the name is shown, as text")
	assert.Contains(t, html.String(), "ab@c.de")
}
