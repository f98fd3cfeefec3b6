package checker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math"
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

	"github.com/gmp-kata/gmp-kata/lessons"
)

// This file is kata bench's engine. A lesson's benchmarks (its
// testdata/bench) are built twice into test binaries of the grading
// module: once with the learner's files over the reference's, once with
// the reference alone. The two binaries then run alternately, Count times
// each, so that whatever else the machine is doing falls on both sides
// alike; the table reports medians, the spread of the runs, the ratios
// yours/reference and reference/native, and whether the difference between
// yours and the reference stands out from the noise (a Mann-Whitney U test,
// as benchstat does).

// BenchOptions configure Checker.Bench.
type BenchOptions struct {
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

// Defaults of BenchOptions.
const (
	DefaultBenchCount   = 5
	DefaultBenchtime    = 100 * time.Millisecond
	defaultBenchTimeout = 60 * time.Second
	// benchAlpha is the p-value under which a difference counts as real.
	benchAlpha = 0.05
	// benchSame is the relative difference under which a real difference
	// is still reported as "the same".
	benchSame = 0.03
)

// A BenchSide is one side of a benchmark (yours, the reference's or
// native Go) over all runs.
type BenchSide struct {
	Samples []float64 `json:"samples_ns_per_op"` // one per run, in run order
	Median  float64   `json:"median_ns_per_op"`
	// Spread is how far the slowest or fastest run lies from the median,
	// as a fraction of it (0.05: ±5%).
	Spread float64 `json:"spread"`
}

// A BenchRow is one benchmark of the table.
type BenchRow struct {
	Name  string `json:"name"`  // the benchmark function, e.g. "BenchmarkL01Steal"
	Short string `json:"short"` // its name without Benchmark and the lesson, e.g. "Steal"
	About string `json:"about"` // what one op is, from its doc comment

	Yours     BenchSide  `json:"yours"`
	Reference BenchSide  `json:"reference"`
	Native    *BenchSide `json:"native,omitempty"` // nil: no native counterpart

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

// A BenchResult is kata bench's table for one lesson.
type BenchResult struct {
	ID         string     `json:"id"`
	Title      string     `json:"title"`
	Count      int        `json:"count"`
	Benchtime  float64    `json:"benchtime_seconds"`
	GOMAXPROCS int        `json:"gomaxprocs"`
	Rows       []BenchRow `json:"benchmarks"`
	WallTime   float64    `json:"wall_seconds"`
}

// A CodeFailure is the learner's code failing under kata bench or kata
// trace: it does not compile, panics, gives a wrong result or hangs. It is
// the learner's to fix, unlike the other errors of Bench and Trace, which
// mean kata could not do its job.
type CodeFailure struct {
	Lesson  string   // the lesson whose files failed, "" if several
	Problem string   // what went wrong, one line, for the learner
	Details []string // compiler errors, or the condensed panic or failure
}

func (e *CodeFailure) Error() string {
	var b strings.Builder
	if e.Lesson != "" {
		fmt.Fprintf(&b, "lesson %s is not passing yet: ", e.Lesson)
	}
	b.WriteString(e.Problem)
	if len(e.Details) > 0 {
		b.WriteString(":\n    " + strings.Join(e.Details, "\n    "))
	}
	if e.Lesson != "" {
		fmt.Fprintf(&b, "\nrun 'kata check %s' first", e.Lesson[:2])
	}
	return b.String()
}

// Bench runs lesson l's benchmarks with files (base name in solutions/ →
// path of the learner's file, covering l.Files) and with the reference
// alone, and returns the table. If the learner's code fails, the error is
// a *CodeFailure.
func (c *Checker) Bench(ctx context.Context, l *lessons.Lesson, files map[string]string, opts BenchOptions) (*BenchResult, error) {
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
		return nil, fmt.Errorf("checker: %w", err)
	}
	defer os.RemoveAll(tmp)
	yoursBin, refBin, err := c.buildBoth(ctx, l, tmp, replace, opts.Progress)
	if err != nil {
		return nil, err
	}
	samples, procs, err := c.sampleBoth(ctx, l, benches, yoursBin, refBin, replace, opts)
	if err != nil {
		return nil, err
	}
	result := &BenchResult{ID: l.ID, Title: l.Title, Count: opts.Count, Benchtime: opts.Benchtime.Seconds(), GOMAXPROCS: procs}
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
func (o BenchOptions) withDefaults() BenchOptions {
	if o.Count <= 0 {
		o.Count = DefaultBenchCount
	}
	if o.Benchtime <= 0 {
		o.Benchtime = DefaultBenchtime
	}
	if o.Timeout <= 0 {
		o.Timeout = defaultBenchTimeout
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
			return nil, fmt.Errorf("checker: no %s to benchmark for lesson %s", f, l.ID)
		}
		if _, err := os.Stat(p); err != nil {
			return nil, &CodeFailure{Lesson: l.ID, Problem: fmt.Sprintf("your %s is missing (run 'kata reset %s' to start it again)", f, l.ID[:2])}
		}
		replace[f] = p
	}
	return replace, nil
}

// buildBoth builds the benchmark binaries of lesson l in tmp, with the
// learner's files (replace) and with the reference's, both at once: the
// go command shares its cache.
func (c *Checker) buildBoth(ctx context.Context, l *lessons.Lesson, tmp string, replace map[string]string, progress func(string)) (yoursBin, refBin string, err error) {
	added, err := writeFS(l.Bench, "*_test.go", filepath.Join(tmp, "bench"))
	if err != nil {
		return "", "", fmt.Errorf("checker: benchmarks of %s: %w", l.ID, err)
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
		yoursOut, yoursErr = c.buildBench(ctx, tmp, "yours", replace, added, yoursBin)
	}()
	go func() {
		defer wg.Done()
		refOut, refErr = c.buildBench(ctx, tmp, "reference", nil, added, refBin)
	}()
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return "", "", fmt.Errorf("checker: bench: %w", err)
	}
	if refErr != nil {
		return "", "", fmt.Errorf("checker: the reference does not build with the benchmarks of %s (a bug in the course): %v\n%s", l.ID, refErr, refOut)
	}
	if yoursErr != nil {
		var exitErr *exec.ExitError
		if !errors.As(yoursErr, &exitErr) {
			return "", "", fmt.Errorf("checker: go test -c: %w (is Go installed and on PATH?)", yoursErr)
		}
		errs := c.compileErrors(strings.Split(strings.TrimRight(string(yoursOut), "\n"), "\n"), replace)
		return "", "", &CodeFailure{Lesson: l.ID, Problem: "your code does not compile", Details: firstN(errs, 10)}
	}
	return yoursBin, refBin, nil
}

