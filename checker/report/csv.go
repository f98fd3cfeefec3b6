package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"strings"
	"unicode"
)

// WriteCSV writes one row per student, for a gradebook to import. The
// columns are always, in this order: student, score, max_score, one column
// per lesson graded (its score, headed by its ID, in course order), notes
// (what was lost, one "lesson: reason" per failing lesson), and looks_like
// (the other students whose names look like this one's, "; " between
// them: empty but for look-alikes). Cells a spreadsheet would take for a
// formula are quoted with a leading '.
func WriteCSV(w io.Writer, r *Report) error {
	r = r.cleaned()
	cw := csv.NewWriter(w)
	head := []string{"student", "score", "max_score"}
	for _, l := range r.Lessons {
		head = append(head, l.ID)
	}
	head = append(head, "notes", "looks_like")
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, s := range r.Students {
		row := []string{safeCell(s.Name), fmt.Sprint(s.Score), fmt.Sprint(s.MaxScore)}
		var notes []string
		if s.Problem != "" {
			notes = append(notes, s.Problem)
		}
		for _, l := range s.Lessons {
			row = append(row, fmt.Sprint(l.Score))
			if l.Status != StatusPass && s.Problem == "" {
				notes = append(notes, l.ID+": "+l.Reason)
			}
		}
		row = append(row, safeCell(strings.Join(notes, "; ")), safeCell(strings.Join(s.LooksLike, "; ")))
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// safeCell defuses a cell a spreadsheet would run as a formula (CSV
// injection): names and notes come from file names and from code under
// test. A cell is quoted with a leading ' if its first character that is
// not a space (spreadsheets skip leading spaces, tabs and line breaks
// before a formula) starts one: = + - @, their fullwidth forms, a tab or
// a carriage return, or | and %, which some read as a link to another
// program (DDE).
func safeCell(s string) string {
	t := strings.TrimLeftFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || hiddenRune(r)
	})
	if t == "" && s == "" {
		return s
	}
	if t == "" || strings.ContainsRune("=+-@|%＝＋－＠", []rune(t)[0]) || t != s {
		return "'" + s
	}
	return s
}
