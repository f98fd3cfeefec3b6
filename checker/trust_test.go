package checker

import (
	"context"
	"maps"
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
	res := gradeSched(t, c, l, src)
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

// TestHarnessFeed: what kata takes from the harness's channel. A test
// starts once in a run (a second start does not restart its clock); an
// end counts only for the test running; a line without the nonce, or
// after the report, taints the feed, and a tainted feed's report is not
// honest; a last line the run did not end is left out.
func TestHarnessFeed(t *testing.T) {
	line := func(s string) []byte { return []byte(s + "\n") }
	f := newHarnessFeed(forgedNonce)
	f.write(line(`{"nonce":"` + forgedNonce + `","start":"TestA"}`))
	first := f.current()
	if first.running != "TestA" || first.last != "TestA" || first.tainted {
		t.Fatalf("after TestA's start: %+v", first)
	}
	time.Sleep(10 * time.Millisecond)
	f.write(line(`{"nonce":"` + forgedNonce + `","end":"TestB","verdict":"pass"}`))
	f.write(line(`{"nonce":"` + forgedNonce + `","start":"TestB"}`))
	f.write(line(`{"nonce":"` + forgedNonce + `","start":"TestA"}`)) // TestA again: ignored
	if st := f.current(); st.running != "TestB" {
		t.Errorf("after TestB's start: %+v, want TestB running", st)
	}
	f.write(line(`{"nonce":"` + forgedNonce + `","end":"TestB","verdict":"fail"}`))
	f.write(line(`{"nonce":"` + forgedNonce + `","start":"TestA"}`))
	if st := f.current(); st.running != "" || st.last != "TestB" || !st.since.After(first.since) {
		t.Errorf("after TestB's end and TestA's second start: %+v, want no test running, TestB last", st)
	}
	if got := f.endings(); len(got) != 1 || got["TestB"] != "fail" {
		t.Errorf("endings %v, want TestB's fail only (TestB had not started when its first end came)", got)
	}
	f.write(line(`{"nonce":"` + forgedNonce + `","honest":true,"verdicts":{"TestA":"pass","TestB":"fail"}}`))
	f.write([]byte(`{"nonce":"` + forgedNonce + `","hon`)) // killed as it wrote
	if rep := f.report(); rep == nil || !rep.Honest || rep.Verdicts["TestA"] != "pass" || rep.exitCode() != 1 {
		t.Errorf("report %+v, want an honest one with TestA passing, exiting 1", rep)
	}

	for name, lines := range map[string][]string{
		"no nonce":            {`{"start":"TestA"}`},
		"another nonce":       {`{"nonce":"ffffffffffffffffffffffffffffffff","start":"TestA"}`},
		"not JSON":            {`PASS`},
		"after the report":    {`{"nonce":"` + forgedNonce + `","verdicts":{}}`, `{"nonce":"` + forgedNonce + `","start":"TestA"}`},
		"two reports":         {`{"nonce":"` + forgedNonce + `","verdicts":{}}`, `{"nonce":"` + forgedNonce + `","verdicts":{"TestA":"pass"}}`},
		"nothing said":        {`{"nonce":"` + forgedNonce + `"}`},
		"more than maxReport": {strings.Repeat(" ", maxReport)},
	} {
		f := newHarnessFeed(forgedNonce)
		for _, l := range lines {
			f.write(line(l))
		}
		if st := f.current(); !st.tainted {
			t.Errorf("%s: %+v, want the feed tainted", name, st)
		}
		if rep := f.report(); rep == nil || rep.Honest {
			t.Errorf("%s: report %+v, want one that is not honest", name, rep)
		}
	}
}

// TestRaceEnv: whatever GORACE kata was given, the race detector reports
// on standard error and exits with raceExitCode after a race.
func TestRaceEnv(t *testing.T) {
	for _, c := range []struct{ in, want []string }{
		{[]string{"PATH=/bin"}, []string{"PATH=/bin", "GORACE=log_path=stderr exitcode=66 atexit_sleep_ms=50"}},
		{[]string{"GORACE=log_path=/tmp/r exitcode=0 history_size=3", "HOME=/tmp"},
			[]string{"GORACE=log_path=/tmp/r exitcode=0 history_size=3 log_path=stderr exitcode=66 atexit_sleep_ms=50", "HOME=/tmp"}},
	} {
		if got := raceEnv(c.in); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("raceEnv(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestLessonBudget: a lesson's grading, all its runs together, stops at
// its budget (lessonBudget), here made 8 s: the test running then is
// stopped, and no run starts after it.
func TestLessonBudget(t *testing.T) {
	limits := map[string]time.Duration{"TestPanic": 50 * time.Second, "TestPass": time.Minute, "TestFail": time.Minute}
	saved := budgetSlack
	budgetSlack = 8*time.Second - buildAllowance - (50*time.Second + 2*time.Minute)
	t.Cleanup(func() { budgetSlack = saved })
	res := gradeMini(t, "package sched\n\nfunc crash() { select {} }\n", false, 0, limits)
	wantTests(t, res, map[string][2]string{
		"TestPanic": {StatusFail, "stopped: the lesson's time budget (8s: "},
		"TestPass":  {StatusFail, notRunPrefix + "the lesson's time budget (8s: "},
		"TestFail":  {StatusFail, notRunPrefix + "the lesson's time budget (8s: "},
	})
	if res.WallTime > 18 {
		t.Errorf("graded in %.0fs, want the budget's 8s", res.WallTime)
	}
}

// TestBinaryTimeoutIsAHang: a test the test binary's own -test.timeout
// ended (here, the testing package's message, then the panic it makes)
// counts as a hang, like one kata stopped: after it, MaxTimeouts starts
// no test that has not started. (It used to end as a crash, which
// MaxTimeouts did not count.)
func TestBinaryTimeoutIsAHang(t *testing.T) {
	res := gradeMini(t, `package sched

import "fmt"

func crash() {
	fmt.Println("panic: test timed out after 1m30s")
	go func() { panic("test timed out after 1m30s") }()
	select {}
}
`, false, 1, map[string]time.Duration{"TestPanic": 10 * time.Second, "TestPass": time.Minute, "TestFail": time.Minute})
	wantTests(t, res, map[string][2]string{
		"TestPanic": {StatusFail, "did not finish within 10s"},
		"TestPass":  {StatusFail, notRunPrefix + "an earlier test of this lesson was stopped"},
		"TestFail":  {StatusFail, notRunPrefix + "an earlier test of this lesson was stopped"},
	})
}

// TestDeadlineEndsTheBudget: a check given a deadline (kata grade --runs
// gives every run of a lesson the one deadline) ends the lesson's budget
// there, not a budget after its own start: past it, no test runs and each
// fails saying the budget ran out. Before, each of --runs N checks had a
// budget of its own, N budgets for the lesson.
func TestDeadlineEndsTheBudget(t *testing.T) {
	c := sharedChecker(t)
	l := lesson(t, "01")
	if b := c.Budget(l); b < time.Minute {
		t.Fatalf("lesson 01's budget is %s, want its tests' limits and a minute at least", b)
	}
	files := lessonFile(t, "runq.go", []byte(runqSource(t)))
	res := c.LessonWith(context.Background(), l, files, CheckOptions{Deadline: time.Now().Add(-time.Second)})
	if len(res.Tests) != len(l.Tests) {
		t.Fatalf("%d results for %d tests (%s)", len(res.Tests), len(l.Tests), res.Error)
	}
	for _, tr := range res.Tests {
		if tr.Status == StatusPass || !strings.Contains(tr.Message, "time budget") {
			t.Errorf("%s: %s %q, want a failure that says the lesson's time budget ran out", tr.Name, tr.Status, tr.Message)
		}
	}
}

// TestSettleTakesTheEndsVerdict: a pass in the harness's report counts
// only if the harness said so when the test ended. The report is written
// after m.Run from the harness's memory, where a file that reaches memory
// unsafely (the red team's sudogs) rewrote earlier failures to passes.
func TestSettleTakesTheEndsVerdict(t *testing.T) {
	rr := &runResult{
		s:       &stream{tests: map[string]*outcome{}},
		harness: &harnessReport{Honest: true, Verdicts: map[string]string{"TestA": "pass", "TestB": "pass", "TestC": "pass", "TestD": "fail"}},
		ended:   map[string]string{"TestA": "pass", "TestB": "fail", "TestD": "fail"},
	}
	got := map[string]string{}
	(&Checker{}).settle(rr, []string{"TestA", "TestB", "TestC", "TestD"}, nil, func(name, status, msg string, _ float64) {
		got[name] = status + ": " + msg
	})
	want := map[string]string{
		"TestA": StatusPass + ": ",
		"TestB": StatusFail + ": " + verdictRewritten, // it failed, then its verdict was rewritten
		"TestC": StatusFail + ": " + verdictRewritten, // its end was never sent
		"TestD": StatusFail + ": failed",
	}
	if !maps.Equal(got, want) {
		t.Errorf("settled %v\nwant %v", got, want)
	}
}

// TestOutputLimitIsPerLesson: the output limit (8 MiB) bounds a lesson's
// runs together. Code that prints 3 MiB and crashes in every test used to
// be run again after each crash, each run with a limit of its own, and
// kata read 3 MiB per test of the lesson (a red team's, 127 tests over
// eight lessons: 162 s of kata's own CPU for one submission). Now the
// third run is stopped where the lesson's 8 MiB end, and the tests left
// fail without running.
func TestOutputLimitIsPerLesson(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lesson 01 with a file that floods")
	}
	c := withoutVet(sharedChecker(t))
	l := lesson(t, "01")
	src := strings.Replace(runqSource(t), `import "sync/atomic"`, "import (\n\t\"fmt\"\n\t\"strings\"\n\t\"sync/atomic\"\n)", 1)
	src = strings.Replace(src, "func runqputtail(pp *p, gp *g) {", `var flooded bool

func runqputtail(pp *p, gp *g) {
	if !flooded {
		flooded = true
		line := strings.Repeat("x", 63) + "\n"
		for range 3 << 20 / 64 {
			fmt.Print(line)
		}
		go func() { panic("flooded") }()
		select {}
	}`, 1)
	res := c.Lesson(context.Background(), l, lessonFile(t, "runq.go", []byte(src)))
	crashed, stopped, notRun := 0, 0, 0
	for _, tr := range res.Tests {
		switch {
		case strings.HasPrefix(tr.Message, "crashed: "):
			crashed++
		case strings.HasPrefix(tr.Message, "printed more than the 8 MiB a lesson's runs may print together"):
			stopped++
		case tr.Message == notRunPrefix+"the lesson's runs printed 8 MiB, all a lesson's runs may print together":
			notRun++
		case tr.Status == StatusPass:
			t.Errorf("%s passed", tr.Name)
		}
	}
	if crashed > 2 || stopped != 1 || notRun == 0 || crashed+stopped+notRun != len(res.Tests) {
		for _, tr := range res.Tests {
			t.Logf("%s %s: %.200s", tr.Status, tr.Name, tr.Message)
		}
		t.Errorf("%d crashed, %d stopped for their output, %d not run, of %d tests; want at most 2 crashed (3 MiB each), the next stopped where the lesson's 8 MiB end, and the rest not run",
			crashed, stopped, notRun, len(res.Tests))
	}
}
