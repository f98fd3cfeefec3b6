package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/program"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// Options configure Run.
type Options struct {
	// Count is how many times each binary runs the benchmarks; 0: 5. At
	// least 4 are needed to tell a difference from noise.
	Count int
	// Benchtime is each benchmark's -test.benchtime; 0: 100ms.
	Benchtime time.Duration
	// Timeout bounds one run of one binary; past it the run is killed and
	// the learner's code reported stuck. 0: 60s.
	Timeout time.Duration
	// Progress, if set, is told what is happening ("building", "run 2 of
	// 5"), for a person waiting at a terminal.
	Progress func(msg string)
}

// Defaults of Options.
const (
	DefaultCount     = 5
	DefaultBenchtime = 100 * time.Millisecond
	defaultTimeout   = 60 * time.Second
	// alpha is the p-value under which a difference counts as real.
	alpha = 0.05
	// sameWithin is the relative difference under which a real difference
	// is still reported as "the same".
	sameWithin = 0.03
)

// A Side is one side of a benchmark (yours, the reference's or
// native Go) over all runs.
type Side struct {
	Samples []float64 `json:"samples_ns_per_op"` // one per run, in run order
	Median  float64   `json:"median_ns_per_op"`
	// Spread is how far the slowest or fastest run lies from the median,
	// as a fraction of it (0.05: ±5%).
	Spread float64 `json:"spread"`
}

// A Row is one benchmark of the table.
type Row struct {
	Name  string `json:"name"`  // the benchmark function, e.g. "BenchmarkL01Steal"
	Short string `json:"short"` // its name without Benchmark and the lesson, e.g. "Steal"
	About string `json:"about"` // what one op is, from its doc comment

	Yours     Side  `json:"yours"`
	Reference Side  `json:"reference"`
	Native    *Side `json:"native,omitempty"` // nil: no native counterpart

	// YoursVsReference is Yours.Median / Reference.Median: above 1, yours
	// is slower. ReferenceVsNative is Reference.Median / Native.Median, 0
	// without a native side.
	YoursVsReference  float64 `json:"yours_vs_reference"`
	ReferenceVsNative float64 `json:"reference_vs_native,omitempty"`

	// P is the two-sided p-value of the Mann-Whitney U test of yours
	// against the reference; Significant says P < 0.05.
	P           float64 `json:"p_value"`
	Significant bool    `json:"significant"`
	// Reading is the row in one line of words.
	Reading string `json:"reading"`
}

// A Result is kata bench's table for one lesson.
type Result struct {
	ID         string  `json:"id"`
	Title      string  `json:"title"`
	Count      int     `json:"count"`
	Benchtime  float64 `json:"benchtime_seconds"`
	GOMAXPROCS int     `json:"gomaxprocs"`
	Rows       []Row   `json:"benchmarks"`
	WallTime   float64 `json:"wall_seconds"`
}

// Run runs lesson l's benchmarks in c's grading module with files (base
// name in solutions/ → path of the learner's file, covering l.Files) and
// with the reference alone, and returns the table. If the learner's code
// fails, the error is a *program.CodeFailure.
func Run(ctx context.Context, c *checker.Checker, l *lessons.Lesson, files map[string]string, opts Options) (*Result, error) {
	start := time.Now()
	opts = opts.withDefaults()
	replace, err := benchFiles(l, files)
	if err != nil {
		return nil, err
	}
	benches, err := lessonBenchmarks(l)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "kata-bench-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	yoursBin, refBin, err := buildBoth(ctx, c, l, tmp, replace, opts.Progress)
	if err != nil {
		return nil, err
	}
	samples, procs, err := sampleBoth(ctx, c, l, benches, yoursBin, refBin, replace, opts)
	if err != nil {
		return nil, err
	}
	result := &Result{ID: l.ID, Title: l.Title, Count: opts.Count, Benchtime: opts.Benchtime.Seconds(), GOMAXPROCS: procs}
	for _, bm := range benches {
		row, err := benchRow(l, bm, samples, opts.Count)
		if err != nil {
			return nil, err
		}
		result.Rows = append(result.Rows, row)
	}
	result.WallTime = time.Since(start).Seconds()
	return result, nil
}

