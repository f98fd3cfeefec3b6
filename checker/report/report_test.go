package report_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/checker/report/reporttest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileText is what code under test can print, and so what can end up in
// a failure message: terminal escapes, the test2json framing byte, NUL,
// invalid UTF-8, markup, a spreadsheet formula and table syntax.
const hostileText = "\x1b[2J\x16--- PASS: TestX\x00 \xff<script>alert(1)</script> | =cmd|' /C calc'!A0 [link](http://evil) `code` \u202eevil\u2066 \u200b"

// sample is a class of three: one with full marks, one who lost points in
// several ways, one whose archive could not be read.
func sample() *report.Report {
	lessons := []report.Lesson{
		{ID: "01-ringbuffer", Title: "The ring", MaxScore: 30, Tests: []report.Test{
			{Name: "TestL01A", Points: 10, Kind: "exact", About: "a", Visibility: "visible"},
			{Name: "TestL01B", Points: 20, Kind: "stress", About: "b", Visibility: "visible"},
		}},
		{ID: "02-runnext", Title: "Runnext", MaxScore: 25, Tests: []report.Test{
			{Name: "TestL02A", Points: 15, Kind: "exact", About: "c", Visibility: "visible"},
			{Name: "TestPackL02", Points: 10, Kind: "exact", About: "private", Private: true, Visibility: "after_published"},
		}},
	}
	pass := func(name string, pts int) report.TestGrade {
		return report.TestGrade{Name: name, Status: report.StatusPass, Score: pts, MaxScore: pts}
	}
	fail := func(name string, pts int, msg string) report.TestGrade {
		return report.TestGrade{Name: name, Status: report.StatusFail, MaxScore: pts, Reason: report.OneLine(msg), Message: report.Clean(msg)}
	}
	full := report.Student{Name: "alice", Source: "class/alice", Score: 55, MaxScore: 55, Lessons: []report.LessonGrade{
		{ID: "01-ringbuffer", Status: report.StatusPass, Score: 30, MaxScore: 30, Tests: []report.TestGrade{pass("TestL01A", 10), pass("TestL01B", 20)}},
		{ID: "02-runnext", Status: report.StatusPass, Score: 25, MaxScore: 25, Tests: []report.TestGrade{pass("TestL02A", 15), pass("TestPackL02", 10)}},
	}}
	compile := "does not compile: runq.go:12:3: undefined: x"
	partial := report.Student{Name: "=bob | <b>", Source: "class/bob.zip", Score: 15, MaxScore: 55, Lessons: []report.LessonGrade{
		{ID: "01-ringbuffer", Status: report.StatusFail, MaxScore: 30, Reason: compile, CompileErrors: []string{"runq.go:12:3: undefined: x"},
			Tests: []report.TestGrade{fail("TestL01A", 10, compile), fail("TestL01B", 20, compile)}},
		{ID: "02-runnext", Status: report.StatusFail, Score: 15, MaxScore: 25, Reason: report.OneLine("1 of 2 tests failed; TestPackL02: " + hostileText),
			Tests: []report.TestGrade{pass("TestL02A", 15), fail("TestPackL02", 10, hostileText+"\n    at runqput (runnext.go:20)")}},
	}}
	broken := report.Student{Name: "carol", Source: "class/carol.zip", MaxScore: 55, Problem: "unsafe or unreadable archive: entry \"../x\" points outside the archive (zip-slip)"}
	for _, l := range lessons {
		g := report.LessonGrade{ID: l.ID, Status: report.StatusFail, MaxScore: l.MaxScore, Reason: broken.Problem}
		for _, t := range l.Tests {
			g.Tests = append(g.Tests, fail(t.Name, t.Points, broken.Problem))
		}
		broken.Lessons = append(broken.Lessons, g)
	}
	return &report.Report{Kata: "kata-hash", Course: "course-hash", Lessons: lessons, Students: []report.Student{full, partial, broken}}
}

func write(t *testing.T, format string, r *report.Report) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, report.Write(&b, format, r))
	return b.Bytes()
}

// writeFor is write, except that Gradescope's format, one student's, is
// st's.
func writeFor(t *testing.T, format string, r *report.Report, st *report.Student) []byte {
	t.Helper()
	if format != "gradescope" {
		return write(t, format, r)
	}
	var b bytes.Buffer
	require.NoError(t, report.WriteGradescope(&b, r, st))
	return b.Bytes()
}

