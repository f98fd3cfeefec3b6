package workspace

import (
	"testing"
	"time"
)

// TestSavesAreNotAttempts: a check kata watch makes on a save records the
// result but is not counted as a check the learner asked for.
func TestSavesAreNotAttempts(t *testing.T) {
	p := newProgress()
	lp := p.Lesson("01-ringbuffer")
	at := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	lp.RecordSave("fail", 40, 100, at)
	lp.RecordSave("fail", 60, 100, at.Add(time.Minute))
	lp.Record("pass", 100, 100, at.Add(2*time.Minute))
	if lp.Checks != 1 || lp.Saves != 2 {
		t.Errorf("after two saves checked by watch and one kata check: Checks = %d, Saves = %d; want 1 and 2", lp.Checks, lp.Saves)
	}
	if lp.Status != "pass" || lp.Score != 100 || !lp.PassedAt.Equal(at.Add(2*time.Minute)) {
		t.Errorf("the last result is %s %d (passed at %v); want pass 100 at %v", lp.Status, lp.Score, lp.PassedAt, at.Add(2*time.Minute))
	}
	lp.RecordSave("fail", 90, 100, at.Add(3*time.Minute))
	if !lp.PassedAt.Equal(at.Add(2 * time.Minute)) {
		t.Errorf("a later failing save moved PassedAt to %v", lp.PassedAt)
	}
}
