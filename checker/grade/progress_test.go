package grade

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/stretchr/testify/assert"
)

func TestPrinterPlainLines(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, false)
	s := Status{Cells: 16, Done: 8, Runs: 4, RunsDone: 2, Students: 2, StudentsDone: 1}
	lessons := []report.LessonGrade{{Status: report.StatusPass}, {Status: report.StatusFail}, {Status: report.StatusPass}}
	p.Update(s, []report.Student{{Name: "alice", Score: 800, MaxScore: 814, Lessons: lessons}})
	p.Update(s, nil)
	p.Update(s, []report.Student{{Name: "bob", MaxScore: 814, Problem: "unsafe or unreadable archive: zip-slip"}})
	p.Finish(s)
	assert.Equal(t, "graded alice: 800/814  (1 of 3 lessons short)\ngraded bob: 0/814  (unsafe or unreadable archive: zip-slip)\n", b.String(),
		"off a terminal: one plain line per finished student, nothing else")
}

func TestPrinterBar(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, true)
	defer p.Close()
	p.Update(Status{Cells: 240, Done: 120, Failing: 7, Runs: 40, RunsDone: 10, Elapsed: 30 * time.Second, ETA: 90 * time.Second}, nil)
	out := b.String()
	assert.True(t, strings.HasPrefix(out, "\r\x1b[K["), "the bar redraws its line: %q", out)
	assert.Contains(t, out, "120/240 lesson grades")
	assert.Contains(t, out, "7 failing")
	assert.Contains(t, out, "10/40 runs")
	assert.Contains(t, out, "ETA 1m30s")
	assert.Contains(t, out, "["+strings.Repeat("#", 12)+strings.Repeat("-", 12)+"]")
	b.Reset()
	p.Finish(Status{Cells: 240, Done: 240, Runs: 40, RunsDone: 40})
	assert.Contains(t, b.String(), "done")
	assert.True(t, strings.HasSuffix(b.String(), "\n"), "the bar leaves its line when done")
}

// TestPrinterLinesCannotBeForged: a name with a newline and terminal
// escapes printed as it is would add a line of its own ("graded mallory:
// 824∕824"), or rewrite the one before it.
func TestPrinterLinesCannotBeForged(t *testing.T) {
	var b bytes.Buffer
	p := NewPrinter(&b, false)
	s := Status{Cells: 2, Done: 2, Students: 1, StudentsDone: 1}
	p.Update(s, []report.Student{{Name: "eve\x1b[1A\x1b[2K\rgraded mallory: 824∕824\n\u202egraded", Score: 0, MaxScore: 824,
		Problem: "unsafe archive\ngraded trudy: 824/824"}})
	p.Finish(s)
	assert.Equal(t, `graded eve\x1b[1A\x1b[2K\rgraded mallory: 824∕824\n\u202egraded: 0/824  (unsafe archive)`+"\n", b.String())
}
