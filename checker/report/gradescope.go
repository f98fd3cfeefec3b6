package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Gradescope's results.json, as its autograder specification documents
// it (gradescope-autograders.readthedocs.io, "Autograder Specifications"):
// a total score, output for the whole submission, and one entry per test
// with its score, max_score, status ("passed" or "failed"), output and
// visibility. Gradescope runs the autograder once per submission, so a
// results.json holds one student.

// GradescopeResults is the top level of results.json.
type GradescopeResults struct {
	Score            int              `json:"score"`
	Output           string           `json:"output"`
	Visibility       string           `json:"visibility"`
	StdoutVisibility string           `json:"stdout_visibility"`
	Tests            []GradescopeTest `json:"tests"`
}

// GradescopeTest is one test case of results.json.
type GradescopeTest struct {
	Name       string   `json:"name"`
	Number     string   `json:"number"`
	Score      int      `json:"score"`
	MaxScore   int      `json:"max_score"`
	Status     string   `json:"status"`
	Output     string   `json:"output,omitempty"`
	Tags       []string `json:"tags"`
	Visibility string   `json:"visibility"`
}

// Gradescope builds the results.json of student s.
func Gradescope(r *Report, s *Student) GradescopeResults {
	res := GradescopeResults{Score: s.Score, Visibility: "visible", StdoutVisibility: "hidden", Tests: []GradescopeTest{}}
	var out []string
	if s.Problem != "" {
		out = append(out, "Nothing could be graded: "+OneLine(s.Problem))
	}
	for i, l := range s.Lessons {
		line := fmt.Sprintf("%s  %s", l.ID, Fraction(l.Score, l.MaxScore))
		if reason := shownReason(r, l); reason != "" && s.Problem == "" {
			line += "  " + reason
		}
		out = append(out, line)
		for j, t := range l.Tests {
			gt := GradescopeTest{
				Name:       l.ID + ": " + t.Name,
				Number:     fmt.Sprintf("%d.%d", i+1, j+1),
				Score:      t.Score,
				MaxScore:   t.MaxScore,
				Status:     "failed",
				Output:     Detail(t),
				Tags:       []string{l.ID},
				Visibility: "visible",
			}
			if t.Status == StatusPass {
				gt.Status = "passed"
			}
			if info := r.Test(l.ID, t.Name); info != nil {
				if info.About != "" {
					gt.Output = strings.TrimSpace(info.About + "\n\n" + gt.Output)
				}
				gt.Visibility = info.Visibility
				if info.Kind != "" {
					gt.Tags = append(gt.Tags, info.Kind)
				}
			}
			res.Tests = append(res.Tests, gt)
		}
	}
	res.Output = strings.Join(out, "\n")
	return res
}

// shownReason is the lesson's reason as the student may read it now: the
// top-level output is visible at once, so a test whose own result is not
// (a private test's, after_published or hidden) is not named there, nor
// what it printed. A fifth red team read a private test's name and input
// there, its own entry kept until the grades were published.
func shownReason(r *Report, l LessonGrade) string {
	var shown, withheld []TestGrade
	for _, t := range l.Tests {
		if t.Status == StatusPass {
			continue
		}
		if info := r.Test(l.ID, t.Name); info != nil && info.Visibility != "" && info.Visibility != "visible" {
			withheld = append(withheld, t)
		} else {
			shown = append(shown, t)
		}
	}
	if len(withheld) == 0 {
		return l.Reason
	}
	later := fmt.Sprintf("%d failed whose results are not shown yet", len(withheld))
	if len(shown) == 0 {
		return later
	}
	return failedLine(shown, len(shown)+len(withheld), len(l.Tests)) + " (and " + later + ")"
}

// WriteGradescope writes the results.json of student s.
func WriteGradescope(w io.Writer, r *Report, s *Student) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(Gradescope(r, s))
}
