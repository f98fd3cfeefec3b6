package sched

import (
	"fmt"
	"slices"
	"sync"
)

// This file is the scheduler's event trace: what the tests assert on and
// what the book and `kata trace` draw. Events go to Config.Trace, if set.

// An EventKind says what happened.
type EventKind uint8

const (
	EvGoCreate      EventKind = iota + 1 // G created; Arg: the creating G, 0 if from outside
	EvGoStart                            // G starts running on P; Arg: 1 if it inherited the time slice
	EvGoEnd                              // G's function returned
	EvGoPark                             // G parked; Arg: its wait reason
	EvGoUnpark                           // G made runnable by another (ready)
	EvGoSched                            // G yielded (Gosched), to the global queue
	EvGoPreempt                          // G preempted at a safe point, to the global queue
	EvGoSyscall                          // G entered a system call; its P went _Psyscall
	EvGoSyscallExit                      // G left its system call; Arg: 1 if its M got the same P back
	EvSteal                              // P stole N Gs from P Arg; G is the one it runs
	EvSpinStart                          // M started spinning
	EvSpinStop                           // M stopped spinning
	EvProcStart                          // M acquired P
	EvProcStop                           // M released P
	EvSysmonPreempt                      // sysmon asked P's running G to yield
	EvSysmonRetake                       // sysmon took P back from a system call
	EvSysmonSleep                        // sysmon went into its deep sleep; Arg: for how long at most (ns)
	EvStopTheWorld                       // every P stopped
	EvStartTheWorld                      // the world restarted; Arg: number of Ps
	EvResize                             // procresize; Arg: new number of Ps
	EvGlobalRunq                         // the global run queue changed: N Gs in (N > 0) or out (N < 0), G the first; Arg: its new length
	evLast
)

var eventKindStrings = [...]string{
	EvGoCreate: "GoCreate", EvGoStart: "GoStart", EvGoEnd: "GoEnd", EvGoPark: "GoPark",
	EvGoUnpark: "GoUnpark", EvGoSched: "GoSched", EvGoPreempt: "GoPreempt",
	EvGoSyscall: "GoSyscall", EvGoSyscallExit: "GoSyscallExit", EvSteal: "Steal",
	EvSpinStart: "SpinStart", EvSpinStop: "SpinStop", EvProcStart: "ProcStart",
	EvProcStop: "ProcStop", EvSysmonPreempt: "SysmonPreempt", EvSysmonRetake: "SysmonRetake",
	EvSysmonSleep: "SysmonSleep", EvStopTheWorld: "StopTheWorld",
	EvStartTheWorld: "StartTheWorld", EvResize: "Resize", EvGlobalRunq: "GlobalRunq",
}

func (k EventKind) String() string {
	if k > 0 && k < evLast {
		return eventKindStrings[k]
	}
	return fmt.Sprintf("EventKind(%d)", k)
}

// An Event is one scheduling event.
type Event struct {
	Kind EventKind
	When int64 // the Runtime's nanotime
	G    int64 // the G concerned, 0 if none
	P    int32 // the P it happened on, -1 if none
	M    int64 // the M that did it, -1 if none
	Arg  int64 // depends on Kind (see the EventKind constants)
	N    int64 // EvSteal: number of Gs taken; EvGlobalRunq: Gs in (> 0) or out (< 0)
}

func (ev Event) String() string {
	s := fmt.Sprintf("%d %s", ev.When, ev.Kind)
	if ev.G != 0 {
		s += fmt.Sprintf(" G%d", ev.G)
	}
	if ev.P >= 0 {
		s += fmt.Sprintf(" P%d", ev.P)
	}
	if ev.M >= 0 {
		s += fmt.Sprintf(" M%d", ev.M)
	}
	switch ev.Kind {
	case EvSteal:
		s += fmt.Sprintf(" from=P%d n=%d", ev.Arg, ev.N)
	case EvGoPark:
		s += " reason=" + waitReason(ev.Arg).String()
	case EvGlobalRunq:
		s += fmt.Sprintf(" n=%+d len=%d", ev.N, ev.Arg)
	case EvGoCreate, EvGoStart, EvGoSyscallExit, EvSysmonSleep, EvStartTheWorld, EvResize:
		s += fmt.Sprintf(" arg=%d", ev.Arg)
	}
	return s
}

// emit stamps ev with the time and sends it to the sink.
func (sched *schedt) emit(ev Event) {
	ev.When = sched.cfg.nanotime()
	sched.trace(ev)
}

// traceEvent emits an event of kind with the common fields.
func (sched *schedt) traceEvent(kind EventKind, goid int64, pid int32, mid int64, arg int64) {
	sched.emit(Event{Kind: kind, G: goid, P: pid, M: mid, Arg: arg})
}

// A Recorder collects events; its Record method is a Config.Trace.
type Recorder struct {
	mu     sync.Mutex
	events []Event
}

// Record adds ev. Safe for concurrent use.
func (r *Recorder) Record(ev Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
}

// Events returns a copy of the events recorded so far, in time order.
func (r *Recorder) Events() []Event {
	r.mu.Lock()
	evs := slices.Clone(r.events)
	r.mu.Unlock()
	slices.SortStableFunc(evs, func(a, b Event) int {
		switch {
		case a.When < b.When:
			return -1
		case a.When > b.When:
			return 1
		}
		return 0
	})
	return evs
}
