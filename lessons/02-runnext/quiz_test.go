package runnext

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		{Seed: 0, Kind: "put-order", Says: []string{"runqput(G1, next=false), runqput(G2, next=false), runqput(G3, next=false)."},
			Answer: "G1 G2 G3", Because: []string{"runnext holds none"}},
		// G2 to runnext, then G3 kicks it to the ring behind G1.
		{Seed: 3, Kind: "put-order", Says: []string{"runqput(G1, next=false), runqput(G2, next=true), runqput(G3, next=true), runqput(G4, next=false), runqput(G5, next=false)."},
			Answer: "G3 G1 G2 G4 G5", Because: []string{"runnext holds G3 and the ring G1 G2 G4 G5"}},
		{Seed: 6, Kind: "put-order", Says: []string{"runqput(G4, next=true), runqput(G5, next=false), runqput(G6, next=false)."},
			Answer: "G4 G1 G2 G3 G5 G6"},
		// 3 - 3/2 = 2 from the ring; runnext stays.
		{Seed: 1, Kind: "steal-runnext", Says: []string{"ring is G1 G2 G3", "first pass"},
			Answer: "G1 G2", Because: []string{"n - n/2 = 2 of its 3 Gs", "leaves runnext alone"}},
		// A ring of one: 1 - 0 = 1, even on the last pass runnext stays.
		{Seed: 10, Kind: "steal-runnext", Says: []string{"ring is G1,", "last pass"},
			Answer: "G1", Because: []string{"n - n/2 = 1 of its 1 Gs"}},
		{Seed: 7, Kind: "steal-runnext", Says: []string{"ring is empty", "first pass"},
			Answer: "none", Because: []string{"only on the last of its four passes"}},
		{Seed: 19, Kind: "steal-runnext", Says: []string{"ring is empty", "last pass"},
			Answer: "G9", Because: []string{"takes it with a CAS"}},
		// runnext G1 taken; G3 pushes G2 to the ring, G5 pushes G3; runnext G5 taken.
		{Seed: 2, Kind: "inherit-time", Says: []string{"runqput(G1, next=true), runqget(), runqput(G2, next=true), runqput(G3, next=true), runqput(G4, next=false), runqput(G5, next=true), runqget()."},
			Answer: "G1 G5", Because: []string{"here G1 G5"}},
		// G1 from the ring; G2 from runnext.
		{Seed: 5, Kind: "inherit-time", Says: []string{"runqput(G1, next=false), runqget(), runqput(G2, next=true), runqget(), runqput(G3, next=true), runqput(G4, next=false)."},
			Answer: "G2"},
		{Seed: 8, Kind: "inherit-time", Says: []string{"runqput(G1, next=true), runqput(G2, next=false), runqput(G3, next=true), runqput(G4, next=false), runqget(), runqget()."},
			Answer: "G3"},
		// What happens next. G901 takes runnext; G900 is kicked to the ring, which has room (255).
		{Seed: 3, Kind: "next-kick", Says: []string{"ring holds G1 to G255", "runnext holds G900", "readies G901"},
			Answer: "a", Because: []string{"The ring holds 255 Gs of 256"}},
		// The ring is full: G900 leaves with G1..G128 for the global queue.
		{Seed: 7, Kind: "next-kick", Says: []string{"ring holds G1 to G256", "runnext holds G900"},
			Answer: "b", Because: []string{"The ring is full", "G1 to G128, and G900 after them, 129 Gs"}},
	})
}
