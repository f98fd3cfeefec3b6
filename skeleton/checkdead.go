package sched

import (
	"fmt"
	"slices"
	"strings"
)

// This file is deadlock detection: checkdead (proc.go, Go 1.26: 6367).
//
// The runtime checks for deadlock each time an M goes idle: if no M is left
// running (not counting idle Ms and system Ms such as sysmon), nothing will
// ever make a waiting G runnable again, and it crashes with "all goroutines
// are asleep - deadlock!". Here Wait returns that message as a
// *DeadlockError instead.

// A DeadlockError is what Wait returns when every G left is blocked and no M
// is running to wake any of them.
type DeadlockError struct {
	// Waiting lists the blocked Gs, by ID, with what each waits for.
	Waiting []WaitingG
}

// WaitingG is one G blocked at the time of a deadlock.
type WaitingG struct {
	ID     int64
	Reason string // "chan receive", "sleep", ...
}

// deadlockMsg is the runtime's message, word for word (proc.go:6445).
const deadlockMsg = "all goroutines are asleep - deadlock!"

func (e *DeadlockError) Error() string {
	var b strings.Builder
	b.WriteString(deadlockMsg)
	for _, w := range e.Waiting {
		fmt.Fprintf(&b, "\n\ngoroutine %d [%s]", w.ID, w.Reason)
	}
	return b.String()
}

// checkdead reports a deadlock if no M is running. It is called by mput, as
// each M goes idle.
//
// Mirrors checkdead (proc.go:6367). sched.lock must be held.
func (sched *schedt) checkdead() {
	sched.assertLockHeld("checkdead")
	// While the world is stopped, or being closed, the idle Ms are not a
	// sign of deadlock: whoever stopped it will start it again.
	if sched.closing.Load() || sched.gcwaiting.Load() {
		return
	}
	// Until Wait is called, the caller may still start Gs that wake the
	// ones blocked now: it plays the part of the runtime's main goroutine.
	if !sched.waitCalled.Load() {
		return
	}
	run := sched.mcount() - sched.nmidle - sched.nmidlelocked - sched.nmsys
	if run > 0 {
		return
	}
	if run < 0 {
		panic(fmt.Sprintf("checkdead: inconsistent counts run=%d nmidle=%d nmidlelocked=%d mcount=%d nmsys=%d",
			run, sched.nmidle, sched.nmidlelocked, sched.mcount(), sched.nmsys))
	}

	var waiting []WaitingG
	runnable := int64(0)
	sched.allglock.Lock()
	for _, gp := range sched.allgs {
		switch s := readgstatus(gp); s {
		case _Gwaiting:
			waiting = append(waiting, WaitingG{ID: gp.goid, Reason: gp.waitreason.String()})
		case _Grunnable, _Grunning, _Gsyscall:
			runnable = gp.goid
		}
	}
	sched.allglock.Unlock()
	if runnable != 0 {
		// A G created from outside the scheduler (Runtime.Go) sits on the
		// global queue while the wakep that will run it is on its way; the
		// runtime has no such path (its Gs are made by running Gs).
		if !sched.runq.empty() {
			return
		}
		panic(fmt.Sprintf("checkdead: runnable g %d with no M running", runnable))
	}
	if len(waiting) == 0 {
		return // no goroutines: nothing to do until Go is called
	}
	// A sleeping G will be woken by its timer: an M waits for it.
	if sched.timer0When.Load() != 0 {
		return
	}
	slices.SortFunc(waiting, func(a, b WaitingG) int { return int(a.ID - b.ID) })
	sched.finish(&DeadlockError{Waiting: waiting})
}