func TestEveryFormatIsDeterministicAndClean(t *testing.T) {
	r := sample()
	for _, f := range report.Formats {
		if f == "gradescope" {
			continue
		}
		a, b := write(t, f, r), write(t, f, sample())
		assert.Equal(t, string(a), string(b), "%s: the same grades must give the same bytes", f)
		for _, bad := range []string{"\x1b", "\x16", "\x00", "\xff", "\u202e", "\u2066", "\u200b"} {
			assert.NotContains(t, string(a), bad, "%s lets %q through", f, bad)
		}
	}
}

func TestGradescopeSchema(t *testing.T) {
	r := sample()
	for i := range r.Students {
		var b bytes.Buffer
		require.NoError(t, report.WriteGradescope(&b, r, &r.Students[i]))
		require.NoError(t, reporttest.ValidateGradescope(b.Bytes()), "%s:\n%s", r.Students[i].Name, b.String())
	}
	bob := report.Gradescope(r, &r.Students[1])
	assert.Equal(t, 15, bob.Score)
	require.Len(t, bob.Tests, 4)
	assert.Equal(t, "01-ringbuffer: TestL01A", bob.Tests[0].Name)
	assert.Equal(t, "failed", bob.Tests[0].Status)
	assert.Equal(t, "passed", bob.Tests[2].Status)
	assert.Equal(t, "after_published", bob.Tests[3].Visibility, "a private pack test keeps its visibility")
	assert.Equal(t, "visible", bob.Tests[0].Visibility)
	// The top-level output is visible at once: it must not name a private
	// test whose own result is withheld, nor quote what it printed.
	assert.NotContains(t, bob.Output, "TestPackL02")
	assert.NotContains(t, bob.Output, "alert(1)")
	assert.Contains(t, bob.Output, "02-runnext  15/25  1 failed whose results are not shown yet")
	// With a visible test failing too, that one is named, the other counted.
	both := r.Students[1]
	both.Lessons = append([]report.LessonGrade(nil), both.Lessons...)
	l := both.Lessons[1]
	l.Tests = append([]report.TestGrade(nil), l.Tests...)
	l.Tests[0] = report.TestGrade{Name: "TestL02A", Status: report.StatusFail, MaxScore: 15, Reason: "runnext lost"}
	both.Lessons[1] = l
	out := report.Gradescope(r, &both).Output
	assert.Contains(t, out, "02-runnext  15/25  2 of 2 tests failed; TestL02A: runnext lost (and 1 failed whose results are not shown yet)")
	assert.NotContains(t, out, "TestPackL02")

	// The validator does catch what Gradescope would not read.
	for _, bad := range []string{
		`{"score": 1, "tests": [{"name": "x", "score": 1, "max_score": 1, "status": "ok"}]}`,
		`{"score": 1, "tests": [{"name": "x", "score": 1, "max_score": 1, "visibility": "sometimes"}]}`,
		`{"score": "1"}`,
		`{"scor": 1}`,
		`{"output": "no score and no tests"}`,
		`{"score": 2, "tests": [{"name": "x", "score": 1, "max_score": 1}]}`,
	} {
		assert.Error(t, reporttest.ValidateGradescope([]byte(bad)), bad)
	}
	assert.Error(t, report.Write(&bytes.Buffer{}, "gradescope", r), "results.json holds one submission")
}

func TestJUnitReadsAsCIToolsReadIt(t *testing.T) {
	data := write(t, "junit", sample())
	j, err := reporttest.ValidateJUnit(data)
	require.NoError(t, err, string(data))
	assert.Len(t, j.Suites, 6, "one suite per student and lesson")
	assert.Equal(t, 12, j.Tests)
	assert.Equal(t, 7, j.Failures, "bob 2 + 1, carol 4")
	assert.Equal(t, "=bob | <b>/01-ringbuffer", j.Suites[2].Name)
	assert.Equal(t, "=bob | <b>.01-ringbuffer", j.Suites[2].Cases[0].Classname)
	assert.Equal(t, "does not compile: runq.go:12:3: undefined: x", j.Suites[2].Cases[0].Failure.Message)
	if err := reporttest.XMLLint(data); errors.Is(err, reporttest.ErrNoXMLLint) {
		t.Skip(err)
	} else {
		require.NoError(t, err)
	}
	// And the XSD does reject what a reader would not take.
	bad := strings.Replace(string(data), `<testcase name="TestL01A"`, `<testcase`, 1)
	assert.Error(t, reporttest.XMLLint([]byte(bad)), "a testcase without a name must not validate")
}

