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
	Problem string `json:"problem,omitempty"`
	// LooksLike names the other students whose names a reader could take
	// this one's for (Lookalike): names are kept as handed in, never
	// numbered apart, and flagged so for the instructor to check.
	LooksLike []string      `json:"looks_like,omitempty"`
	Lessons   []LessonGrade `json:"lessons"`
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
	// Reason is the failure in one line, kata's words as they are and
	// what the program printed quoted (Printed); Message all of it, as
	// the checker wrote it (cleaned).
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

// Clean makes text printed by code under test safe to show, in a terminal
// and in every format: every character a reader would not see as itself
// becomes a visible escape, as Go writes it in a string. That is invalid
// UTF-8 (\xff), control characters other than newline and tab (terminal
// escapes \x1b, the test2json framing byte \x16, \r), format characters
// (Unicode's Cf: the bidi controls U+202A–U+202E and U+2066–U+2069 that
// reorder what is shown, U+200E, U+200F, U+061C, zero-width characters,
// U+FEFF), the other characters Unicode says to show as nothing (its
// Default_Ignorable_Code_Point: U+034F, the variation selectors U+FE00–
// U+FE0F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0...), the
// spaces other than the ASCII one (U+00A0, U+2000–U+200A, U+3000...),
// U+2800 and U+1D159, which show as blanks a reader takes for a space or
// for nothing, the line and paragraph separators U+2028 and U+2029, and
// the private-use characters and the code points Unicode has not
// assigned, which a font draws as it likes (a box, an icon, nothing). An
// escape is plain ASCII, so cleaning twice changes nothing.
func Clean(s string) string {
	return escape(s, true)
}

// hiddenRune reports whether r is shown escaped: a reader would not see it
// as itself, or it would change how the text around it is shown.
func hiddenRune(r rune) bool {
	switch {
	case r < utf8.RuneSelf:
		return r < 0x20 || r == 0x7f
	case r == '\u2800', // BRAILLE PATTERN BLANK: a letter that shows as a space
		r == '\U0001d159': // MUSICAL SYMBOL NULL NOTEHEAD: a symbol that shows as nothing
		return true
	case !unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S, unicode.Z, unicode.Cc, unicode.Cf, unicode.Co, unicode.Cs):
		// A code point Unicode has not assigned: a font draws it as a
		// box, as anything, or as nothing.
		return true
	}
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs,
		unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector, unicode.Noncharacter_Code_Point)
}

// escape is Clean (lines: newline and tab kept) and Name (name: newline
// and tab escaped, and the spaces and combining marks Name says).
func escape(s string, lines bool) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || (hiddenRune(r) && !(lines && (r == '\n' || r == '\t'))) ||
			(!lines && (r == ' ' || unicode.Is(unicode.M, r))) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	// shown says whether the rune before was shown as itself, and is not
	// a space: a combining mark of a name goes on such a rune, or is
	// escaped.
	shown := i > 0
	if shown {
		last, _ := utf8.DecodeLastRuneInString(s[:i])
		shown = last != ' '
	}
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		literal := false
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
			literal = true
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case hiddenRune(r):
			escapeRune(&b, r)
		case !lines && r == ' ' && (i == 0 || i+size == len(s)):
			// A name's space shows only between two other characters:
			// leading or trailing, it is one nobody sees.
			b.WriteString(`\x20`)
		case !lines && unicode.Is(unicode.M, r) && !shown:
			// A combining mark with nothing to combine with shows as
			// nothing, or on a space.
			escapeRune(&b, r)
		default:
			b.WriteString(s[i : i+size])
			literal = r != ' '
		}
		shown = literal
		i += size
	}
	return b.String()
}

// escapeRune writes r as Go writes it escaped in a string.
func escapeRune(b *strings.Builder, r rune) {
	switch {
	case r < utf8.RuneSelf:
		fmt.Fprintf(b, `\x%02x`, r)
	case r <= 0xffff:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// cleaned returns r as every writer shows it: each student's name and
// source cleaned by Name (they come from file names a student chose) and
// problem in one line. Package grade fills a Report in cleaned already;
// the writers clean again (it changes nothing then) because a Report may
// be made by anyone. The grades themselves are r's, not copies.
func (r *Report) cleaned() *Report {
	c := *r
	c.Students = make([]Student, len(r.Students))
	for i, s := range r.Students {
		s.Name, s.Source, s.Problem = Name(s.Name), Name(s.Source), OneLine(s.Problem)
		if s.LooksLike != nil {
			like := make([]string, len(s.LooksLike))
			for j, n := range s.LooksLike {
				like[j] = Name(n)
			}
			s.LooksLike = like
		}
		c.Students[i] = s
	}
	return &c
}

// Detail is t's whole message as a report shows it in full: its reason
// (what the program printed quoted), then the message's other lines, each
// after "| ", a quotation of what the test printed (as the checker
// condensed it: a panic's frames, a race's accesses) that no line of
// kata's own follows.
func Detail(t TestGrade) string {
	lines := strings.Split(Clean(t.Message), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	reason := t.Reason
	if reason == "" {
		reason = OneLine(t.Message)
	}
	if len(lines) <= 1 {
		return reason
	}
	var b strings.Builder
	b.WriteString(reason)
	for _, l := range lines[1:] {
		b.WriteString("\n| " + l)
	}
	return b.String()
}

// Fraction formats score/max.
func Fraction(score, max int) string {
	return fmt.Sprintf("%d/%d", score, max)
}
