//go:build kata_interleave

package sched

import (
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// Noise on real threads. A controlled run (interleave_test.go,
// explore_test.go) runs one thread at a time, switching only at the
// scheduling points of the course's atomics: between two of them nothing
// else happens. Real threads run side by side, so a file can tell the two
// apart without a clock: spin a while with no scheduling point, and see
// whether shared memory moved meanwhile. A file that takes a wrong path
// only when it did is never wrong under control, and on real threads only
// when another thread also crosses that path's window, a few nanoseconds
// wide: once in thousands of runs.
//
// The noise widens every such window on real threads, whatever the file
// does to find them: before one operation in four of the course's atomics
// (and of a ring's slots), the thread that makes it waits up to about a
// microsecond, and before one in sixty-four it yields its thread. This is
// noise making, as in IBM's ConTest (Edelstein et al., 2002): the same
// threads and the same code, only the timing spread, so a window that
// real threads cross once in thousands of runs is crossed in nearly every
// run (a twenty-fourth red team's ring: 2 runs in 1,500 without, 29 in 30
// with). A
// correct file is correct under any timing; the noise changes no result of
// one, only how long it takes.

// The noise is on from the start, in every hidden test: a controlled run,
// or a test's hook of its own, replaces it while it runs and restores it
// after (each puts back the hook it found); a differential, which runs on
// one thread, turns it off (kitQuiet).
func init() {
	setInterleaveHook(kitNoisePoint)
	setSlotHook(kitNoisePoint)
	kitQuiet = func() (restore func()) { return kitSetPoints(nil) }
}

// kitSetPoints makes hook (nil: none) the hook of every scheduling point,
// the atomics' and the ring slots', and returns what puts back the hooks
// it found.
func kitSetPoints(hook func()) (restore func()) {
	old, oldSlot := setInterleaveHook(hook), setSlotHook(hook)
	return func() {
		setInterleaveHook(old)
		setSlotHook(oldSlot)
	}
}

// kitNoiseSink keeps kitNoisePoint's spin from being optimised away.
var kitNoiseSink atomic.Uint32

// kitNoisePoint is the noise before one operation: see above.
func kitNoisePoint() {
	r := rand.Uint32()
	switch {
	case r%64 == 0:
		runtime.Gosched()
	case r%4 == 0:
		x := r
		for i := (r >> 8) % 256; i > 0; i-- {
			x = x*1664525 + 1013904223
		}
		if x == 0 {
			kitNoiseSink.Add(1)
		}
	}
}

// kitPreempted makes the noise of the rest of t heavier: before one
// operation in 512, the thread also stops for 1 to 16µs (kitHold), as a
// thread the operating system takes off its core does; meanwhile the other
// threads run, the width of many whole operations. The real-thread tests that
// judge a lesson's race guarantee ask for it: a window a thread crosses in
// a few nanoseconds then holds whole steals (a twenty-fourth red team's
// thief that copied after its CAS only when it had seen the ring move
// failed the steal test in 4 runs of 20 without it, in 20 of 20 with it).
// In a test of one thread it only costs time, which is why not every test
// asks for it.
func kitPreempted(t *testing.T) {
	t.Cleanup(kitSetPoints(kitPreemptedPoint))
}

// kitPreemptedPoint is kitNoisePoint with kitPreempted's stops.
func kitPreemptedPoint() {
	if r := rand.Uint32(); r%512 == 0 {
		kitHold(time.Duration(1+(r>>9)%16) * time.Microsecond)
		return
	}
	kitNoisePoint()
}

// kitHold keeps the thread busy for d, without a scheduling point: the
// other threads run meanwhile, as they do while the operating system has
// this one off its core. It does not sleep: Go wakes a sleeping goroutine
// on its timers, which, on a machine whose other threads are all busy, may
// be a millisecond late, a hundred times d, and the test's time goes to
// waiting.
func kitHold(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}