// withDefaults is o with its zero fields set to their defaults.
func (o Options) withDefaults() Options {
	if o.Count <= 0 {
		o.Count = DefaultCount
	}
	if o.Benchtime <= 0 {
		o.Benchtime = DefaultBenchtime
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultTimeout
	}
	if o.Progress == nil {
		o.Progress = func(string) {}
	}
	return o
}

// benchFiles are the learner's files of lesson l, by base name, that
// replace the reference's.
func benchFiles(l *lessons.Lesson, files map[string]string) (map[string]string, error) {
	replace := map[string]string{}
	for _, f := range l.Files {
		p, ok := files[f]
		if !ok {
			return nil, fmt.Errorf("bench: no %s to benchmark for lesson %s", f, l.ID)
		}
		if _, err := os.Stat(p); err != nil {
			return nil, &program.CodeFailure{Lesson: l.ID, Problem: fmt.Sprintf("your %s is missing (run 'kata reset %s' to start it again)", f, l.ID[:2])}
		}
		replace[f] = p
	}
	return replace, nil
}

// buildBoth builds the benchmark binaries of lesson l in tmp, with the
// learner's files (replace) and with the reference's, both at once: the
// go command shares its cache.
func buildBoth(ctx context.Context, c *checker.Checker, l *lessons.Lesson, tmp string, replace map[string]string, progress func(string)) (yoursBin, refBin string, err error) {
	added, err := writeFS(l.Bench, "*_test.go", filepath.Join(tmp, "bench"))
	if err != nil {
		return "", "", fmt.Errorf("bench: benchmarks of %s: %w", l.ID, err)
	}
	progress("building your code and the reference's with the benchmarks of " + l.ID)
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	yoursBin, refBin = filepath.Join(tmp, "yours.test"+exe), filepath.Join(tmp, "reference.test"+exe)
	var yoursOut, refOut []byte
	var yoursErr, refErr error
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		yoursOut, yoursErr = buildBench(ctx, c.ModuleDirs(), tmp, "yours", replace, added, yoursBin)
	}()
	go func() {
		defer wg.Done()
		refOut, refErr = buildBench(ctx, c.ModuleDirs(), tmp, "reference", nil, added, refBin)
	}()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return "", "", fmt.Errorf("bench: %w", err)
	}
	for _, err := range []error{yoursErr, refErr} {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", "", fmt.Errorf("bench: building the benchmarks of %s: %w", l.ID, err)
		}
	}
	if refErr != nil {
		return "", "", fmt.Errorf("bench: the reference does not build with the benchmarks of %s (a bug in the course): %v\n%s", l.ID, refErr, refOut)
	}
	if yoursErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(yoursErr, &exitErr) {
			return "", "", fmt.Errorf("bench: go test -c: %w (is Go installed and on PATH?)", yoursErr)
		}
		return "", "", program.CompileFailure(c, l.ID, yoursOut, replace)
	}
	return yoursBin, refBin, nil
}

// sampleBoth runs the two binaries opts.Count times, alternately, each
// starting half of the time, and returns each side's ns/op samples by
// sub-benchmark (side "yours" or "reference"), and GOMAXPROCS.
func sampleBoth(ctx context.Context, c *checker.Checker, l *lessons.Lesson, benches []benchFunc, yoursBin, refBin string, replace map[string]string, opts Options) (map[string]map[string][]float64, int, error) {
	prefix := "^BenchmarkL" + l.ID[:2]
	samples := map[string]map[string][]float64{"yours": {}, "reference": {}}
	procs := 0
	for i := range opts.Count {
		opts.Progress(fmt.Sprintf("run %d of %d", i+1, opts.Count))
		order := []string{"yours", "reference"}
		if i%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		for _, side := range order {
			// Both binaries run every benchmark, native ones included, so
			// that both processes do the same work in the same order; the
			// native side is read from the reference's.
			bin := refBin
			if side == "yours" {
				bin = yoursBin
			}
			res, n, err := runBench(ctx, c, l, benches, bin, prefix, opts, replace, side == "yours")
			if err != nil {
				return nil, 0, err
			}
			procs = n
			for name, v := range res {
				samples[side][name] = append(samples[side][name], v)
			}
		}
	}
	return samples, procs, nil
}

