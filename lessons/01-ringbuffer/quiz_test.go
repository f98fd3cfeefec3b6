package ringbuffer

import (
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/quiz/quiztest"
)

// The lesson's questions against answers worked out by hand from the rules
// in the chapter.
func TestQuizWorkedByHand(t *testing.T) {
	quiztest.Check(t, quizKinds, []quiztest.Case{
		// 4294967293 + 7 wraps to 4; 4 gets: head 1; 3 left, steal takes 2: head 3; 2 puts: tail 6.
		{Seed: 0, Kind: "counters", Says: []string{"= 4294967293", "puts 7 Gs", "takes 4", "puts 2 more", "runqtail"},
			Answer: "6", Because: []string{"P1 steals 2: head 3, tail 4", "wrap"}},
		// 3 puts, 1 get: head 4294967292, 2 left; steal takes 2 - 1 = 1: head 4294967293.
		{Seed: 3, Kind: "counters", Says: []string{"= 4294967291", "puts 3 Gs", "takes 1", "runqhead"},
			Answer: "4294967293", Because: []string{"P1 steals 1: head 4294967293"}},
		// tail 4294967290 + 5 + 4 wraps to 3.
		{Seed: 6, Kind: "counters", Says: []string{"= 4294967290", "puts 5 Gs", "takes 4", "puts 4 more", "runqtail"},
			Answer: "3", Because: []string{"4 puts: head 4294967295, tail 3"}},
		// 12 - 12/2 = 6: G1..G6, the last one runs.
		{Seed: 1, Kind: "steal-half", Says: []string{"G1 to G12", "Which G does runqsteal return"},
			Answer: "G6", Because: []string{"6 of 12", "G6", "P1's ring (G1 G2 G3 G4 G5)"}},
		// 2 - 2/2 = 1: G1.
		{Seed: 4, Kind: "steal-half", Says: []string{"G1 to G2", "Which G does runqsteal return"},
			Answer: "G1", Because: []string{"1 of 2"}},
		// 6 - 3 = 3 taken from the head: G4 G5 G6 stay.
		{Seed: 7, Kind: "steal-half", Says: []string{"G1 to G6", "Which Gs are left on P0's ring"},
			Answer: "G4 G5 G6", Because: []string{"3 of 6"}},
		// Full at G257, G386 (128 puts later), G515: 3 × 129; 89 more puts leave 128 + 89.
		{Seed: 2, Kind: "overflow", Says: []string{"G604"},
			Answer: "387", Because: []string{"at G257, G386, G515", "217 are left"}},
		{Seed: 14, Kind: "overflow", Says: []string{"G377"}, Answer: "129", Because: []string{"at G257,", "248 are left"}},
		{Seed: 17, Kind: "overflow", Says: []string{"G442"}, Answer: "258"},
		{Seed: 23, Kind: "overflow", Says: []string{"G252"}, Answer: "0", Because: []string{"never happened"}},
		// What happens next. 255 Gs in 256 slots: room, G256 goes to the tail.
		{Seed: 3, Kind: "next-put", Says: []string{"holds G1 to G255", "puts G256"},
			Answer: "a", Because: []string{"holds 255 Gs, so there is room"}},
		// 256 Gs: full; runqputslow moves G1..G128 and G257, 129, and 128 stay.
		{Seed: 7, Kind: "next-put", Says: []string{"holds G1 to G256", "puts G257"},
			Answer: "c", Because: []string{"holds 256 Gs", "129", "the owner keeps the newer half (128 Gs)"}},
		{Seed: 63, Kind: "next-put", Says: []string{"holds G1 to G252", "puts G253"}, Answer: "a"},
	})
}
