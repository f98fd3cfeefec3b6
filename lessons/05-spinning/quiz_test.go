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
	})
}