// benchRow is the table's row of benchmark bm: the two sides' samples
// compared, and the native one's, if any.
func benchRow(l *lessons.Lesson, bm benchFunc, samples map[string]map[string][]float64, count int) (Row, error) {
	row := Row{Name: bm.name, Short: strings.TrimPrefix(bm.name, "BenchmarkL"+l.ID[:2]), About: bm.about}
	yours, ref := samples["yours"][bm.name+"/sched"], samples["reference"][bm.name+"/sched"]
	if len(yours) != count || len(ref) != count {
		return row, fmt.Errorf("bench: %s/sched reported %d times with your code and %d with the reference's, want %d each (a /sched sub-benchmark missing from the course's benchmark?)",
			bm.name, len(yours), len(ref), count)
	}
	row.Yours, row.Reference = benchSide(yours), benchSide(ref)
	row.YoursVsReference = ratio(row.Yours.Median, row.Reference.Median)
	if native := samples["reference"][bm.name+"/native"]; len(native) > 0 {
		side := benchSide(native)
		row.Native = &side
		row.ReferenceVsNative = ratio(row.Reference.Median, side.Median)
	}
	row.P = mannWhitneyP(yours, ref)
	row.Significant = row.P < alpha
	row.Reading = benchReading(row, count)
	return row, nil
}

// buildBench builds a test binary of the grading module's package with the
// given files replaced and the benchmark files (and the hidden tests' kit,
// which they use) added.
func buildBench(ctx context.Context, dirs checker.ModuleDirs, tmp, name string, replace, added map[string]string, out string) ([]byte, error) {
	ov, err := program.LearnerOverlay(dirs, replace)
	if err != nil {
		return nil, err
	}
	kit, err := filepath.Glob(filepath.Join(dirs.Kit, "*_test.go"))
	if err != nil {
		return nil, err
	}
	for _, f := range kit {
		ov[filepath.Join(dirs.Package, "zz_kit_"+filepath.Base(f))] = f
	}
	for base, path := range added {
		ov[filepath.Join(dirs.Package, "zz_bench_"+base)] = path
	}
	overlay, err := checker.WriteOverlay(filepath.Join(tmp, name+".overlay.json"), ov)
	if err != nil {
		return nil, err
	}
	// Without the build tag of the hidden tests (buildtag.Interleave): the
	// atomics are bare sync/atomic, as they are in a learner's own program.
	return program.Go(ctx, dirs, "test", "-c", "-overlay", overlay, "-o", out, "./solutions")
}

// benchLine is one result line of a benchmark run:
// "BenchmarkL01Steal/sched-8   	  396566	       300.7 ns/op".
var benchLine = regexp.MustCompile(`^(Benchmark\S*?)(?:-(\d+))?\s+\d+\s+([0-9.e+]+) ns/op`)

// runBench runs one test binary once over the benchmarks matching pattern
// and returns ns/op by benchmark name (without the -GOMAXPROCS suffix),
// and GOMAXPROCS. mine says the binary holds the learner's code: its
// failures are the learner's, the reference's are kata's.
func runBench(ctx context.Context, c *checker.Checker, l *lessons.Lesson, benches []benchFunc, bin, pattern string, opts Options, replace map[string]string, mine bool) (map[string]float64, int, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cmd := exec.Command(bin, "-test.run=^$", "-test.bench="+pattern, "-test.count=1",
		"-test.benchtime="+opts.Benchtime.String(), "-test.timeout="+(opts.Timeout+30*time.Second).String())
	cmd.Dir = filepath.Dir(bin)
	out, err := program.Run(ctx, cmd)
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	res := map[string]float64{}
	procs := 1
	for _, line := range lines {
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			continue
		}
		res[m[1]] = v
		if m[2] != "" {
			procs, _ = strconv.Atoi(m[2])
		}
	}
	if err != nil {
		who := "the reference"
		if mine {
			who = "your code"
		}
		var problem string
		var details []string
		switch {
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			problem = fmt.Sprintf("the benchmarks did not finish within %s with %s: stuck in a loop, or an M that never wakes?", opts.Timeout, who)
			// Benchmarks run in order, each reporting when done: the
			// first that did not report is the one that hung.
			for _, bm := range benches {
				if _, ok := res[bm.name+"/sched"]; !ok {
					problem += " (in " + bm.name + ")"
					break
				}
			}
		case ctx.Err() != nil:
			return nil, 0, fmt.Errorf("bench: %w", ctx.Err())
		default:
			problem, details = benchFailure(c, lines, replace, who)
		}
		if !mine {
			return nil, 0, fmt.Errorf("bench: the reference fails the benchmarks of %s (a bug in the course): %s\n%s", l.ID, problem, strings.Join(details, "\n"))
		}
		return nil, 0, &program.CodeFailure{Lesson: l.ID, Problem: problem, Details: details}
	}
	if len(res) == 0 {
		return nil, 0, fmt.Errorf("bench: the benchmarks of %s reported nothing:\n%s", l.ID, checker.Tail(lines, 10))
	}
	return res, procs, nil
}

