package sched

// A private test of lesson 01, in the format of a lesson's hidden tests:
// package sched, beside the reference and the kit (kitSched, kitGs...).

import "testing"

func TestPackL01StealHalf(t *testing.T) {
	sched := kitSched(2, Config{})
	victim, thief := sched.allp[0], sched.allp[1]
	for _, gp := range kitGs(sched, 1, 10) {
		runqputtail(victim, gp)
	}
	if gp := runqsteal(thief, victim, false); gp == nil {
		t.Fatal("stole nothing from a ring of 10")
	}
	if got := thief.runqtail.Load() - thief.runqhead.Load(); got != 4 {
		t.Fatalf("a steal from a ring of 10 left %d Gs queued on the thief, want 4 (5 taken, 1 returned)", got)
	}
}
