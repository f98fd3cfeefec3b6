package findrunnable

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		// 720 mod 5 = 0; coprimes of 5: 1 2 3 4; 720/5 = 144, 144 mod 4 = 0: step 1.
		{Seed: 0, Kind: "steal-order", Says: []string{"GOMAXPROCS is 5", "random number 720"},
			Answer: "P0 P1 P2 P3 P4", Because: []string{"720 mod 5 = P0", ": 1 here"}},
		// 33 mod 7 = 5; coprimes of 7: 1..6; 33/7 = 4, 4 mod 6 = 4: step coprimes[4] = 5.
		{Seed: 3, Kind: "steal-order", Says: []string{"GOMAXPROCS is 7", "random number 33"},
			Answer: "P5 P3 P1 P6 P4 P2 P0", Because: []string{"33 mod 7 = P5", ": 5 here"}},
		// 389 mod 8 = 5; coprimes of 8: 1 3 5 7; 389/8 = 48, 48 mod 4 = 0: step 1.
		{Seed: 6, Kind: "steal-order", Says: []string{"GOMAXPROCS is 8", "random number 389"},
			Answer: "P5 P6 P7 P0 P1 P2 P3 P4"},
		// Nothing local or global: steal 2 - 1 = 1 of P1's two, G20.
		{Seed: 1, Kind: "next-g", Says: []string{"schedtick is 146", "runnext is empty", "ring holds nothing", "global queue holds nothing", "P1 runs G100 and its ring holds G20 G21"},
			Answer: "G20", Because: []string{"steals"}},
		// 183 = 3 × 61: the global queue first, although runnext holds G1.
		{Seed: 4, Kind: "next-g", Says: []string{"schedtick is 183", "runnext holds G1", "global queue holds G10;"},
			Answer: "G10", Because: []string{"(proc.go:3443)", "although P0 has work of its own"}},
		{Seed: 7, Kind: "next-g", Says: []string{"schedtick is 1;", "runnext is empty", "ring holds G2;", "global queue holds G10 G11"},
			Answer: "G2", Because: []string{"(proc.go:3469)", "the ring's head"}},
		// 61: the fairness check finds the global queue empty; then runnext.
		{Seed: 10, Kind: "next-g", Says: []string{"schedtick is 61;", "runnext holds G1", "global queue holds nothing"},
			Answer: "G1", Because: []string{"the global queue is empty"}},
		// 173 is no multiple of 61; nothing local: the global batch.
		{Seed: 25, Kind: "next-g", Says: []string{"schedtick is 173;", "runnext is empty", "ring holds nothing", "global queue holds G10;"},
			Answer: "G10", Because: []string{"(proc.go:3476)"}},
		// 4 - 2 = 2 taken on the first pass: G1 G2; G2 runs.
		{Seed: 2, Kind: "steal-pass", Says: []string{"ring holds G1 G2 G3 G4 and its runnext G9"},
			Answer: "G2", Because: []string{"takes 2 of them", "left on P0's ring: G1"}},
		{Seed: 5, Kind: "steal-pass", Says: []string{"ring holds G1 G2 G3 and its runnext G9"}, Answer: "G2"},
		// An empty ring: only the last pass takes runnext.
		{Seed: 8, Kind: "steal-pass", Says: []string{"ring holds nothing and its runnext G9"},
			Answer: "G9", Because: []string{"only the last pass"}},
		// What happens next. newproc puts each new G in runnext, kicking the one before to the ring.
		// 3 spinners: wakep does nothing; 6 busy Ps, 2 × 3 = 6 is not < 6: refused, P0's M gives up its P.
		{Seed: 3, Kind: "next-give-up", Says: []string{"GOMAXPROCS is 6", "3 with a spinning M, 0 idle", "created G2 G3 G4 G5"},
			Answer: "b", Because: []string{"saw nmspinning = 3", "2 × 3 against 6 - 0", "Refused", "only for an M that was spinning"}},
		// 2 × 2 = 4 < 6 - 1: it spins. P1: runnext G3, ring G2: it takes 1 - 0 = 1, G2.
		{Seed: 7, Kind: "next-give-up", Says: []string{"GOMAXPROCS is 6", "2 with a spinning M, 1 idle", "created G2 G3"},
			Answer: "a", Because: []string{"2 × 2 against 6 - 1", "takes 1 of the 1 Gs on P1's ring", "leaves runnext, G3, to P1", "G2."}},
		// 2 × 2 is not < 4 - 0, nor < 5 - 1.
		{Seed: 15, Kind: "next-give-up", Says: []string{"GOMAXPROCS is 4", "2 with a spinning M, 0 idle"}, Answer: "b"},
		{Seed: 23, Kind: "next-give-up", Says: []string{"GOMAXPROCS is 5", "2 with a spinning M, 1 idle"}, Answer: "b"},
		// Nobody spins, P4 and P5 idle: wakep starts a spinner on P4, the idle list's head (procresize pushed
		// P5 .. P0 at the head). 2 × 1 < 6 - 1: P0's M spins too. P1: runnext G7, ring G2..G6: 5 - 2 = 3
		// taken, G2 G3 G4; it runs G4.
		{Seed: 27, Kind: "next-give-up", Says: []string{"GOMAXPROCS is 6", "0 with a spinning M, 2 idle", "G2 G3 G4 G5 G6 G7"},
			Answer: "a", Because: []string{"started an M spinning on P4", "2 × 1 against 6 - 1", "takes 3 of the 5 Gs", "runnext, G7", "G4."}},
		// Nobody spins and no P is idle: wakep sets needspinning; 2 × 0 < 5, it spins and takes G2 from the ring.
		{Seed: 43, Kind: "next-give-up", Says: []string{"GOMAXPROCS is 5", "0 with a spinning M, 0 idle", "created G2 G3"},
			Answer: "a", Because: []string{"set needspinning", "2 × 0 against 5 - 0", "G2."}},
		// One spinner: wakep does nothing; 2 × 1 < 4 - 0, it spins. P1: ring G2 G3 G4, runnext G5: 3 - 1 = 2 taken, G3 runs.
		{Seed: 39, Kind: "next-give-up", Says: []string{"GOMAXPROCS is 4", "1 with a spinning M, 0 idle", "created G2 G3 G4 G5"},
			Answer: "a", Because: []string{"2 × 1 against 4 - 0", "takes 2 of the 3 Gs", "G3."}},
	})
}