// sampleBoth runs the two binaries opts.Count times, alternately, each
// starting half of the time, and returns each side's ns/op samples by
// sub-benchmark (side "yours" or "reference"), and GOMAXPROCS.
func (c *Checker) sampleBoth(ctx context.Context, l *lessons.Lesson, benches []benchFunc, yoursBin, refBin string, replace map[string]string, opts BenchOptions) (map[string]map[string][]float64, int, error) {
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
			res, n, err := c.runBench(ctx, l, benches, bin, prefix, opts, replace, side == "yours")
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
func benchRow(l *lessons.Lesson, bm benchFunc, samples map[string]map[string][]float64, count int) (BenchRow, error) {
	row := BenchRow{Name: bm.name, Short: strings.TrimPrefix(bm.name, "BenchmarkL"+l.ID[:2]), About: bm.about}
	yours, ref := samples["yours"][bm.name+"/sched"], samples["reference"][bm.name+"/sched"]
	if len(yours) != count || len(ref) != count {
		return row, fmt.Errorf("checker: %s/sched reported %d times with your code and %d with the reference's, want %d each (a /sched sub-benchmark missing from the course's benchmark?)",
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
	row.Significant = row.P < benchAlpha
	row.Reading = benchReading(row, count)
	return row, nil
}

// buildBench builds a test binary of the grading module's package with the
// given files replaced and the benchmark files (and the hidden tests' kit,
// which they use) added.
func (c *Checker) buildBench(ctx context.Context, tmp, name string, replace, added map[string]string, out string) ([]byte, error) {
	ov := map[string]string{}
	for base, learner := range replace {
		abs, err := filepath.Abs(learner)
		if err != nil {
			return nil, err
		}
		ov[filepath.Join(c.mod.pkgDir, base)] = abs
	}
	kit, err := filepath.Glob(filepath.Join(c.mod.hidden, "kit", "*_test.go"))
	if err != nil {
		return nil, err
	}
	for _, f := range kit {
		ov[filepath.Join(c.mod.pkgDir, "zz_kit_"+filepath.Base(f))] = f
	}
	for base, path := range added {
		ov[filepath.Join(c.mod.pkgDir, "zz_bench_"+base)] = path
	}
	overlay, err := writeOverlay(filepath.Join(tmp, name+".overlay.json"), ov)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, buildAllowance)
	defer cancel()
	// Without the build tag of the hidden tests (buildtag.Interleave): the
	// atomics are bare sync/atomic, as they are in a learner's own program.
	cmd := exec.Command("go", "test", "-c", "-overlay", overlay, "-o", out, "./solutions")
	cmd.Dir = c.mod.dir
	cmd.Env = goEnv()
	return runKillable(ctx, cmd)
}

// benchLine is one result line of a benchmark run:
// "BenchmarkL01Steal/sched-8   	  396566	       300.7 ns/op".
var benchLine = regexp.MustCompile(`^(Benchmark\S*?)(?:-(\d+))?\s+\d+\s+([0-9.e+]+) ns/op`)

// runBench runs one test binary once over the benchmarks matching pattern
// and returns ns/op by benchmark name (without the -GOMAXPROCS suffix),
// and GOMAXPROCS. mine says the binary holds the learner's code: its
// failures are the learner's, the reference's are kata's.
func (c *Checker) runBench(ctx context.Context, l *lessons.Lesson, benches []benchFunc, bin, pattern string, opts BenchOptions, replace map[string]string, mine bool) (map[string]float64, int, error) {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cmd := exec.Command(bin, "-test.run=^$", "-test.bench="+pattern, "-test.count=1",
		"-test.benchtime="+opts.Benchtime.String(), "-test.timeout="+(opts.Timeout+30*time.Second).String())
	cmd.Dir = filepath.Dir(bin)
	out, err := runKillable(ctx, cmd)
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
			return nil, 0, fmt.Errorf("checker: bench: %w", ctx.Err())
		default:
			problem, details = c.benchFailure(lines, replace, who)
		}
		if !mine {
			return nil, 0, fmt.Errorf("checker: the reference fails the benchmarks of %s (a bug in the course): %s\n%s", l.ID, problem, strings.Join(details, "\n"))
		}
		return nil, 0, &CodeFailure{Lesson: l.ID, Problem: problem, Details: details}
	}
	if len(res) == 0 {
		return nil, 0, fmt.Errorf("checker: the benchmarks of %s reported nothing:\n%s", l.ID, tail(lines, 10))
	}
	return res, procs, nil
}

