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
	const news = " (**new**: since late November 2026 this test asks its questions again while other threads move the counters the answer does not depend on)"
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

// kitStirSquare returns a stir that moves x between its value and one
// more, and y likewise, one step at a time round the square: x+1, y+1,
// x-1, y-1. Each step changes one of them, and a file that reads both
// sees them change unless it made four operations since it last looked.
func kitStirSquare(x, y *atomicInt32) func() {
	step := 0
	return func() {
		switch step % 4 {
		case 0:
			x.Add(1)
		case 1:
			y.Add(1)
		case 2:
			x.Add(-1)
		case 3:
			y.Add(-1)
		}
		step++
	}
}
