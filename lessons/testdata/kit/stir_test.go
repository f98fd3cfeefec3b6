//go:build kata_interleave

package sched

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// Stirred questions. An exact test asks a function a question in a state
// nothing else touches; a file can tell that apart from a busy scheduler
// by looking at shared counters a few times, a little apart, and answer
// the exact test's question right only when they stood still (a
// twenty-fifth red team's shouldSpin let one spinner too many, and its
// ready skipped runnext, only when nmspinning and npidle moved: 100 for
// files that earn 82 and 52).
//
// A stirred question is asked while another thread moves those counters,
// but only between values for which the right answer is the same: a file
// that answers the question right cannot tell, and one that answers
// differently when things move is caught. It is asked twice over: on real
// threads, the stirrer running side by side with the asker; and with a
// step of the stirrer before every operation the asker makes on the
// course's atomics, so that whatever the asker reads moves between any
// two of its reads, however often it looks and however long it waits
// between looks.

// kitStirred asks ask(i) for i = 0..n-1 while stir runs over and over,
// first on real threads, then one stir before each of the asker's
// operations, and fails t with the first answer that was wrong (ask
// returns what was wrong, or ""). Each call of stir must change what a
// file could watch (it is a step, not a round trip), and each ask must
// leave the state as stir expects it. what says, for the failure, how the
// counters moved.
func kitStirred(t *testing.T, lesson, what string, n int, stir func(), ask func(i int) string) {
	t.Helper()
	const news = " (**new**: since late November 2026 this test asks its questions again while other threads move what the answer does not depend on; since December it moves more: other Ps' ticks, the idle mask, the global queue under sched.lock, runnext, the head of a ring)"
	if msg := kitStirredReal(n, stir, ask); msg != "" {
		t.Fatalf("%s, on real threads while %s: the answer must not depend on whether other threads are at work%s%s", msg, what, news, kitHint(lesson))
	}
	if msg := kitStirredEachStep(n, stir, ask); msg != "" {
		t.Fatalf("%s, when between every two of its operations %s: the answer must not depend on whether other threads are at work%s%s", msg, what, news, kitHint(lesson))
	}
}

// kitStirredReal is kitStirred's part on real threads: the stirrer runs
// from before the first question to after the last.
func kitStirredReal(n int, stir func(), ask func(i int) string) string {
	var done atomic.Bool
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		stir()
		close(started)
		for !done.Load() {
			stir()
		}
	}()
	<-started
	defer func() {
		done.Store(true)
		wg.Wait()
	}()
	return kitAskAll(n, ask)
}

// kitAskAll asks ask(i) for i = 0..n-1 and returns the first answer that
// was wrong, or a panic's, or "".
func kitAskAll(n int, ask func(i int) string) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprintf("panicked: %v", r)
		}
	}()
	for i := range n {
		if msg = ask(i); msg != "" {
			return msg
		}
	}
	return ""
}

// kitStirredEachStep is kitStirred's other part: the scheduling points'
// hook runs stir once before every operation the asking goroutine makes
// on the course's atomics (not within stir itself), in place of the noise,
// which it restores after.
func kitStirredEachStep(n int, stir func(), ask func(i int) string) string {
	defer kitBind()()
	self := kitSelf()
	inStir := false // the asker's only
	hook := func() {
		if kitSelf() != self || inStir {
			return
		}
		inStir = true
		stir()
		inStir = false
	}
	defer kitSetPoints(hook)()
	return kitAskAll(n, ask)
}

// kitStirCycle returns a stir that takes steps in turn, one a call, round
// and round. Each step moves one thing a file could watch; a whole round
// puts back what it moved, or moves it on as a busy scheduler would (a
// tick only grows).
func kitStirCycle(steps ...func()) func() {
	i := 0
	return func() {
		steps[i%len(steps)]()
		i++
	}
}

// kitStirSquare returns a stir that moves x between its value and one
// more, and y likewise, one step at a time round the square: x+1, y+1,
// x-1, y-1. Each step changes one of them, and a file that reads both
// sees them change unless it made four operations since it last looked.
func kitStirSquare(x, y *atomicInt32) func() {
	xUp, xDown := kitStirUpDown(x)
	yUp, yDown := kitStirUpDown(y)
	return kitStirCycle(xUp, yUp, xDown, yDown)
}

