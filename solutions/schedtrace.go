package sched

import (
	"fmt"
	"io"
)

// This file is GODEBUG=schedtrace: the line the runtime prints every
// schedtrace milliseconds (and, with scheddetail=1, one line for every P, M
// and G below it). Its counters are the ones the lessons build, so a learner
// who has built them can read the runtime's report of a real program; and
// Runtime.SchedTrace prints the same report of this scheduler, in the
// runtime's format, field for field.
//
// What the model lacks, the report prints as the runtime would print it for
// a program that does not use the feature, so that the two formats stay the
// same line for line:
//
//   - nmidlelocked=0 and lockedg=nil, lockedm=nil: there is no
//     LockOSThread.
//   - mallocing=0 throwing=0 preemptoff= locks=0 dying=0 on every M: there is
//     no allocator, no throw, and the runtime's own locks are sync.Mutexes.
//   - timerslen=0 on every P: timers are one heap for all Ps (doc.go), so no
//     P has any of its own.
//
// An M's blocked, which the runtime sets while the M sleeps on a note, is
// true here for the Ms on the idle list (asleep in stopm) and for sysmon in
// its deep sleep: the notes this package's Ms sleep on.
//
// Statuses are printed as the runtime's numbers: a P's are the same (0
// idle, 1 running, 2 syscall, 3 gcstop, 4 dead), a G's differ only for dead
// (6 in the runtime, where 5 is the unused _Gmoribund).
//
// Race-free reads. The runtime reads a P's, M's and G's fields without
// their owners' synchronisation ("most data can be changed concurrently");
// the race detector would report that here. An M's P and a G's M are read
// from the other side's atomic link instead (pp.m, mp.curg), which says the
// same. Four fields have no such twin: an M's spinning, a P's count of free
// Gs, and a G's wait reason and ID (newproc1 gives a reused G a new one) are
// plain fields, most of them written by lesson code, and the racy functions
// below read them as the runtime does, out of the race detector's sight.
// Go's memory model guarantees that such a read of a value no larger than a
// word sees some value that was written, so the report may be stale by a
// moment, as the runtime's may, but not torn (a G's 64-bit ID could be, on
// a 32-bit machine, at the instant the G is reused: the runtime's too).

// runtimeGStatus is a G status as the runtime's number (runtime2.go:37-77).
var runtimeGStatus = [...]uint32{
	_Gidle: 0, _Grunnable: 1, _Grunning: 2, _Gsyscall: 3, _Gwaiting: 4, _Gdead: 6,
}