func TestCSVImportsAsAGradebook(t *testing.T) {
	r := sample()
	rows, err := reporttest.ValidateCSV(write(t, "csv", r), []string{"01-ringbuffer", "02-runnext"}, []string{"alice", "'=bob | <b>", "carol"})
	require.NoError(t, err)
	assert.Equal(t, []string{"alice", "55", "55", "30", "25", "", ""}, rows[1])
	assert.Equal(t, "0", rows[3][1])
	assert.Contains(t, rows[3][5], "zip-slip")
	assert.Contains(t, rows[2][5], "01-ringbuffer: does not compile")
}

func TestMarkdownEscapesWhatStudentsPrint(t *testing.T) {
	md := string(write(t, "markdown", sample()))
	assert.NotContains(t, md, "<script>")
	assert.NotContains(t, md, "](http")
	assert.Contains(t, md, `&lt;script&gt;`)
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(line, "| ") {
			assert.Equal(t, 5, strings.Count(line, "|")-strings.Count(line, `\|`), "a table row must keep its cells: %s", line)
		}
	}
	assert.Contains(t, md, "**01\\-ringbuffer** 0/30: does not compile")
}

func TestHTMLIsSelfContained(t *testing.T) {
	page := write(t, "html", sample())
	require.NoError(t, reporttest.ValidateHTML(page))
	assert.Contains(t, string(page), "&lt;script&gt;alert(1)&lt;/script&gt;")
	assert.Error(t, reporttest.ValidateHTML([]byte(`<html><img src="http://x/y.png"></html>`)))
}

func TestTableSaysWhatWasLost(t *testing.T) {
	out := string(write(t, "table", sample()))
	assert.Contains(t, out, "alice")
	assert.Contains(t, out, "55/55")
	assert.Contains(t, out, "=bob | <b>  01-ringbuffer  0/30  does not compile: runq.go:12:3: undefined: x")
	assert.Contains(t, out, "=bob | <b>  02-runnext  TestPackL02 0/10")
	assert.Contains(t, out, "carol  all lessons  0/55  unsafe or unreadable archive")
}

func TestJSONRoundTrips(t *testing.T) {
	r := sample()
	var back report.Report
	require.NoError(t, json.Unmarshal(write(t, "json", r), &back))
	assert.Equal(t, *r, back)
}

func TestClassroomResult(t *testing.T) {
	r := sample()
	bob := r.Students[1]
	enc, err := report.EncodeClassroom(report.Classroom("kata check", bob.Lessons, []report.LessonGrade{bob.Lessons[0]}))
	require.NoError(t, err)
	c, err := reporttest.ValidateClassroom(enc)
	require.NoError(t, err)
	assert.Equal(t, "fail", c.Status)
	assert.Equal(t, 55, c.MaxScore, "the capstone's points do not count twice")
	total := 0
	for _, tr := range c.Tests {
		total += tr.Score
	}
	assert.Equal(t, 15, total)
	assert.Len(t, c.Tests, 5)
	assert.Equal(t, "01-ringbuffer", c.Tests[4].Name)
	assert.Equal(t, 0, c.Tests[4].Score)
}

func TestClassroomFitsInAnEnvironmentVariable(t *testing.T) {
	// Eighty tests, each failing with a long message.
	var grades []report.LessonGrade
	for l := range 8 {
		g := report.LessonGrade{ID: fmt.Sprintf("%02d-lesson", l+1), Status: report.StatusFail, MaxScore: 100}
		for i := range 10 {
			g.Tests = append(g.Tests, report.TestGrade{Name: fmt.Sprintf("TestL%02d_%d", l+1, i), Status: report.StatusFail, MaxScore: 10,
				Message: strings.Repeat("a long line of a failure message, as a stress test prints\n", 200)})
		}
		grades = append(grades, g)
	}
	enc, err := report.EncodeClassroom(report.Classroom("kata check", grades, nil))
	require.NoError(t, err)
	assert.Less(t, len(enc), 128<<10, "Linux refuses an environment variable over 128 KiB")
	c, err := reporttest.ValidateClassroom(enc)
	require.NoError(t, err)
	assert.Contains(t, c.Tests[0].Message, "the whole message is in the log")
}

func TestOneLine(t *testing.T) {
	assert.Equal(t, "first line", report.OneLine("\n\n  first   line \nsecond"))
	long := strings.Repeat("x", 500)
	assert.Equal(t, 200, len([]rune(report.OneLine(long))))
}

