package sched

import "time"

// This file mirrors the runtime's notes (lock_futex.go, lock_sema.go): a
// one-shot sleep/wake-up between two threads. An M parks on its note in
// stopm; startm wakes it. The runtime builds notes on futexes or semaphores;
// here a channel with room for one token does the job on every OS.
//
// The rules are the runtime's: one sleeper; at most one notewakeup per
// noteclear; noteclear only when nobody sleeps or wakes.

type note struct {
	c chan struct{}
}

// init prepares n for use.
func (n *note) init() {
	n.c = make(chan struct{}, 1)
}

// notewakeup wakes the sleeper on n, or lets the next notesleep return at
// once. A second notewakeup before noteclear is a bug in the caller.
func notewakeup(n *note) {
	select {
	case n.c <- struct{}{}:
	default:
		panic("notewakeup - double wakeup")
	}
}

// notesleep sleeps until n is woken.
func notesleep(n *note) {
	<-n.c
}

// notetsleep sleeps until n is woken or ns nanoseconds pass (forever if ns
// < 0). It reports whether it was woken.
func notetsleep(n *note, ns int64) bool {
	if ns < 0 {
		notesleep(n)
		return true
	}
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-n.c:
		return true
	case <-t.C:
		return false
	}
}

// noteclear resets n: a wake-up that arrived after a notetsleep gave up is
// dropped.
func noteclear(n *note) {
	select {
	case <-n.c:
	default:
	}
}

// notewakeupOnce is notewakeup for notes that several wakers may poke
// (netpollBreak): a second wake-up before the sleeper runs is harmless.
func notewakeupOnce(n *note) {
	select {
	case n.c <- struct{}{}:
	default:
	}
}
