package sched

import (
	"fmt"
	"unsafe"
)

// park_m forgets gopark's arguments in a deferred call, so that every way
// out of it does; the status checks are switches, and ready panics with an
// error value of the file's own type.

// notWaiting is the error ready panics with: a type of the file's own,
// so it may have an Error method.
type notWaiting struct {
	goid   int64
	status uint32
}

func (e notWaiting) Error() string {
	return fmt.Sprintf("ready: G %d is %s, not waiting: readied twice, or before it parked?", e.goid, gStatusString(e.status))
}

func gopark(gp *g, unlockf func(*g, unsafe.Pointer) bool, lock unsafe.Pointer, reason waitReason) {
	switch status := readgstatus(gp); status {
	case _Grunning:
	default:
		panic("gopark: bad g status " + gStatusString(status))
	}
	gp.waitreason = reason
	gp.m.waitunlockf = unlockf
	gp.m.waitlock = lock
	mcall(gp, park_m)
}

func park_m(mp *m, gp *g) (resume *g, inheritTime bool) {
	if tr := mp.sched.trace; tr != nil {
		mp.sched.traceEvent(EvGoPark, gp.goid, mp.p.id, mp.id, int64(gp.waitreason))
	}
	casgstatus(gp, _Grunning, _Gwaiting)
	dropg(mp)
	unlockf := mp.waitunlockf
	if unlockf == nil {
		return nil, false
	}
	defer func() { mp.waitunlockf, mp.waitlock = nil, nil }()
	if unlockf(gp, mp.waitlock) {
		return nil, false
	}
	if mp.sched.trace != nil {
		mp.sched.traceEvent(EvGoUnpark, gp.goid, mp.p.id, mp.id, 0)
	}
	casgstatus(gp, _Gwaiting, _Grunnable)
	return gp, true
}

func goready(mp *m, gp *g) {
	ready(mp, gp, true)
}

func ready(mp *m, gp *g, next bool) {
	switch status := readgstatus(gp); status {
	case _Gwaiting:
	default:
		panic(notWaiting{gp.goid, status})
	}
	casgstatus(gp, _Gwaiting, _Grunnable)
	if mp.sched.trace != nil {
		mp.sched.traceEvent(EvGoUnpark, gp.goid, mp.p.id, mp.id, 0)
	}
	runqput(mp.p, gp, next)
	wakep(mp.sched)
}