// TestNamesAreCleanedInEveryFormat: a student's name and source come from
// file names, which a student chooses. Every format shows them on one
// line, with every control and format character as a visible escape.
func TestNamesAreCleanedInEveryFormat(t *testing.T) {
	r := sample()
	forged := "eve\x1b[2K\rgraded mallory: 55/55\nmallory  01-ringbuffer  30/30"
	r.Students[0].Name = forged
	r.Students[0].Source = "class/" + forged
	r.Students[2].Name = "carol\u202e\u2066gpj.exe\u2069\u200f\u061c\ufeff"
	r.Students[2].Source = "class/" + r.Students[2].Name + ".zip"
	for _, f := range report.Formats {
		out := writeFor(t, f, r, &r.Students[2])
		for _, bad := range []string{"\x1b", "\r", "\u202e", "\u2066", "\u2069", "\u200f", "\u061c", "\ufeff", "\nmallory"} {
			assert.NotContains(t, string(out), bad, "%s lets %q of a name through", f, bad)
		}
		shown := `carol\u202e\u2066gpj.exe\u2069\u200f\u061c\ufeff`
		switch f {
		case "table", "csv", "html":
			assert.Contains(t, string(out), shown, "%s: a bidi control shows as its escape", f)
		case "markdown":
			assert.Contains(t, string(out), strings.ReplaceAll(shown, `\`, `\\`), "%s: a bidi control shows as its escape", f)
		}
	}
	var back report.Report
	require.NoError(t, json.Unmarshal(write(t, "json", r), &back))
	assert.Equal(t, report.Name(forged), back.Students[0].Name, "JSON holds the name as the other formats show it")
	assert.Equal(t, "class/"+report.Name(forged), back.Students[0].Source)
	table := string(write(t, "table", r))
	for _, line := range strings.Split(table, "\n") {
		assert.False(t, strings.HasPrefix(line, "mallory"), "a name forged a line of the table: %q", line)
	}
	assert.Equal(t, `eve\x1b[2K\rgraded mallory: 55/55\nmallory  01-ringbuffer  30/30`, report.Name(forged))
}

func TestCleanShowsWhatItReplaces(t *testing.T) {
	assert.Equal(t, `\x1b[2Ja\xff\u202eb`+"\n\t"+`c\U000e0001`, report.Clean("\x1b[2Ja\xff\u202eb\n\tc\U000e0001"))
	assert.Equal(t, `a\nb\tc\r`, report.Name("a\nb\tc\r"))
	assert.Equal(t, "plain ascii, accents é and emoji 🙂 stay", report.Name("plain ascii, accents é and emoji 🙂 stay"))
	for _, s := range []string{"\x1b\u202e\xff\n", "x\u2028y"} {
		assert.Equal(t, report.Name(s), report.Name(report.Name(s)), "cleaning twice changes nothing")
	}
}

// TestLooksLikeInEveryFormat: two students whose names look alike ("Dana"
// and the honest "dana") keep their names, and every format the
// instructor reads flags each as looking like the other; Gradescope's,
// which the student reads, names no other student.
func TestLooksLikeInEveryFormat(t *testing.T) {
	r := sample()
	r.Students = r.Students[:2]
	r.Students[0].Name, r.Students[0].Source, r.Students[0].LooksLike = "Dana", "class/Dana", []string{"dana"}
	r.Students[1].Name, r.Students[1].Source, r.Students[1].LooksLike = "dana", "class/dana", []string{"Dana"}

	rows, err := reporttest.ValidateCSV(write(t, "csv", r), []string{"01-ringbuffer", "02-runnext"}, []string{"Dana", "dana"})
	require.NoError(t, err)
	assert.Equal(t, "dana", rows[1][len(rows[1])-1], "the looks_like column")
	assert.Equal(t, "Dana", rows[2][len(rows[2])-1])

	table := string(write(t, "table", r))
	assert.Contains(t, table, "Dana (class/Dana)  looks like: dana")
	assert.Contains(t, table, "dana (class/dana)  looks like: Dana")
	assert.Contains(t, string(write(t, "markdown", r)), "- Dana (class/Dana) looks like: dana")
	page := write(t, "html", r)
	require.NoError(t, reporttest.ValidateHTML(page))
	assert.Contains(t, string(page), "(looks like: dana)")
	assert.Contains(t, string(write(t, "json", r)), `"looks_like": [`)
	j, err := reporttest.ValidateJUnit(write(t, "junit", r))
	require.NoError(t, err)
	found := false
	for _, p := range j.Suites[0].Props {
		found = found || (p.Name == "looks_like" && p.Value == "dana")
	}
	assert.True(t, found, "the junit suite of Dana has the property looks_like=dana: %+v", j.Suites[0].Props)

	one := &report.Report{Kata: r.Kata, Course: r.Course, Lessons: r.Lessons, Students: r.Students[:1]}
	assert.NotContains(t, string(write(t, "gradescope", one)), "dana", "Gradescope's results are read by the student: they name no other")
}
