package report

import (
	"fmt"
	"strings"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// FromResult turns the checker's grade of a lesson into a report's: every
// reason in one line, what the program printed quoted in it (Printed),
// characters a terminal or a parser would choke on replaced, timings
// dropped. tests are the lesson's tests: a result that
// lacks some (kata could not run the check at all) gets them as errors.
func FromResult(res *checker.LessonResult, tests []lessons.Test) LessonGrade {
	g := LessonGrade{ID: res.ID, Status: res.Status, Score: res.Score, MaxScore: res.MaxScore}
	for _, e := range res.CompileErrors {
		g.CompileErrors = append(g.CompileErrors, Clean(e))
	}
	// Compile errors and the vetter's refusals are kata's words only
	// where the checker says the lesson was not compiled; everything else
	// a test says may be what the program printed (Printed).
	compiled := !res.NotCompiled && len(res.CompileErrors) == 0 && len(res.VetProblems) == 0
	have := map[string]bool{}
	for _, t := range res.Tests {
		have[t.Name] = true
		g.Tests = append(g.Tests, TestGrade{Name: t.Name, Status: t.Status, Score: t.Score, MaxScore: t.MaxScore,
			Reason: Printed(t.Message, compiled), Message: Clean(t.Message)})
	}
	if res.Status == checker.StatusError {
		why := "kata could not grade it: " + OneLine(res.Error)
		for _, t := range tests {
			if !have[t.Name] {
				g.Tests = append(g.Tests, TestGrade{Name: t.Name, Status: StatusError, MaxScore: t.Points, Reason: why, Message: Clean(res.Error)})
			}
		}
		g.Reason = why
		return g
	}
	g.Reason = lessonReason(g)
	return g
}

// Failed is the grade of a lesson that could not be run at all (the file
// is missing, a link out of the submission, the archive unsafe): every
// test fails with reason.
func Failed(l *lessons.Lesson, reason string) LessonGrade {
	reason = OneLine(reason)
	g := LessonGrade{ID: l.ID, Status: StatusFail, MaxScore: l.MaxScore(), Reason: reason}
	for _, t := range l.Tests {
		g.Tests = append(g.Tests, TestGrade{Name: t.Name, Status: StatusFail, MaxScore: t.Points, Reason: reason, Message: reason})
	}
	return g
}

// lessonReason says in one line why a lesson lost points.
func lessonReason(g LessonGrade) string {
	if g.Status == StatusPass {
		return ""
	}
	if len(g.CompileErrors) > 0 {
		return OneLine("does not compile: " + g.CompileErrors[0])
	}
	var failing, with []TestGrade // with: those that failed only with another of their guarantee
	for _, t := range g.Tests {
		switch {
		case t.Status == StatusPass:
		case strings.HasPrefix(t.Message, checker.FailsWithPrefix):
			with = append(with, t)
		default:
			failing = append(failing, t)
		}
	}
	failing = append(failing, with...)
	return failedLine(failing, len(failing), len(g.Tests))
}

// failedLine says in one line which tests failed: failing's first, and
// how many of all failed. Tests that all failed for one reason are that
// reason.
func failedLine(failing []TestGrade, failed, all int) string {
	if len(failing) == 0 {
		return ""
	}
	same := true
	for _, t := range failing {
		if t.Reason != failing[0].Reason {
			same = false
		}
	}
	if same && len(failing) > 1 && failed == len(failing) {
		return failing[0].Reason
	}
	return OneLine(fmt.Sprintf("%d of %d tests failed; %s: %s", failed, all, failing[0].Name, failing[0].Reason))
}
