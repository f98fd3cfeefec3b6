package checker

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// The tests below grade, with gradeRun, code that attacks what kata takes
// from a run: the harness's report (a report is a grade only from a run
// that ended as the harness ends it, and that the race detector found
// clean) and the run's time (deadlines come from the harness's own
// signals and kata's clocks, never from the output the code under test
// shares). Each grades miniModule's hidden tests, a point each, as one
// lesson.

// forgedNonce is the nonce of the runs these tests play: what code that
// reads the test process's memory finds there (the red team's A30 did).
const forgedNonce = "00112233445566778899aabbccddeeff"

// knownNonce makes every run's nonce forgedNonce until the test ends.
func knownNonce(t *testing.T) {
	saved := newNonce
	newNonce = func() string { return forgedNonce }
	t.Cleanup(func() { newNonce = saved })
}

// gradeMini grades src (sched.go, which must declare crash) against the
// hidden tests of miniModule's "les", each with its limit (limits), a
// point each, with or without the race detector, stopping after
// maxTimeouts hangs.
func gradeMini(t *testing.T, src string, race bool, maxTimeouts int, limits map[string]time.Duration) *LessonResult {
	t.Helper()
	c := &Checker{opts: Options{NoRace: !race, MaxOutput: 8 << 20, MaxTimeouts: maxTimeouts}, mod: miniModule(t), vet: vetting{off: true}}
	l := &lessons.Lesson{ID: "les", Title: "les"}
	for _, name := range []string{"TestPass", "TestFail", "TestSkip", "TestPanic"} {
		if d, ok := limits[name]; ok {
			l.Tests = append(l.Tests, lessons.Test{Name: name, Points: 1, Timeout: d})
		}
	}
	r, err := c.newRun(lessonFile(t, "sched.go", []byte(src)), []*lessons.Lesson{l})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.cleanup)
	res := c.gradeRun(context.Background(), l.ID, l.Title, r, []*lessons.Lesson{l})
	if res.Status == StatusError || res.NotCompiled {
		t.Fatalf("%s: %s %q", res.Status, res.Error, res.CompileErrors)
	}
	for _, tr := range res.Tests {
		t.Logf("%s %s: %s", tr.Status, tr.Name, tr.Message)
	}
	return res
}

// wantTests checks each test's status and that its message matches.
func wantTests(t *testing.T, res *LessonResult, want map[string][2]string) {
	t.Helper()
	for _, tr := range res.Tests {
		w, ok := want[tr.Name]
		if !ok {
			continue
		}
		if tr.Status != w[0] || !strings.Contains(tr.Message, w[1]) {
			t.Errorf("%s: %s %q, want %s with %q", tr.Name, tr.Status, tr.Message, w[0], w[1])
		}
	}
}

// TestForgedRunLinesBuyNothing (the red team's A26): code that hangs,
// while a goroutine prints framed "=== RUN" lines, for a test the lesson
// does not have and for one it has, again and again. Each used to move
// the deadline on (gapAllowance, or the other test's limit), so the hang
// ran to -test.timeout and ended as a crash, which MaxTimeouts does not
// count, and the binary ran again for each test left. Now the deadline
// follows the harness's own signals: the hang is stopped at its limit,
// and counted.
func TestForgedRunLinesBuyNothing(t *testing.T) {
	res := gradeMini(t, `package sched

import (
	"fmt"
	"time"
)

func crash() {
	go func() {
		for i := 0; ; i++ {
			fmt.Printf("\x16=== RUN   TestKataBogus%c\n", "AB"[i%2])
			fmt.Printf("\x16=== RUN   TestPass\n\x16--- PASS: TestPass (0.00s)\n")
			time.Sleep(100 * time.Millisecond)
		}
	}()
	select {}
}
`, false, 1, map[string]time.Duration{"TestPanic": 2 * time.Second, "TestPass": 3 * time.Second, "TestFail": 3 * time.Second})
	wantTests(t, res, map[string][2]string{
		"TestPanic": {StatusFail, "did not finish within 2s"},
		"TestPass":  {StatusFail, notRunPrefix + "an earlier test of this lesson was stopped"},
		"TestFail":  {StatusFail, notRunPrefix + "an earlier test of this lesson was stopped"},
	})
	// The build, then one test's limit; without the fix, 68 s (the run's
	// -test.timeout) and a run more.
	if res.WallTime > 45 {
		t.Errorf("graded in %.0fs, want the hang's limit (2s) and the build", res.WallTime)
	}
}
