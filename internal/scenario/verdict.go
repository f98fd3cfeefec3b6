package scenario

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// This file judges one run from its events, for `kata trace` to say in the
// terminal what a browser would otherwise be needed for: what holds of every
// correct scheduler (every G runs to its end exactly once, the story's
// claims that do not depend on timing), and numbers that do depend on
// timing (how long a P sat idle beside queued work, yields, preemptions),
// which are compared over several runs, never judged on one.

// A Verdict is what one run shows.
type Verdict struct {
	Gs int // Gs created
	// Lost are the Gs made runnable that never ran afterwards; Unfinished
	// the other Gs that never ended, in a run that should have ended them
	// all (Wait returned nil, or deadlocked where it should not).
	Lost, Unfinished []int64
	// Twice are the Gs that ran on two Ps at once, ran after they ended,
	// or ended twice.
	Twice []int64
	// Idle is the longest stretch one P sat idle (no G running, not held
	// in a system call, the world not stopped) while some run queue or the
	// global queue held a runnable G; IdleP is that P, IdleAt when the
	// stretch began (Event.When).
	Idle   time.Duration
	IdleP  int32
	IdleAt int64
	// Yielded counts Gs that asked to yield (Gosched), Preempted Gs that
	// yielded because sysmon (or a stop-the-world) asked them to, Asked
	// those requests.
	Yielded, Preempted, Asked int
	// Story is the first claim of the scenario's story the run does not
	// bear out (nil: all of them); StoryMust says that claim holds of every
	// run of a correct scheduler, not only of most runs.
	Story     error
	StoryMust bool
	// Truncated: the run crashed, so its last events may be missing.
	Truncated bool
	// Parked: the scenario ends in a deadlock, so its Gs end parked, not
	// finished.
	Parked bool
}

// Broken reports whether the run breaks a property that every correct
// scheduler keeps: a G lost or run twice, a crash, a story claim that must
// hold.
func (v Verdict) Broken() bool {
	return v.Truncated || len(v.Lost) > 0 || len(v.Unfinished) > 0 || len(v.Twice) > 0 || (v.Story != nil && v.StoryMust)
}

// Judge returns the verdict on r. truncated says that the run crashed
// before it could end, so that Gs that did not end are not blamed on it
// unless they were left runnable.
func Judge(r *Result, truncated bool) Verdict {
	v := Verdict{Truncated: truncated, IdleP: -1, Parked: r.Scenario.WantDeadlock}
	gs := followGs(r)
	v.Gs = len(gs.created)
	// In a scenario that ends in a deadlock, Gs are left parked on purpose.
	allEnd := !truncated && !r.Scenario.WantDeadlock
	// A run that crashed while Gs ran stopped with others queued, not
	// lost; one that crashed with every M idle (checkdead) lost them.
	stopped := truncated && slices.ContainsFunc(gs.order, func(g int64) bool {
		return gs.state[g] == gRunning || gs.state[g] == gSyscall
	})
	for _, g := range gs.order {
		switch st := gs.state[g]; {
		case gs.twice[g]:
			v.Twice = append(v.Twice, g)
		case st == gRunnable && !stopped:
			v.Lost = append(v.Lost, g)
		case st != gDead && allEnd:
			v.Unfinished = append(v.Unfinished, g)
		}
	}
	v.Idle, v.IdleP, v.IdleAt = idleBesideWork(r)
	for _, ev := range r.Events {
		switch ev.Kind {
		case sched.EvGoSched:
			v.Yielded++
		case sched.EvGoPreempt:
			v.Preempted++
		case sched.EvSysmonPreempt:
			v.Asked++
		}
	}
	if !truncated && r.Scenario.Story != nil {
		_, v.Story = r.Scenario.Check(r)
		v.StoryMust = MustHold(v.Story)
	}
	return v
}

// The states followGs tracks a G through.
const (
	gNone = iota
	gRunnable
	gRunning
	gSyscall
	gParked
	gDead
)

// gLife is every G's state at the end of a run, and the Gs that were
// seen running twice.
type gLife struct {
	order   []int64 // in order of creation (or first sight)
	created map[int64]bool
	state   map[int64]int
	on      map[int64]int32 // the P a running G runs on
	twice   map[int64]bool
}

