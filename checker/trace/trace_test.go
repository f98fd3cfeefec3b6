package trace

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/internal/checkertest"
	"github.com/gmp-kata/gmp-kata/checker/program"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
	sched "github.com/gmp-kata/gmp-kata/solutions"
)

func TestMain(m *testing.M) { checkertest.Main(m) }

var (
	sharedChecker = checkertest.Checker
	lessonFile    = checkertest.LessonFile
	embedded      = checkertest.Embedded
)

// countEvents counts events by kind.
func countEvents(evs []sched.Event) map[sched.EventKind]int {
	n := map[sched.EventKind]int{}
	for _, ev := range evs {
		n[ev.Kind]++
	}
	return n
}

// referenceFiles copies every lesson's reference files into a directory,
// as a learner who has passed every lesson would have them.
func referenceFiles(t *testing.T, c *checker.Checker) map[string]string {
	t.Helper()
	files := map[string]string{}
	for _, l := range c.Registry().All() {
		for _, f := range l.Files {
			for k, v := range lessonFile(t, f, embedded(t, "solutions/"+f)) {
				files[k] = v
			}
		}
	}
	return files
}

// TestTraceReference: every scenario, run by Once with the reference's
// files as the learner's, runs as scenario.Run runs it in-process: the same
// Ps, the same Gs created, every one of them ending (or the same deadlock).
func TestTraceReference(t *testing.T) {
	c := sharedChecker(t)
	files := referenceFiles(t, c)
	for _, s := range scenario.All() {
		t.Run(s.Name, func(t *testing.T) {
			want, err := scenario.Run(s, 0, 1)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Once(context.Background(), c, files, s.Name, 0, 1, DefaultLimit)
			if err != nil {
				t.Fatalf("Once(%s) with the reference's files: %v", s.Name, err)
			}
			if got.Scenario != s.Name || got.Procs != s.Procs || got.Seed != 1 {
				t.Errorf("Once(%s) = a run of %s on %d Ps with seed %d, want %s on %d with seed 1", s.Name, got.Scenario, got.Procs, got.Seed, s.Name, s.Procs)
			}
			n, wantN := countEvents(got.Events), countEvents(want.Events)
			t.Logf("%d events, %d Gs created, %d steals", len(got.Events), n[sched.EvGoCreate], n[sched.EvSteal])
			if n[sched.EvGoCreate] == 0 || n[sched.EvGoCreate] != wantN[sched.EvGoCreate] {
				t.Errorf("%d Gs created, want %d as in-process", n[sched.EvGoCreate], wantN[sched.EvGoCreate])
			}
			for i := 1; i < len(got.Events); i++ {
				if got.Events[i].When < got.Events[i-1].When {
					t.Fatalf("event %d (%v) is before event %d (%v): want time order", i, got.Events[i], i-1, got.Events[i-1])
				}
			}
			if s.WantDeadlock {
				if !got.Deadlock || got.WaitErr != want.Err.Error() {
					t.Errorf("Wait returned %q (deadlock %v), want %q as in-process", got.WaitErr, got.Deadlock, want.Err)
				}
				return
			}
			if got.WaitErr != "" || got.Deadlock {
				t.Errorf("Wait returned %q, want nil", got.WaitErr)
			}
			if n[sched.EvGoEnd] != n[sched.EvGoCreate] {
				t.Errorf("%d Gs created and %d ended: want every G to end", n[sched.EvGoCreate], n[sched.EvGoEnd])
			}
		})
	}
	t.Run("no-files", func(t *testing.T) {
		// No learner's files at all: the reference alone, other Ps and seed.
		got, err := Once(context.Background(), c, nil, "imbalance", 2, 7, DefaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		n := countEvents(got.Events)
		if got.Procs != 2 || n[sched.EvGoCreate] != 201 || n[sched.EvGoEnd] != 201 {
			t.Errorf("Once(imbalance, 2 Ps) = %d Ps, %d Gs created, %d ended; want 2 Ps and 201 Gs, all ended", got.Procs, n[sched.EvGoCreate], n[sched.EvGoEnd])
		}
		for _, ev := range got.Events {
			if ev.P >= 2 {
				t.Fatalf("event %v on a P beyond 2 Ps", ev)
			}
		}
	})
}

// TestTraceSkeleton: the stub of lesson 01 panics as soon as a G spawns
// another; Once says so in the learner's terms.
func TestTraceSkeleton(t *testing.T) {
	c := sharedChecker(t)
	run, err := Once(context.Background(), c, lessonFile(t, "runq.go", embedded(t, "skeleton/runq.go")), "imbalance", 0, 1, DefaultLimit)
	var cf *program.CodeFailure
	if !errors.As(err, &cf) {
		t.Fatalf("Once with the skeleton's runq.go returned %v, want a *program.CodeFailure", err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"lesson 01-ringbuffer is not passing yet", "imbalance", "not implemented: runq", "runq.go", "kata check 01"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q", want)
		}
	}
	if strings.Contains(msg, "goroutine ") {
		t.Errorf("the error carries a raw traceback")
	}
	if run != nil && run.WaitErr == "" && !run.Crashed {
		t.Errorf("a run returned with the failure must say what Wait returned, or that it crashed")
	}
}

// lossyRunq is lesson 01's reference with a runqgethead that, now and
// then, moves the head past two Gs and returns one: the other is lost.
func lossyRunq(t *testing.T) map[string]string {
	t.Helper()
	const take = "\t\tgp := pp.runq[h%uint32(len(pp.runq))].Load()\n\t\tif pp.runqhead.CompareAndSwap(h, h+1) {"
	src := string(embedded(t, "solutions/runq.go"))
	if !strings.Contains(src, take) {
		t.Fatalf("solutions/runq.go no longer has %q: update the test", take)
	}
	src = strings.Replace(src, take, "\t\tgp := pp.runq[h%uint32(len(pp.runq))].Load()\n\t\tnext := h + 1\n\t\tif t-h >= 2 && h%16 == 15 {\n\t\t\tnext = h + 2\n\t\t}\n\t\tif pp.runqhead.CompareAndSwap(h, next) {", 1)
	return lessonFile(t, "runq.go", []byte(src))
}

// TestTraceKeepsACrashedRun: a runqget that loses a G crashes the program
// (checkdead finds the G runnable with no M running); the events written
// before are returned with the failure, and they show the G lost.
func TestTraceKeepsACrashedRun(t *testing.T) {
	c := sharedChecker(t)
	run, err := Once(context.Background(), c, lossyRunq(t), "imbalance", 0, 1, DefaultLimit)
	var cf *program.CodeFailure
	if !errors.As(err, &cf) {
		t.Fatalf("Once with a runqget that loses Gs returned %v, want a *program.CodeFailure", err)
	}
	t.Log(err)
	if run == nil || !run.Crashed || len(run.Events) == 0 {
		t.Fatalf("Once returned %+v with the failure, want the crashed run's events", run)
	}
	s, _ := scenario.Lookup("imbalance")
	v := scenario.Judge(&scenario.Result{Scenario: s, Procs: run.Procs, Events: run.Events}, true)
	if !v.Broken() {
		t.Errorf("the verdict on the crashed run = %+v, want it broken", v)
	}
	// checkdead's panic names a G it found runnable with no M to run it,
	// one the run created and never ran to its end.
	created, ended := false, false
	for _, ev := range run.Events {
		created = created || (ev.Kind == sched.EvGoCreate && ev.G == run.Stranded)
		ended = ended || (ev.Kind == sched.EvGoEnd && ev.G == run.Stranded)
	}
	if run.Stranded == 0 || !created || ended {
		t.Errorf("Stranded = G%d (created %v, ended %v), want the lost G checkdead names", run.Stranded, created, ended)
	}
}

// TestTraceProgramRunsAgain: one build, several runs, each with its own
// seed and every G ending.
func TestTraceProgramRunsAgain(t *testing.T) {
	c := sharedChecker(t)
	prog, err := Build(context.Background(), c, nil, "imbalance", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer prog.Close()
	for seed := uint64(1); seed <= 3; seed++ {
		run, err := prog.Run(context.Background(), seed, DefaultLimit)
		if err != nil {
			t.Fatal(err)
		}
		n := countEvents(run.Events)
		if run.Seed != seed || run.Crashed || n[sched.EvGoCreate] != 201 || n[sched.EvGoEnd] != 201 {
			t.Errorf("run %d: seed %d, crashed %v, %d Gs created, %d ended; want 201 of each", seed, run.Seed, run.Crashed, n[sched.EvGoCreate], n[sched.EvGoEnd])
		}
	}
}

// TestTraceCompileError: a lesson file that does not compile.
func TestTraceCompileError(t *testing.T) {
	c := sharedChecker(t)
	src := strings.Replace(string(embedded(t, "solutions/park.go")), "func goready(", "func goready(oops ", 1)
	files := lessonFile(t, "park.go", []byte(src))
	_, err := Once(context.Background(), c, files, "pingpong", 0, 1, DefaultLimit)
	var cf *program.CodeFailure
	if !errors.As(err, &cf) || cf.Problem != "your code does not compile" || len(cf.Details) == 0 || cf.Lesson != "06-gopark" {
		t.Fatalf("Once with a park.go that does not compile returned %v, want a *program.CodeFailure of 06-gopark with the compiler's errors", err)
	}
	if !strings.HasPrefix(cf.Details[0], files["park.go"]+":") {
		t.Errorf("the first compile error %q does not name the learner's file", cf.Details[0])
	}
}

// TestTraceInfiniteLoop: a runqputtail that never returns is killed at the
// time limit.
func TestTraceInfiniteLoop(t *testing.T) {
	c := sharedChecker(t)
	const fn = "func runqputtail(pp *p, gp *g) {\n"
	src := strings.Replace(string(embedded(t, "solutions/runq.go")), fn, fn+"\tfor pp != nil {\n\t}\n", 1)
	start := time.Now()
	_, err := Once(context.Background(), c, lessonFile(t, "runq.go", []byte(src)), "imbalance", 0, 1, 2*time.Second)
	var cf *program.CodeFailure
	if !errors.As(err, &cf) || !strings.Contains(cf.Problem, "did not finish within 2s") {
		t.Fatalf("Once with a runqputtail that loops forever returned %v, want a *program.CodeFailure saying it did not finish within 2s", err)
	}
	t.Logf("after %s: %v", time.Since(start).Round(time.Millisecond), err)
}

func TestTraceBadArguments(t *testing.T) {
	c := sharedChecker(t)
	for _, tc := range []struct {
		files    map[string]string
		scenario string
		procs    int
		want     string
	}{
		{nil, "nosuch", 0, `no scenario "nosuch"`},
		{nil, "imbalance", 65, "65 Ps"},
		{map[string]string{"proc.go": "proc.go"}, "imbalance", 0, "no lesson owns proc.go"},
	} {
		_, err := Once(context.Background(), c, tc.files, tc.scenario, tc.procs, 1, DefaultLimit)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Once(%v, %q, %d) = %v, want an error saying %q", tc.files, tc.scenario, tc.procs, err, tc.want)
		}
	}
}
