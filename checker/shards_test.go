package checker

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShardsSpreadByLimit: every test in exactly one batch, each batch in
// the lesson's order, the long limits spread before the short ones.
func TestShardsSpreadByLimit(t *testing.T) {
	tests := []string{"A", "B", "C", "D", "E", "F"}
	limits := map[string]time.Duration{"A": 10, "B": 30, "C": 10, "D": 30, "E": 20, "F": 10}
	got := shards(tests, 2, limits)
	require.Len(t, got, 2)
	assert.Equal(t, [][]string{{"B", "E", "F"}, {"A", "C", "D"}}, got, "30+20+10 and 30+10+10")
	var all []string
	for _, b := range got {
		assert.True(t, slices.IsSortedFunc(b, func(x, y string) int { return slices.Index(tests, x) - slices.Index(tests, y) }), "%v is not in the lesson's order", b)
		all = append(all, b...)
	}
	slices.Sort(all)
	assert.Equal(t, tests, all)

	assert.Equal(t, [][]string{tests}, shards(tests, 1, limits))
	assert.Equal(t, [][]string{tests}, shards(tests, 0, limits))
	assert.Equal(t, [][]string{{"A"}}, shards([]string{"A"}, 4, limits), "one test: one process")
	assert.Len(t, shards(tests[:3], 8, limits), 3, "no more processes than tests")
}

// TestProcessesJudgeEachAlone: a lesson graded in two processes at once
// gives every test the verdict one process gives it: the reference's file
// passes everything either way, and a file that crashes the test process
// whenever ready runs fails the same tests, each crash failing only the
// test it happened in.
func TestProcessesJudgeEachAlone(t *testing.T) {
	if testing.Short() {
		t.Skip("grades six tests of lesson 06 four times")
	}
	t.Parallel() // a copy of the shared checker, or the checker itself (safe for concurrent use); it mostly builds and waits on runs
	c := withoutVet(sharedChecker(t))
	c.opts.NoRace = true // processes and crashes are the point, not races (33 s of go test ./... under the race detector, 20 s without)
	l := lesson(t, "06")
	// Six of its tests: some call ready, some do not.
	run := regexp.MustCompile(`^TestL06(UnlockfRunsAfterPark|DeclinedParkRunsAgain|ReadyRunnext|ReadyNotWaitingPanics|UnlockfRunsOnTheM|ParkWithoutUnlockf)$`)
	ref := string(embedded(t, "solutions/park.go"))
	crashing := strings.Replace(ref, "func ready(mp *m, gp *g, next bool) {", `func ready(mp *m, gp *g, next bool) {
	go func() { panic("boom in ready") }()
	select {}`, 1)
	require.NotEqual(t, ref, crashing)
	for _, src := range []string{ref, crashing} {
		files := lessonFile(t, "park.go", []byte(src))
		one := c.LessonWith(context.Background(), l, files, CheckOptions{Run: run})
		two := c.LessonWith(context.Background(), l, files, CheckOptions{Run: run, Processes: 2})
		require.Empty(t, one.Error)
		require.Empty(t, two.Error)
		verdicts := func(res *LessonResult) map[string]string {
			m := map[string]string{}
			for _, tr := range res.Tests {
				m[tr.Name] = tr.Status
				if strings.HasPrefix(tr.Message, "crashed: ") {
					m[tr.Name] += " (crashed)"
				}
			}
			return m
		}
		assert.Equal(t, verdicts(one), verdicts(two))
		crashed := 0
		for _, v := range verdicts(two) {
			if strings.HasSuffix(v, "(crashed)") {
				crashed++
			}
		}
		if src == ref {
			assert.Equal(t, one.MaxScore, two.Score, "the reference's file")
		} else {
			assert.Greater(t, crashed, 1, "the crashing file: %v", verdicts(two))
			assert.Greater(t, two.Score, 0, "the crashing file: the tests that never call ready pass")
		}
		assert.Equal(t, one.Score, two.Score)
		var phase *Phase
		for i, ph := range two.Phases {
			if ph.Name == "run" {
				phase = &two.Phases[i]
				break
			}
		}
		require.NotNil(t, phase, "%+v", two.Phases)
		assert.Equal(t, 2, phase.Processes, "the first run: two processes at once")
		assert.Equal(t, 6, phase.Tests)
	}
}

