package sched

import (
	"container/heap"
	"unsafe"
)

// This file is sleeping: timers, and the M that waits for the next one.
//
// The runtime keeps a timer heap per P and, when an M finds nothing to do,
// blocks it in netpoll until the next timer is due. This scheduler keeps one
// heap for everything (timers are not the subject of the course), but keeps
// the runtime's shape around it: findRunnable runs due timers (checkTimers);
// the one M allowed to "poll" (sched.lastpoll swapped to 0) sleeps until the
// earliest deadline (blockUntilTimer); adding an earlier timer breaks that
// sleep (wakeNetPoller / netpollBreak).

// A timer wakes gp at when (nanotime); when == 0 when not armed.
type timer struct {
	when int64
	gp   *g
	idx  int // index in the heap
}

// timerHeap is a min-heap of timers by when (container/heap).
type timerHeap []*timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].when < h[j].when }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].idx = i
	h[j].idx = j
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.idx = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return t
}

// updateTimer0When publishes the earliest deadline. sched.timersLock must be
// held.
func (sched *schedt) updateTimer0When() {
	if len(sched.timers) == 0 {
		sched.timer0When.Store(0)
	} else {
		sched.timer0When.Store(sched.timers[0].when)
	}
}

// addtimer arms t. If it is now the earliest timer, whoever waits for timers
// must wait less.
func (sched *schedt) addtimer(t *timer) {
	sched.timersLock.Lock()
	heap.Push(&sched.timers, t)
	first := sched.timers[0] == t
	when := t.when // once unlocked, t may fire (and be re-armed) on another M
	sched.updateTimer0When()
	sched.timersLock.Unlock()
	if first {
		wakeNetPoller(sched, when)
	}
}

// checkTimers runs every due timer, readying its G onto mp's P, and returns
// when the next timer is due (0 if none). It looks at the clock only if some
// timer exists.
//
// Mirrors (*timers).check (time.go). Executed by an M that holds a P.
func checkTimers(mp *m) (pollUntil int64) {
	sched := mp.sched
	next := sched.timer0When.Load()
	if next == 0 {
		return 0
	}
	now := sched.cfg.nanotime()
	if next > now {
		return next
	}
	for {
		sched.timersLock.Lock()
		if len(sched.timers) == 0 || sched.timers[0].when > now {
			sched.timersLock.Unlock()
			return sched.timer0When.Load()
		}
		t := heap.Pop(&sched.timers).(*timer)
		sched.updateTimer0When()
		sched.timersLock.Unlock()

		gp := t.gp
		t.when, t.gp = 0, nil
		goready(mp, gp)
	}
}

// blockUntilTimer parks mp, which holds no P, until pollUntil or until
// netpollBreak. The caller has won sched.lastpoll (it is the only M
// waiting for timers). It returns true with a P acquired if one is idle
// afterwards, so that the caller can go and run the timers; false if the
// caller should park (stopm). wasSpinning says whether mp was spinning
// before it stopped to give up its P: if so, it spins again on the P it
// acquires, as after findRunnable's other last looks.
//
// Mirrors the netpoll block at the end of findRunnable (proc.go:3732).
func blockUntilTimer(mp *m, pollUntil int64, wasSpinning bool) bool {
	sched := mp.sched
	if mp.p != nil {
		panic("findRunnable: netpoll with p")
	}
	if mp.spinning {
		panic("findRunnable: netpoll with spinning")
	}
	sched.pollUntil.Store(pollUntil)
	delay := pollUntil - sched.cfg.nanotime()
	if delay < 0 {
		delay = 0
	}
	// Close breaks this sleep once; if the M that waited before us took
	// that wake-up, we must see closing here (Close sets it first) rather
	// than sleep until the timer.
	if !sched.closing.Load() {
		notetsleep(&sched.pollnote, delay)
	}
	noteclear(&sched.pollnote)
	sched.pollUntil.Store(0)
	sched.lastpoll.Store(max(sched.cfg.nanotime(), 1))
	if sched.closing.Load() {
		return false
	}

	sched.lock.Lock()
	pp := sched.pidleget()
	sched.lock.Unlock()
	if pp == nil {
		return false
	}
	acquirep(mp, pp)
	if wasSpinning {
		mp.becomeSpinning()
	}
	return true
}

// netpollBreak wakes the M waiting for timers, if any.
func netpollBreak(sched *schedt) {
	notewakeupOnce(&sched.pollnote)
}

// wakeNetPoller makes sure someone wakes up by when: the M waiting for
// timers, if it would sleep past when; otherwise a spinning M, which will
// find the timer.
//
// Mirrors wakeNetPoller (proc.go:4002).
func wakeNetPoller(sched *schedt, when int64) {
	if sched.lastpoll.Load() == 0 {
		// An M is waiting for timers. If it will wake later than when,
		// wake it now so that it waits less.
		pollerPollUntil := sched.pollUntil.Load()
		if pollerPollUntil == 0 || pollerPollUntil > when {
			netpollBreak(sched)
		}
	} else {
		wakep(sched)
	}
}

// timeSleep parks gp for ns nanoseconds.
//
// Mirrors timeSleep (time.go). Called by gp itself.
func timeSleep(gp *g, ns int64) {
	if ns <= 0 {
		return
	}
	t := &gp.timer
	t.when = gp.sched.cfg.nanotime() + ns
	t.gp = gp
	// The timer is armed by the unlockf, after gp is _Gwaiting: armed any
	// earlier, it could fire and ready gp while gp is still running.
	gopark(gp, resetForSleep, nil, waitReasonSleep)
}

// resetForSleep arms the sleep timer of gp, which has just parked.
func resetForSleep(gp *g, _ unsafe.Pointer) bool {
	gp.sched.addtimer(&gp.timer)
	return true
}