// benchFailure says why a benchmark binary failed: a panic (condensed), a
// benchmark's own check (b.Fatal: its message is written for the learner),
// or whatever the binary said last.
func benchFailure(c *checker.Checker, lines []string, replace map[string]string, who string) (string, []string) {
	lines = dropLabels(lines)
	if p := c.CondensePanic(lines, replace); p != nil {
		problem := who + " panicked"
		if strings.HasPrefix(p[0], "fatal error:") {
			problem = who + " crashed"
		}
		if where := panickedBenchmark(lines); where != "" {
			problem += " in " + where
		}
		// The benchmark's own frames say nothing to the learner.
		p = slices.DeleteFunc(p, func(l string) bool { return testFrame.MatchString(l) })
		return problem, p
	}
	for i, line := range lines {
		if !strings.HasPrefix(line, "--- FAIL: ") {
			continue
		}
		var msg []string
		for _, l := range lines[i+1:] {
			if strings.HasPrefix(strings.TrimSpace(l), "--- FAIL") || !strings.HasPrefix(l, " ") {
				break
			}
			msg = append(msg, strings.TrimSpace(checker.TrimLocation(l)))
		}
		name := strings.TrimSpace(strings.TrimPrefix(line, "--- FAIL: "))
		return fmt.Sprintf("%s gives a wrong result in %s", who, name), program.FirstN(msg, 10)
	}
	return who + " made the benchmark binary fail", strings.Split(checker.Tail(lines, 8), "\n")
}

var (
	// benchFrame is a benchmark function's frame in a stack trace.
	benchFrame = regexp.MustCompile(`\.(Benchmark\w+)(\.func\d+)*\(`)
	// testFrame is a frame that CondensePanic placed in test code.
	testFrame = regexp.MustCompile(`\(hidden test:\d+\)$`)
)

// panickedBenchmark is the benchmark in whose stack a panic happened: a
// failed benchmark's name, or the first benchmark function in the trace.
func panickedBenchmark(lines []string) string {
	for _, l := range lines {
		if name, ok := strings.CutPrefix(l, "--- FAIL: "); ok {
			return strings.TrimSpace(name)
		}
		if m := benchFrame.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

// benchLabels start the lines the testing package prints before the first
// benchmark's result (to standard output).
var benchLabels = []string{"goos: ", "goarch: ", "pkg: ", "cpu: "}

func isBenchLabel(l string) bool {
	return slices.ContainsFunc(benchLabels, func(p string) bool { return strings.HasPrefix(l, p) })
}

// dropLabels removes the testing package's label lines from a failed
// benchmark binary's output, also where one cut a panic's line in two:
// the binary's standard output and error share one pipe, and a panic that
// had written "panic: " to standard error when the labels were written to
// standard output read "panic: goos: linux", its value on a line after
// the labels (seen once in CI, a stub's panic shown as "goos: linux").
func dropLabels(lines []string) []string {
	var out []string
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if isBenchLabel(l) {
			continue
		}
		if rest, ok := strings.CutPrefix(l, "panic: "); ok && isBenchLabel(rest) {
			j := i + 1
			for j < len(lines) && isBenchLabel(lines[j]) {
				j++
			}
			if j < len(lines) {
				out = append(out, "panic: "+lines[j])
				i = j
				continue
			}
		}
		out = append(out, l)
	}
	return out
}
