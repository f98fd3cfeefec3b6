package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// The JUnit XML that CI tools (Jenkins, GitLab, GitHub's test reporters,
// Azure) read: testsuites holding one testsuite per student and lesson,
// named "student/lesson", holding one testcase per test, named after the
// test, with classname "student.lesson". A lost test has a <failure> (its
// reason as message, all of it as text); a test kata could not run has an
// <error>. Points, which JUnit has no place for, are properties of each
// suite.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes r as JUnit XML. encoding/xml escapes what needs it and
// replaces characters XML cannot hold (the test2json framing byte, NUL).
func WriteJUnit(w io.Writer, r *Report) error {
	r = r.cleaned()
	out := junitSuites{Name: "kata grade"}
	for _, s := range r.Students {
		for _, l := range s.Lessons {
			suite := junitSuite{
				Name: s.Name + "/" + l.ID,
				Properties: []junitProperty{
					{Name: "student", Value: s.Name},
					{Name: "lesson", Value: l.ID},
					{Name: "score", Value: fmt.Sprint(l.Score)},
					{Name: "max_score", Value: fmt.Sprint(l.MaxScore)},
				},
			}
			if len(s.LooksLike) > 0 {
				suite.Properties = append(suite.Properties, junitProperty{Name: "looks_like", Value: strings.Join(s.LooksLike, ", ")})
			}
			for _, t := range l.Tests {
				c := junitCase{Name: t.Name, Classname: s.Name + "." + l.ID}
				switch t.Status {
				case StatusPass:
				case StatusError:
					c.Error = &junitProblem{Message: t.Reason, Type: "error", Text: Detail(t)}
					suite.Errors++
				default:
					c.Failure = &junitProblem{Message: t.Reason, Type: "fail", Text: Detail(t)}
					suite.Failures++
				}
				suite.Cases = append(suite.Cases, c)
			}
			suite.Tests = len(suite.Cases)
			out.Tests += suite.Tests
			out.Failures += suite.Failures
			out.Errors += suite.Errors
			out.Suites = append(out.Suites, suite)
		}
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}
