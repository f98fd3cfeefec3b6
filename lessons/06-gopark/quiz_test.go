package gopark

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		// unlockf false: runnable again, run at once.
		{Seed: 0, Kind: "park-status", Says: []string{"G11 runs on P0", "returns false"},
			Answer: "b", Because: []string{"makes G11 _Grunnable again"}},
		{Seed: 3, Kind: "park-status", Says: []string{"G16", "returns false"}, Answer: "b"},
		// unlockf true: waiting until someone readies it.
		{Seed: 9, Kind: "park-status", Says: []string{"G13", "returns true"},
			Answer: "c", Because: []string{"G13 stays _Gwaiting"}},
		{Seed: 15, Kind: "park-status", Says: []string{"G5", "returns true"}, Answer: "c"},
		// A running G is not waiting: ready throws.
		{Seed: 1, Kind: "ready-whom", Says: []string{"G22 is running on P1", "goready(G22)"},
			Answer: "c", Because: []string{"G22 was _Grunning, not _Gwaiting"}},
		// A parked G goes into the readier's runnext.
		{Seed: 4, Kind: "ready-whom", Says: []string{"G6 parked on P1", "goready(G6)"},
			Answer: "a", Because: []string{"runqput with next=true"}},
		// A G on a run queue is runnable, not waiting: ready throws.
		{Seed: 7, Kind: "ready-whom", Says: []string{"G13 is on P1's ring", "goready(G13)"},
			Answer: "c", Because: []string{"G13 was _Grunnable"}},
		// runnext: G6, G4, G5, G7, each kicking the one before to the ring behind G20.
		{Seed: 2, Kind: "ready-order", Says: []string{"ring holds G20.", "goready(G6), goready(G4), goready(G5), goready(G7)"},
			Answer: "G7 G20 G6 G4 G5", Because: []string{"the last G readied runs first"}},
		{Seed: 5, Kind: "ready-order", Says: []string{"ring holds G20 G21.", "goready(G4), goready(G7), goready(G6), goready(G5)"},
			Answer: "G5 G20 G21 G4 G7 G6"},
		{Seed: 8, Kind: "ready-order", Says: []string{"ring holds nothing.", "goready(G5), goready(G6), goready(G7), goready(G4)"},
			Answer: "G4 G5 G6 G7"},
		// What happens next. Readied after unlockf released the lock: parked already, into P0's runnext.
		{Seed: 3, Kind: "next-park-race", Says: []string{"runnext is empty", "G15, on P1, receives from a channel", "goready(G15)"},
			Answer: "a", Because: []string{"before it calls unlockf", "finds it _Gwaiting"}},
		// The same, and G20 is kicked from runnext to the ring.
		{Seed: 11, Kind: "next-park-race", Says: []string{"runnext holds G20", "G14, on P1, receives from a channel"},
			Answer: "a", Because: []string{"G20 is kicked to the tail of P0's ring"}},
		// The flag was set before the unlockf looked: it returns false, and G11 runs on.
		{Seed: 7, Kind: "next-park-race", Says: []string{"G11, on P1, waits for a flag", "readies nobody"},
			Answer: "b", Because: []string{"returns false", "runs it at once on the same M"}},
		{Seed: 23, Kind: "next-park-race", Says: []string{"G4, on P1, waits for a flag"}, Answer: "b"},
	})
}