// schedtrace appends the runtime's schedtrace report of sched to buf:
// the summary line, and with detailed, a line for every P, M and G. The
// time in it is counted from the first call, as the runtime counts it.
//
// Mirrors schedtrace (proc.go:6899). Takes sched.lock, then allglock: the
// caller must hold neither.
func (sched *schedt) schedtrace(buf []byte, detailed bool) []byte {
	now := sched.cfg.nanotime()
	// The runtime's starttime is set by its first call, on sysmon alone;
	// here any goroutine may call, so the first one to set it wins.
	sched.starttime.CompareAndSwap(0, now)
	starttime := sched.starttime.Load()

	sched.lock.Lock()
	defer sched.lock.Unlock()
	buf = fmt.Appendf(buf, "SCHED %dms: gomaxprocs=%d idleprocs=%d threads=%d spinningthreads=%d needspinning=%d idlethreads=%d runqueue=%d",
		(now-starttime)/1e6, sched.gomaxprocs.Load(), sched.npidle.Load(), sched.mcount(), sched.nmspinning.Load(),
		sched.needspinning.Load(), sched.nmidle, sched.runq.size)
	if detailed {
		buf = fmt.Appendf(buf, " gcwaiting=%t nmidlelocked=%d stopwait=%d sysmonwait=%t\n",
			sched.gcwaiting.Load(), sched.nmidlelocked, sched.stopwait, sched.sysmonwait.Load())
	}
	// allp changes only under sched.lock (procresize), so it is stable
	// here; what is in each P is not.
	mOfP := map[*m]*p{}
	for i, pp := range sched.allp {
		h := pp.runqhead.Load()
		t := pp.runqtail.Load()
		mp := pp.m.Load()
		if mp != nil {
			mOfP[mp] = pp
		}
		if detailed {
			buf = fmt.Appendf(buf, "  P%d: status=%d schedtick=%d syscalltick=%d m=%s runqsize=%d gfreecnt=%d timerslen=0\n",
				i, pp.status.Load(), pp.schedtick.Load(), pp.syscalltick.Load(), mID(mp), t-h, racyGFreeCount(pp))
			continue
		}
		// The per-P run queue lengths, as: [ len1 len2 len3 len4 ]
		buf = append(buf, ' ')
		if i == 0 {
			buf = append(buf, "[ "...)
		}
		buf = fmt.Append(buf, t-h)
		if i == len(sched.allp)-1 {
			buf = append(buf, " ]"...)
		}
	}
	if !detailed {
		// The per-P schedticks, as: schedticks=[ tick1 tick2 tick3 tick4 ]
		buf = append(buf, " schedticks=[ "...)
		for _, pp := range sched.allp {
			buf = fmt.Append(buf, pp.schedtick.Load(), " ")
		}
		return append(buf, "]\n"...)
	}

	// The runtime's allm is a list with the newest M first.
	idle := map[*m]bool{}
	for mp := sched.midle; mp != nil; mp = mp.schedlink {
		idle[mp] = true
	}
	gOfM := map[*g]*m{}
	for i := len(sched.allm) - 1; i >= 0; i-- {
		mp := sched.allm[i]
		curg := mp.curg.Load()
		if curg != nil {
			gOfM[curg] = mp
		}
		// blocked: asleep on a note, as an idle M is in stopm and sysmon
		// in its deep sleep.
		blocked := idle[mp] || mp.isSysmon && sched.sysmonwait.Load()
		buf = fmt.Appendf(buf, "  M%d: p=%s curg=%s mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=%t blocked=%t lockedg=nil\n",
			mp.id, pID(mOfP[mp]), gID(curg), racySpinning(mp), blocked)
	}

	sched.allglock.Lock()
	for _, gp := range sched.allgs {
		// The reason is printed whatever the status, as the runtime
		// does: gopark sets it, and here execute and goexit0 clear it.
		buf = fmt.Appendf(buf, "  G%d: status=%d(%s) m=%s lockedm=nil\n",
			racyGoid(gp), runtimeGStatus[readgstatus(gp)], racyWaitReason(gp), mID(gOfM[gp]))
	}
	sched.allglock.Unlock()
	return buf
}

// The racy reads: the fields schedtrace needs that have no atomic twin.
// See the top of this file for why a racy read is safe here, and nowhere
// else in this package.

//go:norace
func racySpinning(mp *m) bool { return mp.spinning }

//go:norace
func racyGFreeCount(pp *p) int32 { return pp.gFree.n }

//go:norace
func racyWaitReason(gp *g) waitReason { return gp.waitreason }

//go:norace
func racyGoid(gp *g) int64 { return gp.goid }

func mID(mp *m) string {
	if mp == nil {
		return "nil"
	}
	return fmt.Sprint(mp.id)
}

func pID(pp *p) string {
	if pp == nil {
		return "nil"
	}
	return fmt.Sprint(pp.id)
}

func gID(gp *g) string {
	if gp == nil {
		return "nil"
	}
	return fmt.Sprint(racyGoid(gp))
}

// SchedTrace writes what GODEBUG=schedtrace=1 would print of this Runtime
// now, in the runtime's format: one line of counters (gomaxprocs,
// idleprocs, threads, spinningthreads, needspinning, idlethreads, runqueue,
// each P's run queue length and schedtick); with detailed, as with
// scheddetail=1, the counters of stop-the-world and one line for every P,
// M and G. The time it starts with is counted from the first call. See
// schedtrace.go for the fields the model lacks.
//
// It may be called at any time, from any goroutine, a G's body included;
// it holds the scheduler's lock while it reads, and writes to w after.
func (rt *Runtime) SchedTrace(w io.Writer, detailed bool) error {
	_, err := w.Write(rt.sched.schedtrace(nil, detailed))
	return err
}
