package grade

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/report"
)

// Status is how far a grading is.
type Status struct {
	Cells, Done, Failing   int // lesson grades: all, settled, not passing
	Runs, RunsDone         int // lessons to grade by running their tests
	Students, StudentsDone int
	Elapsed, ETA           time.Duration // ETA is 0 until a run has finished
}

// Progress is told how a grading goes: Update after each run (and once at
// the start), with the students it finished; Finish at the end.
type Progress interface {
	Update(s Status, finished []report.Student)
	Finish(s Status)
}

// tracker keeps a grading's Status.
type tracker struct {
	g        *Grader
	progress Progress
	subs     []*Submission
	cells    []*cell
	start    time.Time
	pending  []int // cells without a grade, per submission
	status   Status
}

func (t *tracker) update(finished []int) {
	if t.progress == nil {
		return
	}
	s := &t.status
	s.Done, s.Failing, s.StudentsDone = 0, 0, 0
	for _, c := range t.cells {
		if c.grade != nil {
			s.Done++
			if c.grade.Status != report.StatusPass {
				s.Failing++
			}
		}
	}
	if finished == nil && s.RunsDone == 0 {
		// The start: submissions settled without a run are finished.
		for si, n := range t.pending {
			if n == 0 {
				finished = append(finished, si)
			}
		}
	}
	for _, n := range t.pending {
		if n == 0 {
			s.StudentsDone++
		}
	}
	s.Elapsed = time.Since(t.start)
	s.ETA = 0
	if s.RunsDone > 0 {
		s.ETA = s.Elapsed / time.Duration(s.RunsDone) * time.Duration(s.Runs-s.RunsDone)
	}
	var students []report.Student
	n := len(t.g.lessons)
	for _, si := range finished {
		students = append(students, t.g.student(t.subs[si], t.cells[si*n:(si+1)*n]))
	}
	t.progress.Update(*s, students)
}

// Printer shows a grading's progress: on a terminal, one line redrawn in
// place (a bar, lesson grades done of all, failing so far, the ETA);
// elsewhere (a log, CI), one plain line per finished student.
type Printer struct {
	w      io.Writer
	tty    bool
	mu     sync.Mutex
	last   Status
	lastAt time.Time
	drawn  bool
	stop   chan struct{}
	once   sync.Once
}

// NewPrinter returns a Printer writing to w; tty says w is a terminal.
func NewPrinter(w io.Writer, tty bool) *Printer {
	p := &Printer{w: w, tty: tty, stop: make(chan struct{})}
	if tty {
		go p.tick()
	}
	return p
}

// tick redraws the bar every second, so that the clock moves while a long
// run goes on.
func (p *Printer) tick() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			if p.drawn {
				s, since := p.last, time.Since(p.lastAt)
				s.Elapsed += since
				if s.ETA > since {
					s.ETA -= since
				} else if s.ETA > 0 {
					s.ETA = time.Second
				}
				p.draw(s)
			}
			p.mu.Unlock()
		}
	}
}

func (p *Printer) Update(s Status, finished []report.Student) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.last, p.lastAt = s, time.Now()
	if p.tty {
		p.draw(s)
		return
	}
	for _, st := range finished {
		// The name and the problem are cleaned (a Submission's name is
		// already): a newline or a terminal escape in a name must not
		// forge a line of its own.
		line := fmt.Sprintf("graded %s: %s", report.Name(st.Name), report.Fraction(st.Score, st.MaxScore))
		if st.Problem != "" {
			line += "  (" + report.OneLine(st.Problem) + ")"
		} else if n := st.Failing(); n > 0 {
			line += fmt.Sprintf("  (%d of %d lessons short)", n, len(st.Lessons))
		}
		fmt.Fprintln(p.w, line)
	}
}

func (p *Printer) draw(s Status) {
	const width = 24
	filled := 0
	if s.Cells > 0 {
		filled = width * s.Done / s.Cells
	}
	eta := "ETA …"
	if s.RunsDone == s.Runs {
		eta = "done"
	} else if s.ETA > 0 {
		eta = "ETA " + s.ETA.Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\r\x1b[K[%s%s] %d/%d lesson grades · %d failing · %d/%d runs · %s · %s",
		strings.Repeat("#", filled), strings.Repeat("-", width-filled), s.Done, s.Cells, s.Failing, s.RunsDone, s.Runs,
		s.Elapsed.Round(time.Second), eta)
	p.drawn = true
}

func (p *Printer) Finish(s Status) {
	p.once.Do(func() { close(p.stop) })
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		p.draw(s)
		fmt.Fprintln(p.w)
	}
}

// Close stops the Printer's clock; call it if the grading ended without
// Finish (interrupted).
func (p *Printer) Close() {
	p.once.Do(func() { close(p.stop) })
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprintln(p.w)
		p.drawn = false
	}
}