// followGs follows every G through the run's events.
func followGs(r *Result) gLife {
	l := gLife{created: map[int64]bool{}, state: map[int64]int{}, on: map[int64]int32{}, twice: map[int64]bool{}}
	see := func(g int64) {
		if _, ok := l.state[g]; !ok {
			l.order = append(l.order, g)
			l.state[g] = gNone
		}
	}
	for _, ev := range r.Events {
		g := ev.G
		if g == 0 || ev.Kind == sched.EvSteal || ev.Kind == sched.EvGlobalRunq || ev.Kind == sched.EvSysmonPreempt {
			continue // G names a G that was not itself acted on
		}
		see(g)
		switch ev.Kind {
		case sched.EvGoCreate:
			l.created[g] = true
			l.state[g] = gRunnable
		case sched.EvGoStart:
			switch l.state[g] {
			case gDead:
				l.twice[g] = true // ran after it ended
			case gRunning:
				if l.on[g] != ev.P {
					l.twice[g] = true // on two Ps at once
				}
			}
			l.state[g], l.on[g] = gRunning, ev.P
		case sched.EvGoEnd:
			if l.state[g] == gDead {
				l.twice[g] = true
			}
			l.state[g] = gDead
		case sched.EvGoPark:
			l.state[g] = gParked
		case sched.EvGoUnpark, sched.EvGoSched, sched.EvGoPreempt:
			l.state[g] = gRunnable
		case sched.EvGoSyscall:
			l.state[g] = gSyscall
		case sched.EvGoSyscallExit:
			// With a P, it runs on (a slow exit's EvGoStart follows on the
			// same P); without, it waits on the global queue.
			if ev.P >= 0 {
				l.state[g], l.on[g] = gRunning, ev.P
			} else {
				l.state[g] = gRunnable
			}
		}
	}
	return l
}

// idleBesideWork returns the longest stretch a P sat idle while a G was
// runnable (queued on some P or on the global queue), which P and when it
// began. A P is busy while a G runs on it or while it is held in a system
// call (until sysmon retakes it); the Ps of a stopped world, and those
// beyond the current GOMAXPROCS, are not counted.
func idleBesideWork(r *Result) (longest time.Duration, which int32, at int64) {
	which = -1
	busy := make([]bool, 64)
	idleSince := make([]int64, 64)
	isIdle := make([]bool, 64) // idle beside work since idleSince
	procs := r.Procs
	runnable := 0
	stopped := false
	life := map[int64]int{}
	onP := map[int64]int32{}
	settle := func(now int64) {
		for p := range procs {
			idle := !busy[p] && runnable > 0 && !stopped
			switch {
			case idle && !isIdle[p]:
				idleSince[p], isIdle[p] = now, true
			case !idle && isIdle[p]:
				if d := time.Duration(now - idleSince[p]); d > longest {
					longest, which, at = d, int32(p), idleSince[p]
				}
				isIdle[p] = false
			}
		}
	}
	setBusy := func(p int32, b bool) {
		if p >= 0 && int(p) < len(busy) {
			busy[p] = b
		}
	}
	for _, ev := range r.Events {
		switch ev.Kind {
		case sched.EvGoCreate, sched.EvGoUnpark, sched.EvGoSched, sched.EvGoPreempt:
			if ev.Kind != sched.EvGoCreate && ev.Kind != sched.EvGoUnpark {
				setBusy(onP[ev.G], false)
			}
			if life[ev.G] != gRunnable {
				runnable++
			}
			life[ev.G] = gRunnable
		case sched.EvGoStart:
			if life[ev.G] == gRunnable {
				runnable--
			}
			life[ev.G], onP[ev.G] = gRunning, ev.P
			setBusy(ev.P, true)
		case sched.EvGoPark, sched.EvGoEnd:
			life[ev.G] = gParked
			setBusy(onP[ev.G], false)
		case sched.EvGoSyscall:
			life[ev.G] = gSyscall // its P stays held until retaken
		case sched.EvSysmonRetake:
			setBusy(ev.P, false)
		case sched.EvGoSyscallExit:
			if ev.P >= 0 {
				life[ev.G], onP[ev.G] = gRunning, ev.P
				setBusy(ev.P, true)
			} else {
				life[ev.G] = gRunnable
				runnable++
			}
		case sched.EvStopTheWorld:
			stopped = true
		case sched.EvStartTheWorld:
			stopped = false
			procs = min(int(ev.Arg), len(busy))
		}
		settle(ev.When)
	}
	if n := len(r.Events); n > 0 {
		runnable = 0 // the run ended: close what is still open
		settle(r.Events[n-1].When)
	}
	return longest, which, at
}

