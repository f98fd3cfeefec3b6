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
// differently when things move is caught. It is asked on real threads,
// the stirrer running side by side with the asker, and under the
// controlled scheduler (kitInterleaveWalk), the stirrer's steps falling
// between the asker's own at random: a file that looks for either sees
// the counters move in both.

// kitStirWalks are the controlled runs' seeds and chances of a switch:
// one in 10 (the most a controlled run takes: see l01Walks), and one in 30.
var kitStirWalks = []float64{1.0 / 10, 1.0 / 30}

// kitStirred asks ask(i) for i = 0..n-1 while stir runs over and over on
// another thread, first on real threads, then under the controlled
// scheduler with each of kitStirWalks, and fails t with the first answer
// that was wrong (ask returns what was wrong, or ""). Each ask must leave
// the state as stir expects it. what says, for the failure, how the
// counters moved.
func kitStirred(t *testing.T, lesson, what string, n int, stir func(), ask func(i int) string) {
	t.Helper()
	const news = " (**new**: since late November 2026 this test asks its questions again while other threads move the counters the answer does not depend on)"
	if msg := kitStirredReal(n, stir, ask); msg != "" {
		t.Fatalf("%s, on real threads while %s: the answer must not depend on whether other threads are at work%s%s", msg, what, news, kitHint(lesson))
	}
	for i, walk := range kitStirWalks {
		seed := uint64(i + 1)
		var msg string
		done := false
		err := kitInterleaveWalk(seed, walk,
			"the asker", func() {
				defer func() { done = true }()
				for i := range n {
					if msg = ask(i); msg != "" {
						return
					}
				}
			},
			"the stirrer", func() {
				for !done {
					stir()
				}
			})
		if err != nil {
			msg = err.Error()
		}
		if msg != "" {
			t.Fatalf("%s, under a controlled scheduler that ran another thread between its steps at random (one in %.0f) while %s: the answer must not depend on whether other threads are at work%s%s", msg, 1/walk, what, news, kitHint(lesson))
		}
	}
}

// kitStirredReal is kitStirred's part on real threads: the stirrer runs
// from before the first question to after the last.
func kitStirredReal(n int, stir func(), ask func(i int) string) (msg string) {
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
