package checker

import (
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// TestGuaranteeScoresTogether: miniModule's TestPass passes and TestFail
// fails, in a real go test run. Sharing a guarantee with TestFail,
// TestPass fails with it, scores nothing and names it; on its own it
// passes. What a failure is caught by, and what blame looks at, stays
// the test that failed on its own, though TestPass comes first.
func TestGuaranteeScoresTogether(t *testing.T) {
	grade := func(guarantee string) *LessonResult {
		c := &Checker{opts: Options{NoRace: true, MaxOutput: 8 << 20}, mod: miniModule(t), vet: vetting{off: true}}
		l := &lessons.Lesson{ID: "les", Title: "les", Tests: []lessons.Test{
			{Name: "TestPass", Points: 3, Timeout: time.Minute, Guarantee: guarantee},
			{Name: "TestFail", Points: 2, Timeout: time.Minute, Guarantee: "every G exactly once"},
		}}
		return gradeSched(t, c, l, "package sched\n\nfunc crash() {}\n")
	}

	alone := grade("")
	wantTests(t, alone, map[string][2]string{"TestPass": {StatusPass, ""}, "TestFail": {StatusFail, "wrong"}})
	if alone.Score != 3 {
		t.Errorf("TestPass in no guarantee: score %d, want 3", alone.Score)
	}

	together := grade("every G exactly once")
	wantTests(t, together, map[string][2]string{
		"TestPass": {StatusFail, "fails with TestFail: this test passed, but it judges one guarantee (every G exactly once) with TestFail"},
		"TestFail": {StatusFail, "wrong"}})
	if together.Score != 0 || together.Tests[0].Score != 0 {
		t.Errorf("TestPass sharing TestFail's guarantee: lesson score %d, TestPass's %d, want 0 and 0", together.Score, together.Tests[0].Score)
	}
	if got := firstFailing(together); got != "TestFail" {
		t.Errorf("the first test that failed on its own: %q, want TestFail", got)
	}
	for _, tr := range together.Tests {
		if own := failedOnItsOwn(tr); own != (tr.Name == "TestFail") || !strings.HasPrefix(tr.Message, FailsWithPrefix) == (tr.Name == "TestPass") {
			t.Errorf("%s: failed on its own %v, message %q", tr.Name, own, tr.Message)
		}
	}
}

// TestGuaranteeNamesTheTestThatFailed: in a fail-fast run, a test of the
// guarantee that was not run comes first in the lesson's order; the
// passes fail with the test that failed on its own, not with it.
func TestGuaranteeNamesTheTestThatFailed(t *testing.T) {
	g := &grading{tests: map[string]lessons.Test{}, results: map[string]TestResult{}}
	for _, name := range []string{"TestNotRun", "TestWrong", "TestRight", "TestElsewhere"} {
		tt := lessons.Test{Name: name, Points: 1, Guarantee: "exactly once"}
		if name == "TestElsewhere" {
			tt.Guarantee = ""
		}
		g.tests[name], g.order = tt, append(g.order, name)
	}
	g.record("TestNotRun", StatusFail, notRunPrefix+"an earlier test failed", 0)
	g.record("TestWrong", StatusFail, "wrong", 0)
	g.record("TestRight", StatusPass, "", 0)
	g.record("TestElsewhere", StatusPass, "", 0)
	g.holdTogether()
	if got := g.results["TestRight"]; got.Status != StatusFail || got.Score != 0 || !strings.HasPrefix(got.Message, FailsWithPrefix+"TestWrong: ") {
		t.Errorf("TestRight: %s %d %q, want a failure, 0 points, %q first", got.Status, got.Score, got.Message, FailsWithPrefix+"TestWrong: ")
	}
	if got := g.results["TestElsewhere"]; got.Status != StatusPass || got.Score != 1 {
		t.Errorf("TestElsewhere, in no guarantee: %s %d, want a pass and its point", got.Status, got.Score)
	}
}