// mustHold marks a story's claim that holds of every run of a correct
// scheduler, whatever the timing: a run that breaks it shows a bug.
type mustHold struct{ error }

func (e mustHold) Unwrap() error { return e.error }

// must marks err (if not nil) as a claim every correct scheduler keeps.
func must(err error) error {
	if err == nil {
		return nil
	}
	return mustHold{err}
}

// MustHold reports whether err, from Check, names a claim that holds of
// every run of a correct scheduler (as opposed to one that timing on real
// threads may break now and then).
func MustHold(err error) bool {
	var m mustHold
	return errors.As(err, &m)
}

// PrintVerdict writes v in a few lines: what every correct scheduler
// keeps, the numbers timing decides, and what the story expects.
func PrintVerdict(w io.Writer, v Verdict) {
	ok := len(v.Lost) == 0 && len(v.Unfinished) == 0 && len(v.Twice) == 0
	switch {
	case ok && v.Truncated:
		fmt.Fprintf(w, "  ok    no G lost or run twice, as far as the run got (%s created)\n", Plural(v.Gs, "G"))
	case ok && v.Parked:
		fmt.Fprintf(w, "  ok    no G lost or run twice (%s, left parked by the deadlock, as the scenario wants)\n", Plural(v.Gs, "G"))
	case ok:
		fmt.Fprintf(w, "  ok    every G ran to its end exactly once (%s)\n", Plural(v.Gs, "G"))
	}
	if v.Truncated {
		fmt.Fprintln(w, "  FAIL  the run crashed before it ended (the panic is above); its last few milliseconds are missing")
	}
	if len(v.Lost) > 0 {
		fmt.Fprintf(w, "  FAIL  %s lost: made runnable, never ran again (%s): a run queue dropped them?\n", Plural(len(v.Lost), "G"), gList(v.Lost))
	}
	if len(v.Twice) > 0 {
		fmt.Fprintf(w, "  FAIL  %s ran twice (%s): taken from a run queue by two Ms?\n", Plural(len(v.Twice), "G"), gList(v.Twice))
	}
	if len(v.Unfinished) > 0 {
		fmt.Fprintf(w, "  FAIL  %s never finished (%s)\n", Plural(len(v.Unfinished), "G"), gList(v.Unfinished))
	}
	switch {
	case v.Story == nil && !v.Truncated:
		fmt.Fprintln(w, "  ok    the run shows what the scenario is about")
	case v.Story != nil && v.StoryMust:
		fmt.Fprintf(w, "  FAIL  %s (every correct scheduler shows this)\n", storyText(v.Story))
	case v.Story != nil:
		fmt.Fprintf(w, "  note  %s (timing on real threads can do this now and then; a bug if most runs do)\n", storyText(v.Story))
	}
	idle := "no P sat idle beside queued work"
	if v.IdleP >= 0 {
		idle = fmt.Sprintf("a P sat idle beside queued work for at most %s (P%d)", round(v.Idle), v.IdleP)
	}
	fmt.Fprintf(w, "  time  %s; %s (Gosched), %s (sysmon asked %s)\n",
		idle, Plural(v.Yielded, "yield"), Plural(v.Preempted, "preemption"), times(v.Asked))
}

// storyText is a story's error without the "scenario NAME: " prefix.
func storyText(err error) string {
	s := err.Error()
	if i := strings.Index(s, ": "); strings.HasPrefix(s, "scenario ") && i > 0 {
		return s[i+2:]
	}
	return s
}

// gList names up to 8 Gs: "G12, G40, G77 and 3 more".
func gList(gs []int64) string {
	gs = slices.Clone(gs)
	slices.Sort(gs)
	var names []string
	for _, g := range gs[:min(len(gs), 8)] {
		names = append(names, fmt.Sprintf("G%d", g))
	}
	s := strings.Join(names, ", ")
	if len(gs) > 8 {
		s += fmt.Sprintf(" and %d more", len(gs)-8)
	}
	return s
}
