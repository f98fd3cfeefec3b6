package scenario

import (
	"fmt"
	"io"
	"strings"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// A ProcSummary is what one P did during a run.
type ProcSummary struct {
	P          int32
	Runs       int           // times a G started running on it
	Gs         int           // distinct Gs it ran
	Busy       time.Duration // time it spent running Gs
	Steals     int           // successful steals by this P
	StolenGs   int           // Gs it took in those steals
	StolenFrom int           // times other Ps stole from it
	Preempted  int           // Gs preempted on it
	Syscalls   int           // system calls entered on it
	Retaken    int           // times sysmon took it back from a system call
}

// A Summary is what a whole run did.
type Summary struct {
	Procs       []ProcSummary
	Span        time.Duration // first event to last
	Events      int
	Created     int // Gs created
	Ended       int // Gs finished
	Steals      int
	StolenGs    int
	SpinStarts  int // Ms that started spinning
	PreemptReqs int // sysmon's preemption requests
	Retakes     int // Ps sysmon took back from system calls
	GlobalIn    int // Gs put on the global run queue
	GlobalPeak  int // the most Gs the global run queue held at once
}

// A span is one stretch of a G running on a P.
type span struct {
	g          int64
	start, end int64
}

// Summarize computes the Summary of a run's events.
func Summarize(r *Result) Summary {
	s := Summary{Procs: make([]ProcSummary, r.Procs), Events: len(r.Events)}
	for i := range s.Procs {
		s.Procs[i].P = int32(i)
	}
	if len(r.Events) > 0 {
		s.Span = time.Duration(r.Events[len(r.Events)-1].When - r.Events[0].When)
	}
	proc := func(p int32) *ProcSummary {
		if p < 0 || int(p) >= len(s.Procs) {
			return nil
		}
		return &s.Procs[p]
	}
	seen := make([]map[int64]bool, r.Procs)
	for _, sp := range spans(r) {
		ps := &s.Procs[sp.p]
		ps.Busy += time.Duration(sp.end - sp.start)
	}
	for _, ev := range r.Events {
		ps := proc(ev.P)
		switch ev.Kind {
		case sched.EvGoCreate:
			s.Created++
		case sched.EvGoEnd:
			s.Ended++
		case sched.EvGoStart:
			if ps != nil {
				ps.Runs++
				if seen[ev.P] == nil {
					seen[ev.P] = map[int64]bool{}
				}
				if !seen[ev.P][ev.G] {
					seen[ev.P][ev.G] = true
					ps.Gs++
				}
			}
		case sched.EvSteal:
			s.Steals++
			s.StolenGs += int(ev.N)
			if ps != nil {
				ps.Steals++
				ps.StolenGs += int(ev.N)
			}
			if victim := proc(int32(ev.Arg)); victim != nil {
				victim.StolenFrom++
			}
		case sched.EvGoPreempt:
			if ps != nil {
				ps.Preempted++
			}
		case sched.EvGoSyscall:
			if ps != nil {
				ps.Syscalls++
			}
		case sched.EvSysmonRetake:
			s.Retakes++
			if ps != nil {
				ps.Retaken++
			}
		case sched.EvSpinStart:
			s.SpinStarts++
		case sched.EvSysmonPreempt:
			s.PreemptReqs++
		case sched.EvGlobalRunq:
			if ev.N > 0 {
				s.GlobalIn += int(ev.N)
			}
			s.GlobalPeak = max(s.GlobalPeak, int(ev.Arg))
		}
	}
	return s
}

type pspan struct {
	span
	p int32
}

// Totals says in one sentence what the whole run did.
func (s Summary) Totals() string {
	return fmt.Sprintf("%d events in %s: %s created, %d finished; %s moved %s; %s went through the global run queue, which held at most %d; an M started spinning %s; sysmon asked %s to yield and retook %s from system calls.",
		s.Events, round(s.Span), Plural(s.Created, "G"), s.Ended, Plural(s.Steals, "steal"), Plural(s.StolenGs, "G"),
		Plural(s.GlobalIn, "G"), s.GlobalPeak, times(s.SpinStarts), Plural(s.PreemptReqs, "G"), Plural(s.Retakes, "P"))
}

// Plural returns n and the noun, with an s unless n is 1: "1 G", "4 Ps".
// The scheduler's nouns all take an s.
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// times says how often: "once", "twice", "3 times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// spans pairs each EvGoStart with the event that ends that stretch of
// running: the G parking, yielding, being preempted, entering a system call
// or finishing.
func spans(r *Result) []pspan {
	open := map[int64]pspan{} // by G
	var out []pspan
	for _, ev := range r.Events {
		switch ev.Kind {
		case sched.EvGoStart:
			if ev.P >= 0 && int(ev.P) < r.Procs {
				open[ev.G] = pspan{span: span{g: ev.G, start: ev.When}, p: ev.P}
			}
		case sched.EvGoPark, sched.EvGoSched, sched.EvGoPreempt, sched.EvGoSyscall, sched.EvGoEnd:
			if sp, ok := open[ev.G]; ok {
				sp.end = ev.When
				out = append(out, sp)
				delete(open, ev.G)
			}
		}
	}
	return out
}

// Print writes the summary of r: a table of what each P did, a timeline,
// and the totals.
func Print(w io.Writer, r *Result, width int) {
	s := Summarize(r)
	fmt.Fprintf(w, "scenario %s: %s\n(%s, seed %d)\n\n", r.Scenario.Name, r.Scenario.Short, Plural(r.Procs, "P"), r.Seed)
	fmt.Fprintf(w, "%-4s %6s %5s %10s %14s %12s %10s %9s %8s\n", "P", "runs", "Gs", "busy", "steals (Gs)", "stolen from", "preempted", "syscalls", "retaken")
	for _, p := range s.Procs {
		fmt.Fprintf(w, "P%-3d %6d %5d %10s %14s %12d %10d %9d %8d\n", p.P, p.Runs, p.Gs, round(p.Busy),
			fmt.Sprintf("%d (%d)", p.Steals, p.StolenGs), p.StolenFrom, p.Preempted, p.Syscalls, p.Retaken)
	}
	fmt.Fprintln(w)
	printTimeline(w, r, width)
	fmt.Fprintf(w, "\n%s\n", s.Totals())
	if r.Err != nil {
		fmt.Fprintf(w, "\nWait returned: %v\n", r.Err)
	}
}

// printTimeline draws one line per P: each column is a slice of time, and
// shows which G ran then (a character per G), or '.' if none.
func printTimeline(w io.Writer, r *Result, width int) {
	if len(r.Events) == 0 || width < 8 {
		return
	}
	t0, t1 := r.Events[0].When, r.Events[len(r.Events)-1].When
	if t1 <= t0 {
		t1 = t0 + 1
	}
	col := func(t int64) int {
		c := int(float64(t-t0) / float64(t1-t0) * float64(width))
		return min(max(c, 0), width-1)
	}
	lines := make([][]byte, r.Procs)
	for i := range lines {
		lines[i] = []byte(strings.Repeat(".", width))
	}
	const glyphs = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	for _, sp := range spans(r) {
		for c := col(sp.start); c <= col(sp.end); c++ {
			lines[sp.p][c] = glyphs[sp.g%int64(len(glyphs))]
		}
	}
	fmt.Fprintf(w, "timeline: %s across, one column = %s; each character is a G (its ID mod 62), '.' is idle\n",
		round(time.Duration(t1-t0)), round(time.Duration(t1-t0)/time.Duration(width)))
	for i, l := range lines {
		fmt.Fprintf(w, "P%-3d |%s|\n", i, l)
	}
}

func round(d time.Duration) time.Duration {
	switch {
	case d > time.Second:
		return d.Round(time.Millisecond)
	case d > time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(100 * time.Nanosecond)
	}
}
