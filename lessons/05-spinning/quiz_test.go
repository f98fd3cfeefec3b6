package spinning

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		// 2 × 3 = 6 is not < 5 - 1 = 4.
		{Seed: 0, Kind: "may-spin", Says: []string{"GOMAXPROCS is 5", "Idle Ps: 1", "each holding a P: 3"},
			Answer: "no", Because: []string{"2 × 3 against 5 - 1", "may not"}},
		// 6 < 7 - 0.
		{Seed: 3, Kind: "may-spin", Says: []string{"GOMAXPROCS is 7", "Idle Ps: 0", "each holding a P: 3"}, Answer: "yes"},
		// 2 < 8 - 1.
		{Seed: 6, Kind: "may-spin", Says: []string{"GOMAXPROCS is 8", "Idle Ps: 1", "each holding a P: 1"}, Answer: "yes"},
		// Nobody spins and 5 Ps are idle: one spinner.
		{Seed: 1, Kind: "wakep", Says: []string{"Spinning Ms: 0", "Idle Ps: 5"},
			Answer: "a", Because: []string{"from 0 to 1 won", "nmspinning is now 1"}},
		// Nobody spins, but no P is idle.
		{Seed: 4, Kind: "wakep", Says: []string{"Spinning Ms: 0", "Idle Ps: 0"},
			Answer: "c", Because: []string{"found no idle P"}},
		{Seed: 7, Kind: "wakep", Says: []string{"Spinning Ms: 1", "Idle Ps: 0"},
			Answer: "b", Because: []string{"nmspinning was 1"}},
		// 1 → 0, and wakep starts one on an idle P.
		{Seed: 2, Kind: "resetspinning", Says: []string{"Other spinning Ms: 0", "Idle Ps: 3"},
			Answer: "1", Because: []string{"nmspinning 1 → 0", "started an M spinning"}},
		// 2 → 1: wakep sees a spinner and does nothing.
		{Seed: 5, Kind: "resetspinning", Says: []string{"Other spinning Ms: 1", "Idle Ps: 0"},
			Answer: "1", Because: []string{"nmspinning 2 → 1", "other Ms still spin"}},
		// 1 → 0, and no idle P for wakep.
		{Seed: 14, Kind: "resetspinning", Says: []string{"Other spinning Ms: 0", "Idle Ps: 0"},
			Answer: "0", Because: []string{"no idle P"}},
		// What happens next. 3 spinners: wakep does nothing; the gate, 2 × 3 < 5, refuses P1's M.
		{Seed: 3, Kind: "next-needspinning", Says: []string{"GOMAXPROCS is 5", "3 hold a spinning M"},
			Answer: "c", Because: []string{"saw nmspinning = 3", "2 × 3 against 5 - 0", "It is refused"}},
		// 2 spinners: wakep does nothing; 2 × 2 < 5, so P1's M spins and takes runnext on the last pass.
		{Seed: 7, Kind: "next-needspinning", Says: []string{"GOMAXPROCS is 5", "2 hold a spinning M"},
			Answer: "b", Because: []string{"saw nmspinning = 2", "It passes", "last steal pass"}},
		// 2 × 2 is not < 4.
		{Seed: 11, Kind: "next-needspinning", Says: []string{"GOMAXPROCS is 4", "2 hold a spinning M"}, Answer: "c"},
		// Nobody spins and no P is idle: needspinning; the gate, 0 < 3, lets P1's M spin, which clears it.
		{Seed: 15, Kind: "next-needspinning", Says: []string{"GOMAXPROCS is 3", "0 hold a spinning M"},
			Answer: "a", Because: []string{"found no idle P", "set needspinning", "clears needspinning"}},
		{Seed: 19, Kind: "next-needspinning", Says: []string{"GOMAXPROCS is 6", "0 hold a spinning M"}, Answer: "a"},
	})
}
