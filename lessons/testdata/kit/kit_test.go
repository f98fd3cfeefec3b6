package sched

// The hidden tests' kit: helpers shared by every lesson's hidden tests.
// Everything here is prefixed kit, so it cannot clash with a lesson's test.

import (
	"fmt"
	"testing"
	"time"
)

// kitSched builds a scheduler with procs idle Ps and no M running: a
// constructed state for tests that drive the data structures by hand.
func kitSched(procs int, cfg Config) *schedt {
	cfg.Procs = procs
	sched := &schedt{done: make(chan struct{})}
	sched.cfg = cfg.normalize()
	sched.stopnote.init()
	sched.sysmonnote.init()
	sched.pollnote.init()
	sched.lastpoll.Store(1)
	sched.lock.Lock()
	procresize(sched, int32(procs))
	sched.lock.Unlock()
	return sched
}

// kitG makes a runnable G with the given ID and no coroutine: enough for the
// run queues, which only move pointers.
func kitG(sched *schedt, id int64) *g {
	gp := &g{sched: sched, goid: id}
	gp.atomicstatus.Store(_Grunnable)
	return gp
}

// kitGs makes n runnable Gs with IDs first, first+1, ...
func kitGs(sched *schedt, first int64, n int) []*g {
	gs := make([]*g, n)
	for i := range gs {
		gs[i] = kitG(sched, first+int64(i))
	}
	return gs
}

// kitTakeP takes P id off the idle list (and the idle mask), as pidleget
// would for that P, and returns it. It panics if P id is not idle.
func kitTakeP(sched *schedt, id int32) *p {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for link := &sched.pidle; *link != nil; link = &(*link).link {
		if pp := *link; pp.id == id {
			*link = pp.link
			pp.link = nil
			sched.idlepMask.clear(id)
			sched.npidle.Add(-1)
			return pp
		}
	}
	panic(fmt.Sprintf("kitTakeP: P %d is not on the idle list", id))
}

// kitID is a G's ID for messages, or "nil".
func kitID(gp *g) string {
	if gp == nil {
		return "nil"
	}
	return fmt.Sprintf("G %d", gp.goid)
}

// kitRun runs body as the first G of a fresh Runtime and waits for every G
// to finish, failing the test if that takes longer than limit (a deadlock
// in the learner's code must not hang the grader).
func kitRun(t *testing.T, cfg Config, limit time.Duration, body func(*G)) error {
	t.Helper()
	rt := New(cfg)
	rt.Go(body)
	done := make(chan error, 1)
	go func() { done <- rt.Wait() }()
	select {
	case err := <-done:
		closed := make(chan struct{})
		go func() {
			rt.Close()
			close(closed)
		}()
		if err != nil {
			// A broken scheduler may never finish closing (a G that
			// panicked holding a lock leaves Ms stuck on it): leave it to
			// close in the background, so the verdict still comes fast.
			return err
		}
		select {
		case <-closed:
		case <-time.After(limit):
			t.Fatalf("every G finished, but Runtime.Close did not return within %s: an M that never wakes, or a G that never reaches a safe point?", limit)
		}
		return nil
	case <-time.After(limit):
		t.Fatalf("the scheduler did not finish within %s: some G never ran again (lost from a run queue?), or an M never woke", limit)
		return nil
	}
}

// kitHint is the pointer to the hints at the end of a failure message.
func kitHint(lesson string) string {
	return " (stuck? kata hint " + lesson + ")"
}
