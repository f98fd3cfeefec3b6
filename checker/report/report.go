// Package report is a workshop's gradebook: the model `kata grade` fills in
// (Report: students × lessons × tests, with points and a one-line reason
// for every loss) and one writer per format, each in its own file:
//
//	table.go       table      for a person at a terminal
//	csv.go         csv        one row per student, for a gradebook import
//	json.go        json       the whole model, for tools
//	junit.go       junit      JUnit XML, for CI dashboards
//	gradescope.go  gradescope Gradescope's results.json (one submission)
//	markdown.go    markdown   a summary table and the failures
//	html.go        html       one self-contained page
//	classroom.go   classroom  GitHub Classroom's autograding result (kata check)
//
// A report holds no timings and no timestamps: the same grades give the
// same bytes, so a report can be diffed, and a grading that was killed and
// resumed gives the report an uninterrupted one would have.
package report

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Status values, as in package checker.
const (
	StatusPass  = "pass"
	StatusFail  = "fail"
	StatusError = "error" // kata could not grade it: nobody's fault but the grader's
)

// A Report is the grades of a class.
type Report struct {
	// Kata names the kata that graded (a hash of its executable) and
	// Course what it graded against (the reference, the hidden tests and
	// any private test pack): equal pairs grade alike.
	Kata     string    `json:"kata"`
	Course   string    `json:"course"`
	Lessons  []Lesson  `json:"lessons"`
	Students []Student `json:"students"`
}

// A Lesson is one graded lesson, with its tests in report order.
type Lesson struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	MaxScore int    `json:"max_score"`
	Tests    []Test `json:"tests"`
}

// A Test is one test of a lesson.
type Test struct {
	Name   string `json:"name"`
	Points int    `json:"points"`
	Kind   string `json:"kind"`
	About  string `json:"about"`
	// Private marks a test of the instructor's private test pack.
	Private bool `json:"private,omitempty"`
	// Visibility is when a student may see the test's result, in
	// Gradescope's words: visible, after_due_date, after_published or
	// hidden.
	Visibility string `json:"visibility"`
}

// A Student is one submission's grades.
type Student struct {
	Name     string `json:"name"`
	Source   string `json:"source"` // where the submission came from, as given
	Score    int    `json:"score"`
	MaxScore int    `json:"max_score"`
	// Problem says why nothing of the submission could be graded (an
	// unsafe archive, no lesson files); every lesson then scores 0.
	Problem string        `json:"problem,omitempty"`
	Lessons []LessonGrade `json:"lessons"`
}

// A LessonGrade is a student's grade in one lesson.
type LessonGrade struct {
	ID       string `json:"id"`
	Status   string `json:"status"`
	Score    int    `json:"score"`
	MaxScore int    `json:"max_score"`
	// Reason says in one line why points were lost ("" if none were).
	Reason string `json:"reason,omitempty"`
	// Untouched says the lesson's files are the skeleton's: not started.
	Untouched     bool        `json:"untouched,omitempty"`
	CompileErrors []string    `json:"compile_errors,omitempty"`
	Tests         []TestGrade `json:"tests"`
}

// A TestGrade is a student's grade in one test.
type TestGrade struct {
	Name     string `json:"name"`
	Status   string `json:"status"`
	Score    int    `json:"score"`
	MaxScore int    `json:"max_score"`
	// Reason is the failure in one line; Message all of it.
	Reason  string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
}

// Formats lists the formats Write knows, the default first.
var Formats = []string{"table", "csv", "json", "junit", "gradescope", "markdown", "html"}

// Write writes r in format. The gradescope format holds one submission:
// use WriteGradescope for each of several.
func Write(w io.Writer, format string, r *Report) error {
	switch format {
	case "table":
		return WriteTable(w, r)
	case "csv":
		return WriteCSV(w, r)
	case "json":
		return WriteJSON(w, r)
	case "junit":
		return WriteJUnit(w, r)
	case "gradescope":
		if len(r.Students) != 1 {
			return fmt.Errorf("report: Gradescope's results.json holds one submission, not %d", len(r.Students))
		}
		return WriteGradescope(w, r, &r.Students[0])
	case "markdown":
		return WriteMarkdown(w, r)
	case "html":
		return WriteHTML(w, r)
	}
	return fmt.Errorf("report: no format %q (want one of %s)", format, strings.Join(Formats, ", "))
}

// MaxScore is the points a submission can score.
func (r *Report) MaxScore() int {
	total := 0
	for _, l := range r.Lessons {
		total += l.MaxScore
	}
	return total
}

// Lesson returns the lesson with the given ID, or nil.
func (r *Report) Lesson(id string) *Lesson {
	for i := range r.Lessons {
		if r.Lessons[i].ID == id {
			return &r.Lessons[i]
		}
	}
	return nil
}

// Test returns the test of lesson id with the given name, or nil.
func (r *Report) Test(id, name string) *Test {
	if l := r.Lesson(id); l != nil {
		for i := range l.Tests {
			if l.Tests[i].Name == name {
				return &l.Tests[i]
			}
		}
	}
	return nil
}

// Failing counts the lessons a student did not pass.
func (s *Student) Failing() int {
	n := 0
	for _, l := range s.Lessons {
		if l.Status != StatusPass {
			n++
		}
	}
	return n
}

// maxReason bounds a one-line reason, in runes.
const maxReason = 200

// OneLine reduces a message to its first non-empty line, cleaned and cut
// to a length a table cell can hold.
func OneLine(msg string) string {
	for _, line := range strings.Split(Clean(msg), "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			continue
		}
		if utf8.RuneCountInString(line) > maxReason {
			r := []rune(line)
			line = string(r[:maxReason-1]) + "…"
		}
		return line
	}
	return ""
}

// Clean makes text printed by code under test safe to show: invalid UTF-8
// and control characters other than newline and tab (terminal escapes, the
// test2json framing byte) become U+FFFD.
func Clean(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r == utf8.RuneError || (unicode.IsControl(r) && r != '\n' && r != '\t') }) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		if unicode.IsControl(r) && r != '\n' && r != '\t' {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Fraction formats score/max.
func Fraction(score, max int) string {
	return fmt.Sprintf("%d/%d", score, max)
}
