package bench

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/internal/checkertest"
	"github.com/gmp-kata/gmp-kata/checker/program"
	"github.com/gmp-kata/gmp-kata/internal/longtest"
	"github.com/gmp-kata/gmp-kata/lessons"
)

func TestMain(m *testing.M) { checkertest.Main(m) }

var (
	sharedChecker = checkertest.Checker
	lessonFile    = checkertest.LessonFile
	embedded      = checkertest.Embedded
	lesson        = checkertest.Lesson
)

// benchOpts keeps the tests' benchmark runs short: 4 runs a side is the
// fewest that can tell a difference from noise.
var benchOpts = Options{Count: 4, Benchtime: 20 * time.Millisecond, Timeout: 60 * time.Second}

// TestBenchReferenceAgainstItself: the reference's runq.go as the
// learner's file. Every ratio in the table is what its samples say.
func TestBenchReferenceAgainstItself(t *testing.T) {
	c := sharedChecker(t)
	l := lesson(t, "01")
	res, err := Run(context.Background(), c, l, lessonFile(t, "runq.go", embedded(t, "solutions/runq.go")), benchOpts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 3 || res.Count != benchOpts.Count || res.GOMAXPROCS < 1 {
		t.Fatalf("Run(01) = %d rows of %d runs at GOMAXPROCS %d, want 3 rows of %d runs", len(res.Rows), res.Count, res.GOMAXPROCS, benchOpts.Count)
	}
	for _, r := range res.Rows {
		t.Log(r.Reading)
		for _, side := range []*Side{&r.Yours, &r.Reference, r.Native} {
			if side == nil {
				continue
			}
			if len(side.Samples) != benchOpts.Count {
				t.Fatalf("%s: %d samples, want %d", r.Name, len(side.Samples), benchOpts.Count)
			}
			lo, hi := side.Samples[0], side.Samples[0]
			for _, v := range side.Samples {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			// The median of 4 is the mean of the middle two: between the
			// extremes, and the sum of all less the extremes, halved.
			sum := 0.0
			for _, v := range side.Samples {
				sum += v
			}
			if want := (sum - lo - hi) / 2; !near(side.Median, want) {
				t.Errorf("%s: median %v of samples %v, want %v", r.Name, side.Median, side.Samples, want)
			}
			if want := math.Max(hi-side.Median, side.Median-lo) / side.Median; !near(side.Spread, want) {
				t.Errorf("%s: spread %v of samples %v, want %v", r.Name, side.Spread, side.Samples, want)
			}
		}
		if want := r.Yours.Median / r.Reference.Median; !near(r.YoursVsReference, want) {
			t.Errorf("%s: yours/reference = %v, want %v from the medians", r.Name, r.YoursVsReference, want)
		}
		// The same code on both sides: far from a real difference.
		if r.YoursVsReference < 0.25 || r.YoursVsReference > 4 {
			t.Errorf("%s: the reference against itself measured %.2f×: the two sides are not measured alike", r.Name, r.YoursVsReference)
		}
		if r.P <= 0 || r.P > 1 {
			t.Errorf("%s: p-value %v, want in (0, 1]", r.Name, r.P)
		}
	}
	put := res.Rows[0]
	if put.Name != "BenchmarkL01PutGet" || put.Short != "PutGet" || put.About == "" || put.Native == nil {
		t.Fatalf("first row %+v: want BenchmarkL01PutGet with what it measures and a native side", put)
	}
	if want := put.Reference.Median / put.Native.Median; !near(put.ReferenceVsNative, want) {
		t.Errorf("PutGet: reference/native = %v, want %v from the medians", put.ReferenceVsNative, want)
	}
	if res.Rows[1].Native != nil {
		t.Errorf("Steal has a native side: Go has no runqsteal a program can call")
	}
}

// TestBenchSlowPut: the reference's runq.go with busy work added to
// runqputtail is correct but slow, and the table says so.
func TestBenchSlowPut(t *testing.T) {
	c := sharedChecker(t)
	src := string(embedded(t, "solutions/runq.go"))
	const fn = "func runqputtail(pp *p, gp *g) {\n"
	if !strings.Contains(src, fn) {
		t.Fatalf("solutions/runq.go has no %q", fn)
	}
	slow := strings.Replace(src, fn, fn+"\tfor i := range 2000 {\n\t\tbusySink.Add(uint64(i))\n\t}\n", 1)
	slow = strings.Replace(slow, "package sched\n", "package sched\n\nimport \"sync/atomic\"\n\nvar busySink atomic.Uint64\n", 1)
	res, err := Run(context.Background(), c, lesson(t, "01"), lessonFile(t, "runq.go", []byte(slow)), benchOpts)
	if err != nil {
		t.Fatal(err)
	}
	put := res.Rows[0]
	t.Log(put.Reading)
	if put.Name != "BenchmarkL01PutGet" || put.YoursVsReference <= 1 {
		t.Fatalf("%s: yours/reference = %.2f with 2000 atomic adds in runqputtail, want > 1", put.Name, put.YoursVsReference)
	}
	// Every one of yours is slower than every one of the reference's: the
	// test is as sure as 4 runs a side can make it.
	if !put.Significant || !strings.Contains(put.Reading, "(slower)") {
		t.Errorf("PutGet: p = %v, reading %q: want a significant slow-down", put.P, put.Reading)
	}
}

// TestBenchSkeleton: the pristine stub panics, and Run says the lesson
// is not passing yet, naming the stub.
func TestBenchSkeleton(t *testing.T) {
	c := sharedChecker(t)
	_, err := Run(context.Background(), c, lesson(t, "01"), lessonFile(t, "runq.go", embedded(t, "skeleton/runq.go")), benchOpts)
	var cf *program.CodeFailure
	if !errors.As(err, &cf) {
		t.Fatalf("Run(01) with the skeleton's runq.go returned %v, want a *program.CodeFailure", err)
	}
	msg := err.Error()
	t.Log(msg)
	for _, want := range []string{"lesson 01-ringbuffer is not passing yet", "panicked", "not implemented: runq", "runq.go", "run 'kata check 01' first"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the error does not say %q", want)
		}
	}
}

// TestBenchCompileError: a file that does not compile is reported with
// the compiler's message, naming the learner's file.
func TestBenchCompileError(t *testing.T) {
	c := sharedChecker(t)
	src := strings.Replace(string(embedded(t, "solutions/runq.go")), "func runqlen(", "func runqlen(oops ", 1)
	files := lessonFile(t, "runq.go", []byte(src))
	_, err := Run(context.Background(), c, lesson(t, "01"), files, benchOpts)
	var cf *program.CodeFailure
	if !errors.As(err, &cf) || cf.Problem != "your code does not compile" || len(cf.Details) == 0 {
		t.Fatalf("Run(01) with a runq.go that does not compile returned %v, want a *program.CodeFailure with the compiler's errors", err)
	}
	if !strings.HasPrefix(cf.Details[0], files["runq.go"]+":") {
		t.Errorf("the first compile error %q does not name the learner's file %s", cf.Details[0], files["runq.go"])
	}
}

// TestBenchInfiniteLoop: a runqsteal that never returns is killed at the
// time limit, and the report names the benchmark it hung in.
func TestBenchInfiniteLoop(t *testing.T) {
	c := sharedChecker(t)
	const fn = "func runqsteal(pp, p2 *p, stealRunNextG bool) *g {\n"
	src := strings.Replace(string(embedded(t, "solutions/runq.go")), fn, fn+"\tfor pp != nil {\n\t}\n", 1)
	opts := benchOpts
	opts.Timeout = 3 * time.Second
	start := time.Now()
	_, err := Run(context.Background(), c, lesson(t, "01"), lessonFile(t, "runq.go", []byte(src)), opts)
	var cf *program.CodeFailure
	if !errors.As(err, &cf) {
		t.Fatalf("Run(01) with a runqsteal that loops forever returned %v, want a *program.CodeFailure", err)
	}
	t.Logf("after %s: %v", time.Since(start).Round(time.Millisecond), err)
	for _, want := range []string{"did not finish within 3s", "in BenchmarkL01Steal"} {
		if !strings.Contains(cf.Problem, want) {
			t.Errorf("the problem %q does not say %q", cf.Problem, want)
		}
	}
}

// TestBenchEveryLesson: every lesson's benchmarks build and pass on the
// reference, each with a /sched side and what it measures; and (with
// KATA_LONG=1, package longtest) Run fails plainly on the lesson's
// skeleton.
func TestBenchEveryLesson(t *testing.T) {
	c := sharedChecker(t)
	opts := Options{Count: 1, Benchtime: 10 * time.Millisecond, Timeout: 60 * time.Second}
	for _, l := range lessons.Default.All() {
		t.Run(l.ID, func(t *testing.T) {
			benches, err := lessonBenchmarks(l)
			if err != nil {
				t.Fatal(err)
			}
			// The reference alone: one binary, one run.
			tmp := t.TempDir()
			added, err := writeFS(l.Bench, "*_test.go", tmp)
			if err != nil {
				t.Fatal(err)
			}
			bin := filepath.Join(tmp, "reference.test")
			if out, err := buildBench(context.Background(), c.ModuleDirs(), tmp, "reference", nil, added, bin); err != nil {
				t.Fatalf("the benchmarks do not build with the reference: %v\n%s", err, out)
			}
			res, _, err := runBench(context.Background(), c, l, benches, bin, "^BenchmarkL"+l.ID[:2], opts, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			for _, bm := range benches {
				ns, ok := res[bm.name+"/sched"]
				t.Logf("%-22s %8.1f ns/op  native %8.1f ns/op  %s", bm.name, ns, res[bm.name+"/native"], bm.about)
				if !ok || ns <= 0 || bm.about == "" {
					t.Errorf("%s: /sched reported %v (%v), about %q: want a time and what one op is", bm.name, ns, ok, bm.about)
				}
			}
			if !longtest.Enabled() {
				t.Logf("the skeleton's run of the benchmarks is a long test (TestBenchSkeleton makes lesson 01's in every run): %s=1 makes it here", longtest.Var)
				return
			}
			skel := map[string]string{}
			for _, f := range l.Files {
				skel[f] = lessonFile(t, f, embedded(t, "skeleton/"+f))[f]
			}
			_, err = Run(context.Background(), c, l, skel, opts)
			var cf *program.CodeFailure
			if !errors.As(err, &cf) || !strings.Contains(err.Error(), "not implemented") {
				t.Errorf("the skeleton's %v: %v, want a *program.CodeFailure naming the stub", l.Files, err)
			} else {
				t.Logf("skeleton: %v", err)
			}
		})
	}
}

// TestBenchFailureAfterName: a benchmark that crashes once it has printed
// its name (the testing package prints it, then runs, then the result)
// leaves the panic on the name's line. It is still read as a panic, with
// the stub's name and the learner's file, not as an unexplained failure.
// (This output is from a real run of lesson 04's benchmarks on the
// skeleton; which way the lines fall depends on timing.)
func TestBenchFailureAfterName(t *testing.T) {
	c := sharedChecker(t)
	dir := c.ModuleDirs().Package
	out := "goos: linux\ngoarch: amd64\npkg: gmpkata.grade/solutions\ncpu: AMD EPYC\n" +
		"BenchmarkL04Steal/sched-2         \tpanic: not implemented: reset\n\n" +
		"goroutine 6 [running]:\n" +
		"gmpkata.grade/solutions.(*randomOrder).reset(...)\n\t" + dir + "/findrunnable.go:72\n" +
		"gmpkata.grade/solutions.procresize(0x3a88c4f9c248, 0x8)\n\t" + dir + "/procresize.go:111 +0x707\n" +
		"gmpkata.grade/solutions.kitSched(0x8, {0x8, 0x0})\n\t" + dir + "/zz_kit_kit_test.go:25 +0x285\n" +
		"gmpkata.grade/solutions.BenchmarkL04Steal.func1(0x3a88c4fea608)\n\t" + dir + "/zz_bench_findrunnable_bench_test.go:20 +0x53\n" +
		"testing.(*B).runN(0x3a88c4fea608, 0x1)\n\t/usr/local/go/src/testing/benchmark.go:219 +0x190\n" +
		"created by testing.(*B).run1 in goroutine 5\n\t/usr/local/go/src/testing/benchmark.go:238 +0x90"
	learner := filepath.Join(t.TempDir(), "findrunnable.go")
	problem, details := benchFailure(c, strings.Split(out, "\n"), map[string]string{"findrunnable.go": learner}, "your code")
	if problem != "your code panicked in BenchmarkL04Steal" {
		t.Errorf("problem = %q, want %q", problem, "your code panicked in BenchmarkL04Steal")
	}
	if len(details) == 0 || details[0] != "panic: not implemented: reset" || !strings.Contains(strings.Join(details, "\n"), "findrunnable.go:72") {
		t.Errorf("details:\n%s\nwant the panic's message first, then the learner's findrunnable.go:72", strings.Join(details, "\n"))
	}
}

func TestMannWhitney(t *testing.T) {
	for _, tc := range []struct {
		xs, ys []float64
		want   float64
	}{
		// Completely separated, 4 a side: 2 of the C(8,4) = 70 orderings
		// are as extreme.
		{[]float64{5, 6, 7, 8}, []float64{1, 2, 3, 4}, 2.0 / 70},
		{[]float64{1, 2, 3, 4}, []float64{5, 6, 7, 8}, 2.0 / 70},
		// 5 a side: 2 / C(10,5) = 2/252.
		{[]float64{6, 7, 8, 9, 10}, []float64{1, 2, 3, 4, 5}, 2.0 / 252},
		// Perfectly interleaved: nothing to see.
		{[]float64{1, 3, 5, 7}, []float64{2, 4, 6, 8}, 1},
		// 3 a side can never get below 2/20.
		{[]float64{4, 5, 6}, []float64{1, 2, 3}, 0.1},
	} {
		if got := mannWhitneyP(tc.xs, tc.ys); !near(got, tc.want) && !(tc.want == 1 && got > 0.5) {
			t.Errorf("mannWhitneyP(%v, %v) = %v, want %v", tc.xs, tc.ys, got, tc.want)
		}
	}
	if got := minP(4); !near(got, 2.0/70) {
		t.Errorf("minP(4) = %v, want 2/70", got)
	}
}

func near(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b))
}