// TestSplitKeepsTheTestsNotRun: after a split, the run of one test alone
// settles that test, and every other test left is still left, to run
// alone in turn (a tenth red team's racy file lost thirteen tests here:
// blank rows, 0 of 0 points). The run is a trusted one, made up.
func TestSplitKeepsTheTestsNotRun(t *testing.T) {
	c := withoutVet(sharedChecker(t))
	r := &run{timeouts: map[string]time.Duration{"TestA": time.Minute, "TestB": time.Minute, "TestC": time.Minute}}
	l := &lessons.Lesson{ID: "99-made-up", Tests: []lessons.Test{{Name: "TestA", Points: 1}, {Name: "TestB", Points: 1}, {Name: "TestC", Points: 1}}}
	g := c.newGrading(l.ID, "made up", r, []*lessons.Lesson{l})
	g.split, g.raced = true, true
	batches := g.batches()
	require.Equal(t, [][]string{{"TestA"}}, batches, "split: the first test alone")
	rr := &runResult{s: newStream(), exitCode: 0, harness: &harnessReport{Honest: true, Verdicts: map[string]string{"TestA": "pass"}}, ended: map[string]string{"TestA": "pass"}}
	rr.s.tests["TestA"] = &outcome{started: true, finished: true, action: "pass"}
	g.take([]*runResult{rr}, batches)
	assert.Equal(t, []string{"TestB", "TestC"}, g.remaining, "the tests not run yet are still to run")
	assert.Equal(t, StatusPass, g.results["TestA"].Status)
	res := g.result(time.Now())
	for _, tr := range res.Tests[1:] {
		assert.Contains(t, tr.Message, "kata lost this test's result", "a test never settled is said so, not left blank")
	}
}

// TestTimingsWeighTheNextCheck: a check keeps its tests' times, and the
// next spreads its tests by them; a test it has no time for sends it back
// to the time limits.
func TestTimingsWeighTheNextCheck(t *testing.T) {
	c := &Checker{opts: Options{CacheDir: t.TempDir()}}
	c.keepTimes(&LessonResult{ID: "99-made-up", Tests: []TestResult{{Name: "TestA", Elapsed: 1.5}, {Name: "TestB", Elapsed: 0.2}, {Name: "TestC", Elapsed: 0.2}, {Name: "TestD", Elapsed: 1.2}}})
	w := c.lastTimes("99-made-up", []string{"TestA", "TestB", "TestC", "TestD"})
	require.NotNil(t, w)
	assert.Equal(t, 1501*time.Millisecond, w["TestA"])
	assert.Equal(t, [][]string{{"TestA"}, {"TestB", "TestC", "TestD"}}, shards([]string{"TestA", "TestB", "TestC", "TestD"}, 2, w), "1.5 and 1.2+0.2+0.2, the heaviest first")
	assert.Nil(t, c.lastTimes("99-made-up", []string{"TestA", "TestE"}), "TestE was never timed")
	assert.Nil(t, c.lastTimes("98-never-checked", []string{"TestA"}))
}

// TestCheapFirst: a fail-fast run starts with the tests that cost at most
// a tenth of the heaviest, in the lesson's order; when all or none are
// that cheap, it runs them all at once.
func TestCheapFirst(t *testing.T) {
	ms := time.Millisecond
	w := map[string]time.Duration{"Explore": 3250 * ms, "FIFO": 110 * ms, "Differential": 700 * ms, "DrainEdges": 10 * ms, "Controlled": 790 * ms}
	assert.Equal(t, []string{"FIFO", "DrainEdges"}, cheapFirst([]string{"Explore", "FIFO", "Differential", "DrainEdges", "Controlled"}, w))
	assert.Equal(t, []string{"Explore", "Differential"}, cheapFirst([]string{"Explore", "Differential"}, w), "none cheap: all")
	assert.Equal(t, []string{"FIFO", "DrainEdges"}, cheapFirst([]string{"FIFO", "DrainEdges"}, map[string]time.Duration{}), "no weights: all")
}