// benchFailure says why a benchmark binary failed: a panic (condensed), a
// benchmark's own check (b.Fatal: its message is written for the learner),
// or whatever the binary said last.
func (c *Checker) benchFailure(lines []string, replace map[string]string, who string) (string, []string) {
	if p := c.condensePanic(lines, replace); p != nil {
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
			msg = append(msg, strings.TrimSpace(locationPrefix.ReplaceAllString(l, "")))
		}
		name := strings.TrimSpace(strings.TrimPrefix(line, "--- FAIL: "))
		return fmt.Sprintf("%s gives a wrong result in %s", who, name), firstN(msg, 10)
	}
	return who + " made the benchmark binary fail", strings.Split(tail(lines, 8), "\n")
}

var (
	// benchFrame is a benchmark function's frame in a stack trace.
	benchFrame = regexp.MustCompile(`\.(Benchmark\w+)(\.func\d+)*\(`)
	// testFrame is a frame that summarizePanic placed in test code.
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

// condensePanic finds a panic in a program's output — a crash ("panic:",
// "fatal error:") or a G's panic that Runtime.Wait returned ("panic in G
// 3: ...", with its stack) — and condenses it for the learner: the panic
// line, then the scheduler's frames below the panic, each named by the
// file the learner knows. It returns nil if there is no panic.
func (c *Checker) condensePanic(lines []string, replace map[string]string) []string {
	start := -1
	var head string
	for i, l := range lines {
		// A crash in a benchmark that has already printed its name
		// continues that name's line: "BenchmarkL04Steal/sched-2 \tpanic: ...".
		t := strings.TrimSpace(benchNamePrefix.ReplaceAllString(locationPrefix.ReplaceAllString(l, ""), ""))
		if strings.HasPrefix(t, "panic:") || strings.HasPrefix(t, "fatal error:") || panicInG.MatchString(t) {
			start, head = i, t
			break
		}
	}
	if start < 0 {
		return nil
	}
	if m := panicInG.FindStringSubmatch(head); m != nil {
		head = "panic: " + m[2] + " (in G " + m[1] + ")"
	}
	rest := lines[start+1:]
	// Skip the frames of a recovery (debug.Stack and gpanic for a G's
	// panic, testing's tRunner for a re-panic): in the panicking
	// goroutine's stack, the frames that matter start below the call of
	// panic, if there is one.
	inStack := false
	for i, l := range rest {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "goroutine ") {
			inStack = true
		} else if inStack && t == "" {
			break // the end of the first goroutine's stack
		}
		if strings.HasPrefix(t, "panic(") {
			rest = rest[i+1:]
			break
		}
	}
	return c.summarizePanic(append([]string{head}, rest...), replace)
}

