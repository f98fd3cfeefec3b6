package sched

import (
	"fmt"
	"unsafe"
)

// An alternate park.go: park_m takes gopark's arguments off the M before
// anything else and treats "no unlockf" and "unlockf said yes" as one
// case; ready claims the G with a single CompareAndSwap of its status, so
// that of two racing readiers exactly one wins.

// gopark parks the calling G; see the reference for the contract.
func gopark(gp *g, unlockf func(*g, unsafe.Pointer) bool, lock unsafe.Pointer, reason waitReason) {
	if s := gp.atomicstatus.Load(); s != _Grunning {
		panic(fmt.Sprintf("gopark: G %d is %s, not running", gp.goid, gStatusString(s)))
	}
	gp.waitreason = reason
	gp.m.waitunlockf, gp.m.waitlock = unlockf, lock
	mcall(gp, park_m)
}

// park_m runs on the M once gp's coroutine has yielded.
func park_m(mp *m, gp *g) (*g, bool) {
	unlockf, lock := mp.waitunlockf, mp.waitlock
	mp.waitunlockf, mp.waitlock = nil, nil
	sched, pid := mp.sched, mp.p.id

	if sched.trace != nil {
		sched.traceEvent(EvGoPark, gp.goid, pid, mp.id, int64(gp.waitreason))
	}
	casgstatus(gp, _Grunning, _Gwaiting)
	dropg(mp)
	if unlockf == nil || unlockf(gp, lock) {
		return nil, false // parked for real: someone will goready it
	}

	// unlockf declined: the G goes straight back to running, here.
	if sched.trace != nil {
		sched.traceEvent(EvGoUnpark, gp.goid, pid, mp.id, 0)
	}
	casgstatus(gp, _Gwaiting, _Grunnable)
	return gp, true
}

// goready readies gp into the current P's runnext.
func goready(mp *m, gp *g) {
	ready(mp, gp, true)
}

// ready makes gp runnable on mp's P and wakes an idle P.
func ready(mp *m, gp *g, next bool) {
	if !gp.atomicstatus.CompareAndSwap(_Gwaiting, _Grunnable) {
		panic(fmt.Sprintf("ready: G %d is %s; only a waiting G can be readied", gp.goid, gStatusString(gp.atomicstatus.Load())))
	}
	sched, pp := mp.sched, mp.p
	if sched.trace != nil {
		sched.traceEvent(EvGoUnpark, gp.goid, pp.id, mp.id, 0)
	}
	runqput(pp, gp, next)
	wakep(sched)
}
