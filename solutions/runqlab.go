package sched

// This file lets code outside the package drive Ps' run queues by hand,
// with the reference's own runqput, runqget and runqsteal, and look at the
// counters and slots they leave: the book's figures of the ring and of
// runnext (internal/diagram) are drawn from what these functions really do,
// so they cannot drift from the code.
//
// It is not a way to run anything: no M runs a lab's Ps and no G in it has
// a body. The caller plays every P's owner and every thief, one call at a
// time, so a lab is not safe for concurrent use.

// A RunqLab is a scheduler's Ps with nothing running them, all idle.
type RunqLab struct {
	sched *schedt
}

// NewRunqLab makes a lab of procs idle Ps whose rings' head and tail both
// start at counter: 0 as in a new P, or just below 1<<32 to watch the
// counters wrap. runnext is used (as with sysmon), and nothing is shuffled.
func NewRunqLab(procs int, counter uint32) *RunqLab {
	sched := newSchedt(Config{Procs: procs, Usleep: func(int64) {}})
	for _, pp := range sched.allp {
		pp.runqhead.Store(counter)
		pp.runqtail.Store(counter)
	}
	return &RunqLab{sched: sched}
}

// Put makes a runnable G with ID id and puts it on P pp's run queue with
// runqput: in runnext if next (the G there, if any, is kicked to the ring).
func (l *RunqLab) Put(pp int, id int64, next bool) {
	gp := &g{sched: l.sched, goid: id}
	gp.atomicstatus.Store(_Grunnable)
	runqput(l.sched.allp[pp], gp, next)
}

// Get takes the G that P pp would run next with runqget: its ID (0 if the
// queue is empty) and whether it came from runnext.
func (l *RunqLab) Get(pp int) (id int64, inheritTime bool) {
	gp, inheritTime := runqget(l.sched.allp[pp])
	return goidOf(gp), inheritTime
}

// Steal makes P thief steal from P victim with runqsteal, allowed to take
// runnext if stealRunNextG (stealWork's last pass), and returns the ID of
// the G the thief runs at once (0 if it took nothing).
func (l *RunqLab) Steal(thief, victim int, stealRunNextG bool) int64 {
	return goidOf(runqsteal(l.sched.allp[thief], l.sched.allp[victim], stealRunNextG))
}

// Runq returns P pp's run queue as it is now.
func (l *RunqLab) Runq(pp int) RunqState {
	p := l.sched.allp[pp]
	s := RunqState{Head: p.runqhead.Load(), Tail: p.runqtail.Load(), Next: goidOf(p.runnext.Load())}
	for i := range p.runq {
		s.Slots[i] = goidOf(p.runq[i].Load())
	}
	return s
}

// A RunqState is one P's run queue at one moment. The Gs queued on the
// ring are those in the slots from Head to Tail-1 (mod 256); a slot
// outside them keeps the last G written to it, which nobody will read.
type RunqState struct {
	Head, Tail uint32
	Slots      [256]int64 // the ID of the G each slot holds, 0 if none ever
	Next       int64      // runnext's G, 0 if none
}

func goidOf(gp *g) int64 {
	if gp == nil {
		return 0
	}
	return gp.goid
}