// kitStirUpDown returns the two steps that move x to one more and back.
func kitStirUpDown(x *atomicInt32) (up, down func()) {
	return func() { x.Add(1) }, func() { x.Add(-1) }
}

// kitStirTicks returns a step for each of pps that counts one more
// scheduler call and one more system call on it (schedtick, syscalltick),
// as on a P whose M is busy: other Ps' ticks move in a real scheduler,
// and a file that watched them could tell (a twenty-eighth red team's
// retake took a P from its syscall early only when they moved).
func kitStirTicks(pps ...*p) []func() {
	steps := make([]func(), len(pps))
	for i, pp := range pps {
		steps[i] = func() {
			pp.schedtick.Add(1)
			pp.syscalltick.Add(1)
		}
	}
	return steps
}

// kitStirMask returns the two steps that flip P id's bit of mask and flip
// it back (that red team's shouldSpin watched the idle Ps' bits).
func kitStirMask(mask pMask, id int32) []func() {
	flip := func() {
		if mask.read(id) {
			mask.clear(id)
		} else {
			mask.set(id)
		}
	}
	return []func(){flip, flip}
}

// kitStirSteal returns a step that takes the G at the head of pp's ring,
// if there is one and take says so, as a thief on another M would: a
// compare-and-swap of the head. The G taken is dropped; the asker refills
// the ring.
func kitStirSteal(pp *p, take func(gp *g) bool) func() {
	return func() {
		h := kitRawRing(&pp.runqhead).Load()
		if kitRawRing(&pp.runqtail).Load() == h {
			return
		}
		if gp := kitRawSlot(&pp.runq[h%uint32(len(pp.runq))]).Load(); gp != nil && take(gp) {
			kitRawRing(&pp.runqhead).CompareAndSwap(h, h+1)
		}
	}
}

// A kitGlobalStir moves a G of its own onto the back of the global run
// queue and off it again, a step each, under sched.lock, whenever the lock
// is free (TryLock): a file that watched the queue's size under the lock,
// or let go of the lock to let others at it, saw it stand still in every
// single-threaded test (that red team's fairness tick and fair share did
// both). An asker that holds sched.lock for a call, as the callers of
// globrunqget and globrunqgetbatch do, says so in held: the first step
// that finds the lock free meanwhile records it in broke.
type kitGlobalStir struct {
	sched *schedt
	gp    *g
	in    bool   // gp is on the queue; under sched.lock
	held  string // the call the asker holds sched.lock for, or ""; under sched.lock
	broke string // the first held a step found the lock free in; under sched.lock
}

// kitNewGlobalStir returns a kitGlobalStir of sched's global queue, its G
// numbered id.
func kitNewGlobalStir(sched *schedt, id int64) *kitGlobalStir {
	return &kitGlobalStir{sched: sched, gp: kitG(sched, id)}
}

// step is the stir: gp onto the back of the queue, or off it.
func (s *kitGlobalStir) step() {
	if !s.sched.lock.TryLock() {
		return
	}
	defer s.sched.lock.Unlock()
	if s.held != "" && s.broke == "" {
		s.broke = s.held
	}
	if s.in {
		s.settle()
		return
	}
	s.sched.runq.pushBack(s.gp)
	s.in = true
}

// settle takes gp off the queue if it is on it, keeping the order of the
// others, and publishes the new size once (the size hint never shows fewer
// Gs than the others); sched.lock must be held.
func (s *kitGlobalStir) settle() {
	if !s.in {
		return
	}
	q := &s.sched.runq.gQueue
	var prev *g
	for gp := q.head; gp != nil; prev, gp = gp, gp.schedlink {
		if gp != s.gp {
			continue
		}
		if prev == nil {
			q.head = gp.schedlink
		} else {
			prev.schedlink = gp.schedlink
		}
		if q.tail == gp {
			q.tail = prev
		}
		gp.schedlink = nil
		q.size--
		s.sched.runq.changed(gp, -1)
		break
	}
	s.in = false
}