// benchNamePrefix is a benchmark's name as the testing package prints it
// before the benchmark runs, with no newline until it reports.
var benchNamePrefix = regexp.MustCompile(`^Benchmark\S*\s+`)

// panicInG is how a *sched.PanicError starts.
var panicInG = regexp.MustCompile(`^panic in G (\d+): (.*)$`)

// A benchmark found in a lesson's bench files.
type benchFunc struct {
	name  string
	about string
}

// lessonBenchmarks lists l's benchmark functions, in the order of their
// files and lines, with the first sentence of their doc comments.
func lessonBenchmarks(l *lessons.Lesson) ([]benchFunc, error) {
	if l.Bench == nil {
		return nil, fmt.Errorf("checker: lesson %s has no benchmarks", l.ID)
	}
	names, err := fs.Glob(l.Bench, "*_test.go")
	if err != nil {
		return nil, err
	}
	var out []benchFunc
	fset := token.NewFileSet()
	for _, name := range names {
		src, err := fs.ReadFile(l.Bench, name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("checker: benchmarks of %s: %w", l.ID, err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !strings.HasPrefix(fn.Name.Name, "BenchmarkL"+l.ID[:2]) {
				continue
			}
			out = append(out, benchFunc{name: fn.Name.Name, about: firstSentence(fn.Doc.Text(), fn.Name.Name)})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("checker: lesson %s has no BenchmarkL%s functions", l.ID, l.ID[:2])
	}
	return out, nil
}

// firstSentence is a doc comment's first sentence, without the "Name:"
// it starts with.
func firstSentence(doc, name string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	doc = strings.TrimSpace(strings.TrimPrefix(doc, name+":"))
	if i := strings.Index(doc, ". "); i >= 0 {
		doc = doc[:i]
	}
	return strings.TrimSuffix(doc, ".")
}

// benchSide summarizes one side's samples.
func benchSide(samples []float64) BenchSide {
	med := median(samples)
	spread := 0.0
	if med > 0 {
		lo, hi := slices.Min(samples), slices.Max(samples)
		spread = math.Max(hi-med, med-lo) / med
	}
	return BenchSide{Samples: slices.Clone(samples), Median: med, Spread: spread}
}

// ratio is a / b, or 0 if b is not positive (a benchmark too fast to
// time reports 0 ns/op).
func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// mannWhitneyP is the exact two-sided p-value of the Mann-Whitney U test
// that xs and ys come from the same distribution (benchstat's test). Ties
// count half, and the p-value is then taken conservatively.
func mannWhitneyP(xs, ys []float64) float64 {
	n1, n2 := len(xs), len(ys)
	if n1 == 0 || n2 == 0 {
		return 1
	}
	twice := 0 // 2U, so that ties stay integral
	for _, x := range xs {
		for _, y := range ys {
			switch {
			case x > y:
				twice += 2
			case x == y:
				twice++
			}
		}
	}
	// dist[u] counts the orderings of n1 xs and n2 ys with U = u.
	dist := uDistribution(n1, n2)
	total := 0.0
	for _, c := range dist {
		total += c
	}
	// P(U <= u) and P(U >= u), with a tie's half rounded against
	// significance.
	lo, hi := twice/2, (twice+1)/2
	below, above := 0.0, 0.0
	for u, c := range dist {
		if u <= hi {
			below += c
		}
		if u >= lo {
			above += c
		}
	}
	return math.Min(1, 2*math.Min(below, above)/total)
}

// uDistribution returns, for U = 0 .. n1*n2, the number of arrangements of
// n1 and n2 distinct values in which U pairs have the first above the
// second.
func uDistribution(n1, n2 int) []float64 {
	// f[i][j] is the distribution for i and j values.
	f := make([][][]float64, n1+1)
	for i := range f {
		f[i] = make([][]float64, n2+1)
		for j := range f[i] {
			d := make([]float64, i*j+1)
			switch {
			case i == 0 || j == 0:
				d[0] = 1
			default:
				// The largest value is an x (above all j ys) or a y.
				for u, c := range f[i-1][j] {
					d[u+j] += c
				}
				for u, c := range f[i][j-1] {
					d[u] += c
				}
			}
			f[i][j] = d
		}
	}
	return f[n1][n2]
}

// minP is the smallest p-value the test can give with n runs a side.
func minP(n int) float64 {
	// 2 / C(2n, n)
	c := 1.0
	for k := 1; k <= n; k++ {
		c = c * float64(n+k) / float64(k)
	}
	return 2 / c
}

// benchReading puts a row into words.
func benchReading(r BenchRow, count int) string {
	switch {
	case minP(count) >= benchAlpha:
		return fmt.Sprintf("%s: yours is %.2f× the reference, but %d runs each cannot tell that from noise (use --count 5 or more)", r.Short, r.YoursVsReference, count)
	case !r.Significant:
		return fmt.Sprintf("%s: within noise of the reference (%.2f×, p=%.2f)", r.Short, r.YoursVsReference, r.P)
	case math.Abs(r.YoursVsReference-1) < benchSame:
		return fmt.Sprintf("%s: the same as the reference, to within %d%% (%.2f×)", r.Short, int(benchSame*100), r.YoursVsReference)
	case r.YoursVsReference > 1:
		return fmt.Sprintf("%s: yours is %.2f× the reference (slower)", r.Short, r.YoursVsReference)
	default:
		return fmt.Sprintf("%s: yours is %.2f× the reference (faster)", r.Short, r.YoursVsReference)
	}
}

// writeFS copies the files of fsys matching pattern into dir and returns
// them by base name.
func writeFS(fsys fs.FS, pattern, dir string) (map[string]string, error) {
	names, err := fs.Glob(fsys, pattern)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, name := range names {
		data, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, filepath.Base(name))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return nil, err
		}
		out[filepath.Base(name)] = p
	}
	return out, nil
}

// writeOverlay writes a go build -overlay file mapping each path of the
// grading module to the file to use instead.
func writeOverlay(path string, replace map[string]string) (string, error) {
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, data, 0o644)
}

// goEnv is the environment of the go commands kata runs in the grading
// module: module mode, no workspace, none of the user's GOFLAGS.
func goEnv() []string {
	return append(os.Environ(), "GOWORK=off", "GOFLAGS=", "GO111MODULE=on")
}

// runKillable runs cmd in a process group of its own, returning its
// combined output; when ctx is done, the whole group is killed.
func runKillable(ctx context.Context, cmd *exec.Cmd) ([]byte, error) {
	out := &cappedBuffer{max: 16 << 20}
	cmd.Stdout, cmd.Stderr = out, out
	err := startKillable(ctx, cmd)
	return out.Bytes(), err
}

func firstN(lines []string, n int) []string {
	if len(lines) > n {
		return append(slices.Clone(lines[:n]), fmt.Sprintf("... and %d more", len(lines)-n))
	}
	return lines
}
