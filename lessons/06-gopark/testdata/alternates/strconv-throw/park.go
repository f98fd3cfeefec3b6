package sched

import (
	"strconv"
	"unsafe"
)

// gopark and ready with their messages built by strconv (issue 19: a file
// that imported strconv for a throw message scored 0), and the trace
// events in one helper.

// traceG emits kind for gp on mp's P and M, if tracing.
func traceG(mp *m, kind EventKind, gp *g, arg int64) {
	if mp.sched.trace != nil {
		mp.sched.traceEvent(kind, gp.goid, mp.p.id, mp.id, arg)
	}
}

// badStatus is a panic message: who found gp in status, wanting want.
func badStatus(who string, gp *g, status uint32, want string) string {
	return who + ": G " + strconv.FormatInt(gp.goid, 10) + " is " + gStatusString(status) + ", not " + want
}

func gopark(gp *g, unlockf func(*g, unsafe.Pointer) bool, lock unsafe.Pointer, reason waitReason) {
	if status := readgstatus(gp); status != _Grunning {
		panic("gopark: bad g status " + gStatusString(status) + " (" + badStatus("gopark", gp, status, "running") + ")")
	}
	mp := gp.m
	mp.waitlock, mp.waitunlockf = lock, unlockf
	gp.waitreason = reason
	mcall(gp, park_m)
}

func park_m(mp *m, gp *g) (*g, bool) {
	traceG(mp, EvGoPark, gp, int64(gp.waitreason))
	casgstatus(gp, _Grunning, _Gwaiting)
	dropg(mp)
	fn := mp.waitunlockf
	if fn == nil {
		return nil, false
	}
	ok := fn(gp, mp.waitlock)
	mp.waitunlockf, mp.waitlock = nil, nil
	if ok {
		return nil, false
	}
	traceG(mp, EvGoUnpark, gp, 0)
	casgstatus(gp, _Gwaiting, _Grunnable)
	return gp, true
}

func goready(mp *m, gp *g) { ready(mp, gp, true) }

func ready(mp *m, gp *g, next bool) {
	if status := readgstatus(gp); status != _Gwaiting {
		panic(badStatus("ready", gp, status, "waiting") + ": readied twice, or before it parked?")
	}
	casgstatus(gp, _Gwaiting, _Grunnable)
	traceG(mp, EvGoUnpark, gp, 0)
	runqput(mp.p, gp, next)
	wakep(mp.sched)
}
