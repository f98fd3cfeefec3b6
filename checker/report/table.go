package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// WriteTable writes r for a person: one row per student with each lesson's
// score and the total, then what was lost, one line per failing lesson (or
// per failing test, when a lesson's tests failed for different reasons).
func WriteTable(w io.Writer, r *Report) error {
	r = r.cleaned()
	head := []string{"student"}
	for _, l := range r.Lessons {
		head = append(head, l.ID[:2])
	}
	head = append(head, "total")
	rows := [][]string{head}
	for _, s := range r.Students {
		row := []string{s.Name}
		for _, l := range s.Lessons {
			row = append(row, fmt.Sprint(l.Score))
		}
		rows = append(rows, append(row, Fraction(s.Score, s.MaxScore)))
	}
	width := make([]int, len(head))
	for _, row := range rows {
		for i, cell := range row {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		for i, cell := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell))
			if i == 0 {
				b.WriteString(cell + pad) // names left, numbers right
			} else {
				b.WriteString("  " + pad + cell)
			}
		}
		if _, err := fmt.Fprintln(w, b.String()); err != nil {
			return err
		}
	}
	var lines []string
	for _, s := range r.Students {
		for _, line := range lostLines(r, &s) {
			lines = append(lines, "  "+line)
		}
	}
	if len(lines) > 0 {
		fmt.Fprintf(w, "\nWhat was lost:\n%s\n", strings.Join(lines, "\n"))
	}
	var alike []string
	for _, s := range r.Students {
		if len(s.LooksLike) > 0 {
			alike = append(alike, fmt.Sprintf("  %s (%s)  looks like: %s", s.Name, s.Source, strings.Join(s.LooksLike, ", ")))
		}
	}
	if len(alike) > 0 {
		fmt.Fprintf(w, "\nNames that look alike, kept as handed in (check them against your roster):\n%s\n", strings.Join(alike, "\n"))
	}
	_, err := fmt.Fprintf(w, "\n%d submissions, %d lessons, %d points each.\n", len(r.Students), len(r.Lessons), r.MaxScore())
	return err
}

// lostLines says what a student lost, one line each: a lesson whose tests
// all failed for one reason is one line, otherwise each failing test is.
func lostLines(r *Report, s *Student) []string {
	var out []string
	if s.Problem != "" {
		return []string{fmt.Sprintf("%s  all lessons  %s  %s", s.Name, Fraction(s.Score, s.MaxScore), s.Problem)}
	}
	var untouched []string
	lost := 0
	for _, l := range s.Lessons {
		if l.Status == StatusPass {
			continue
		}
		if l.Untouched {
			untouched = append(untouched, l.ID)
			lost += l.MaxScore - l.Score
			continue
		}
		if sameReason(l) {
			out = append(out, fmt.Sprintf("%s  %s  %s  %s", s.Name, l.ID, Fraction(l.Score, l.MaxScore), l.Reason))
			continue
		}
		// Tests that were not run after one hung say the same thing:
		// one line for all of them.
		notRun, notRunMax, notRunReason := 0, 0, ""
		for _, t := range l.Tests {
			switch {
			case t.Status == StatusPass:
			case strings.HasPrefix(t.Reason, "not run:"):
				notRun, notRunMax, notRunReason = notRun+1, notRunMax+t.MaxScore, t.Reason
			default:
				out = append(out, fmt.Sprintf("%s  %s  %s %s  %s", s.Name, l.ID, t.Name, Fraction(t.Score, t.MaxScore), t.Reason))
			}
		}
		if notRun > 0 {
			out = append(out, fmt.Sprintf("%s  %s  %d more tests 0/%d  %s", s.Name, l.ID, notRun, notRunMax, notRunReason))
		}
	}
	if len(untouched) > 0 {
		out = append(out, fmt.Sprintf("%s  %s  0/%d  not started: the skeleton's stubs, unchanged", s.Name, strings.Join(untouched, ", "), lost))
	}
	return out
}

// sameReason reports whether every failing test of l failed for the
// lesson's one reason (it does not compile, it is not started...).
func sameReason(l LessonGrade) bool {
	for _, t := range l.Tests {
		if t.Status != StatusPass && t.Reason != l.Reason {
			return false
		}
	}
	return true
}
