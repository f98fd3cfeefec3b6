package main

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/program"
	"github.com/gmp-kata/gmp-kata/checker/trace"
	"github.com/gmp-kata/gmp-kata/internal/diagram"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
	"github.com/gmp-kata/gmp-kata/internal/tracejson"
	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/gmp-kata/gmp-kata/lessons"
	sched "github.com/gmp-kata/gmp-kata/solutions"
	"github.com/urfave/cli/v2"
)

// traceCommand runs a scenario with the learner's lesson files (or the
// reference's) and draws what the scheduler did as an HTML page, and with
// --json writes it as trace-event JSON for Perfetto too.
var traceCommand = &cli.Command{
	Name:  "trace",
	Usage: "run a scenario with your scheduler, judge the run and draw what every P and M did, as an HTML page",
	ArgsUsage: "SCENARIO  (one of: " + strings.Join(scenario.Names(), ", ") + ")\n\n" +
		"Your files are those of the lessons you have passed (or --lessons); the reference's fill in the rest.\n" +
		"The seed fixes the workload and the scheduler's random choices (the steal order, randomizeScheduler).\n" +
		"It cannot fix which M runs when: the Ms are real threads, so times, steal counts and the P a G\n" +
		"runs on differ from run to run, with any scheduler. --runs and --compare show by how much.\n\n" +
		"Each run gets a verdict in the terminal: every G ran to its end exactly once, the longest a P sat\n" +
		"idle while Gs were queued, yields and preemptions, and what the scenario's story expects.\n" +
		"Exit status 1: a run of your scheduler broke what every correct scheduler keeps (a G lost or run\n" +
		"twice, a crash, a story claim that does not depend on timing); 0 otherwise (timing is not judged).",
	Flags: []cli.Flag{
		&cli.BoolFlag{Name: "reference", Usage: "run the reference scheduler, not your files"},
		&cli.BoolFlag{Name: "compare", Usage: "run yours and the reference's --runs times each and compare the spread of times, steals and idle Ps, then draw the median run of each"},
		&cli.IntFlag{Name: "runs", Usage: "run each scheduler `N` times with the same seed", DefaultText: "1, with --compare 5"},
		&cli.StringFlag{Name: "lessons", Usage: "take your files of these lessons (`L,...`), not of the lessons you have passed"},
		&cli.IntFlag{Name: "procs", Usage: "number of Ps (default: the scenario's own)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the random steal order and randomizeScheduler; it does not fix which M runs when (Ms are threads)"},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the HTML `FILE` to write (default: trace-SCENARIO.html)"},
		&cli.StringFlag{Name: "json", Usage: "also write the drawn runs as Chrome trace-event JSON to `FILE`, to open at ui.perfetto.dev or chrome://tracing"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite the files even if kata did not write them"},
		&cli.BoolFlag{Name: "list", Usage: "list the scenarios and what each shows"},
	},
	Action: runTrace,
}

// traceGenerator marks the pages kata trace writes, so that it replaces
// its own pages and nothing else without asking.
const traceGenerator = `<meta name="generator" content="kata trace">`

// seedSays is what a seed fixes and what it cannot, for the terminal and
// the page.
func seedSays(seed uint64) string {
	return fmt.Sprintf("Seed %d fixes the workload and the scheduler's random choices (the steal order, randomizeScheduler); "+
		"it cannot fix which M runs when: the Ms are real threads, so times, steals and the P a G runs on differ from run to run.", seed)
}

// A traced run: whose scheduler, and what it did.
type tracedRun struct {
	who    string // "your scheduler (lessons 01, 02)", "the reference"
	result *scenario.Result
	failed bool // the learner's scheduler went wrong on the way
	// view is the stretch of the run its scenario's story is about, and
	// story what the run did not bear out of it, if anything.
	view    scenario.Window
	story   error
	verdict scenario.Verdict
	// which says which of a side's runs this is, for the page: "" for a
	// side of one run.
	which string
}

// A traceSide is one scheduler's runs, and the one drawn: the median by
// wall time.
type traceSide struct {
	who   string
	runs  []tracedRun
	drawn int
}

func runTrace(c *cli.Context) error {
	out := c.App.Writer
	if c.Bool("list") {
		for _, s := range scenario.All() {
			fmt.Fprintf(out, "%-10s %-5s %s\n", s.Name, scenario.Plural(s.Procs, "P"), s.Short)
		}
		return nil
	}
	opts, err := traceOptionsOf(c)
	if err != nil {
		return err
	}
	var sides []*traceSide
	if c.Bool("reference") {
		side, err := traceReference(c, opts)
		if err != nil {
			return err
		}
		sides = append(sides, side)
	} else {
		sides, err = tracePrograms(c, opts)
		if err != nil {
			return err
		}
	}

	for i, side := range sides {
		if i > 0 {
			fmt.Fprintln(out)
		}
		printSide(out, side, opts)
	}
	if compared(sides, opts) {
		fmt.Fprintln(out)
		printComparison(out, sides)
	}
	fmt.Fprintf(out, "\n%s\n", seedSays(opts.seed))
	var drawn []tracedRun
	for _, side := range sides {
		drawn = append(drawn, side.runs[side.drawn])
	}
	if err := writeTraceFiles(out, opts, drawn, sides); err != nil {
		return err
	}
	for _, run := range sides[0].runs {
		if run.failed || run.verdict.Broken() {
			if c.Bool("reference") {
				return couldNot(fmt.Errorf("trace: the reference broke what every correct scheduler keeps (a bug in the course): %s", run.who))
			}
			return cli.Exit("trace: your scheduler broke what every correct scheduler keeps (FAIL above); the page shows what it did", exitFailed)
		}
	}
	return nil
}

// compared says whether the sides' spreads are to be compared: both ran
// several times, and neither went wrong (a broken run's times say nothing).
func compared(sides []*traceSide, o traceOptions) bool {
	if len(sides) != 2 || o.runs < 2 {
		return false
	}
	for _, side := range sides {
		for _, run := range side.runs {
			if run.failed || run.verdict.Broken() {
				return false
			}
		}
	}
	return true
}

// traceOptions are kata trace's checked options.
type traceOptions struct {
	s              scenario.Scenario
	procs, runs    int
	seed           uint64
	file, jsonFile string
	compare, ownPs bool
}

// traceOptionsOf checks kata trace's command line.
func traceOptionsOf(c *cli.Context) (traceOptions, error) {
	var o traceOptions
	if c.NArg() != 1 {
		return o, usageError("trace: name one scenario, like 'kata trace imbalance' (run 'kata trace --list')")
	}
	s, err := scenario.Lookup(c.Args().First())
	if err != nil {
		return o, usageError("trace: " + err.Error())
	}
	if c.Bool("reference") && c.Bool("compare") {
		return o, usageError("trace: --compare already runs the reference beside yours; drop --reference")
	}
	o.s, o.procs, o.seed, o.compare = s, c.Int("procs"), c.Uint64("seed"), c.Bool("compare")
	if o.procs < 0 || o.procs > 64 {
		return o, usageError(fmt.Sprintf("trace: --procs %d: want 1 to 64", o.procs))
	}
	o.ownPs = o.procs == 0 || o.procs == s.Procs
	o.runs = c.Int("runs")
	switch {
	case !c.IsSet("runs") && o.compare:
		o.runs = 5
	case !c.IsSet("runs"):
		o.runs = 1
	case o.runs < 1 || o.runs > 100:
		return o, usageError(fmt.Sprintf("trace: --runs %d: want 1 to 100", o.runs))
	}
	o.file = c.String("out")
	if o.file == "" {
		o.file = defaultTraceFile(c, s.Name)
	}
	if err := checkTraceFile(o.file, "-o", c.Bool("force"), isTracePage); err != nil {
		return o, usageError(err.Error())
	}
	o.jsonFile = c.String("json")
	if o.jsonFile != "" {
		if filepath.Clean(o.jsonFile) == filepath.Clean(o.file) {
			return o, usageError(fmt.Sprintf("trace: --json %s is the HTML page's file too; name another", o.jsonFile))
		}
		if err := checkTraceFile(o.jsonFile, "--json", c.Bool("force"), tracejson.Written); err != nil {
			return o, usageError(err.Error())
		}
	}
	return o, nil
}

// writeTraceFiles writes the page (and the JSON) of the drawn runs.
func writeTraceFiles(out io.Writer, o traceOptions, drawn []tracedRun, sides []*traceSide) error {
	var page bytes.Buffer
	p := tracePage(o.s, o.seed, drawn)
	if compared(sides, o) {
		p.CompareHeader, p.CompareRows = comparison(sides)
		p.CompareNote = fmt.Sprintf("Over %s of each, with the same seed: the median, then the range. A difference well outside the reference's range is worth a look; one inside it is the threads.", scenario.Plural(o.runs, "run"))
	}
	if err := p.Write(&page); err != nil {
		return couldNot(err)
	}
	html := strings.Replace(page.String(), "<head>", "<head>\n"+traceGenerator, 1)
	if err := os.WriteFile(o.file, []byte(html), 0o644); err != nil {
		return couldNot(fmt.Errorf("trace: %w", err))
	}
	abs, _ := filepath.Abs(o.file)
	fmt.Fprintf(out, "\nwrote %s (open it in a browser)\n", abs)
	if o.jsonFile != "" {
		if err := writeTraceJSON(o.jsonFile, o.s, o.seed, drawn); err != nil {
			return couldNot(err)
		}
		abs, _ := filepath.Abs(o.jsonFile)
		fmt.Fprintf(out, "wrote %s (open it at https://ui.perfetto.dev or chrome://tracing)\n", abs)
	}
	return nil
}

// defaultTraceFile is where a page goes without -o: in a workspace, its
// traces/ directory (made if need be), so that pages do not pile up beside
// the learner's Go files; elsewhere, the current directory.
func defaultTraceFile(c *cli.Context, name string) string {
	base := "trace-" + name + ".html"
	ws, err := workspace.Find(c.String("workspace"))
	if err != nil {
		return base
	}
	dir := filepath.Join(ws.Dir, "traces")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return base
	}
	return filepath.Join(dir, base)
}

// checkTraceFile refuses to overwrite a file kata trace did not write:
// ours says whether it did. flag is the option that names the file.
func checkTraceFile(file, flag string, force bool, ours func(data []byte) bool) error {
	data, err := os.ReadFile(file)
	if os.IsNotExist(err) || force {
		return nil
	}
	if err != nil {
		return fmt.Errorf("trace: %v", err)
	}
	if !ours(data) {
		return fmt.Errorf("trace: %s exists and kata trace did not write it; choose another with %s FILE, or --force to overwrite it", file, flag)
	}
	return nil
}

// isTracePage reports whether data is a page kata trace wrote.
func isTracePage(data []byte) bool {
	return bytes.Contains(data, []byte(traceGenerator))
}

// writeTraceJSON writes the runs to file as trace-event JSON, a process
// each, laid out as the page draws them.
func writeTraceJSON(file string, s scenario.Scenario, seed uint64, runs []tracedRun) error {
	var trs []tracejson.Run
	for _, run := range runs {
		r := run.result
		trs = append(trs, tracejson.Run{Name: run.who, Layout: diagram.Lay(diagram.Run{Events: r.Events, Procs: r.Procs})})
	}
	var b bytes.Buffer
	if err := tracejson.Write(&b, trs, map[string]string{"scenario": s.Name, "seed": fmt.Sprint(seed)}); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// learnerFiles returns the learner's files to trace, and whose they are:
// those of the lessons they passed, or of --lessons.
func learnerFiles(c *cli.Context, o traceOptions) (string, map[string]string, error) {
	s := o.s
	ws, err := findWorkspace(c)
	if err != nil {
		return "", nil, usageError(err.Error() + " (or run 'kata trace " + s.Name + " --reference')")
	}
	var ls []*lessons.Lesson
	if names := c.String("lessons"); names != "" {
		ls, err = lookupLessons(strings.Split(names, ","))
		if err != nil {
			return "", nil, err
		}
	} else {
		for _, l := range lessons.Default.All() {
			if ws.Progress.Passed(l.ID) {
				ls = append(ls, l)
			}
		}
	}
	if len(ls) == 0 {
		return "", nil, usageError("trace: you have not passed a lesson yet, so your scheduler is the reference's; pass one ('kata check 01'), name them with --lessons 01,02, or run with --reference")
	}
	files := map[string]string{}
	var ids []string
	for _, l := range ls {
		for name, path := range ws.LessonFiles(l) {
			files[name] = path
		}
		ids = append(ids, l.ID[:2])
	}
	who := fmt.Sprintf("your scheduler (your files of lesson %s, the reference's for the rest)", strings.Join(ids, ", "))
	return who, files, nil
}

// traceReference runs the reference alone o.runs times, in kata; a single
// run is the first of a few that bears out the scenario's story, as the
// book's.
func traceReference(c *cli.Context, o traceOptions) (*traceSide, error) {
	const who = "the reference"
	side := &traceSide{who: who}
	for i := range o.runs {
		var r *scenario.Result
		var err error
		if o.runs == 1 {
			tries := scenario.Tries
			if !o.ownPs {
				tries = 1
			}
			r, _, err = scenario.RunStory(o.s, o.procs, o.seed, tries)
		} else {
			r, err = scenario.Run(o.s, o.procs, o.seed)
		}
		if r == nil {
			return nil, couldNot(err)
		}
		side.runs = append(side.runs, judged(o, who, i, r, false, false))
	}
	side.drawn = medianRun(side.runs)
	return side, nil
}

// tracePrograms runs the scenario with the learner's files, and with
// --compare the reference beside it in a program of its own, built the
// same way, so that the two are timed alike. Both are built first, then
// their runs alternate (yours, the reference's, yours...), so that what
// else the machine does weighs on both alike. A side stops at its first
// run that went wrong.
func tracePrograms(c *cli.Context, o traceOptions) ([]*traceSide, error) {
	who, files, err := learnerFiles(c, o)
	if err != nil {
		return nil, err
	}
	ck, err := checker.New(checker.Options{})
	if err != nil {
		return nil, couldNot(err)
	}
	progs := []*programSide{{side: &traceSide{who: who}, files: files}}
	if o.compare {
		progs = append(progs, &programSide{side: &traceSide{who: "the reference"}})
	}
	for _, ps := range progs {
		fmt.Fprintf(c.App.ErrWriter, "building %s with %s...\n", o.s.Name, ps.side.who)
		ps.prog, err = trace.Build(c.Context, ck, ps.files, o.s.Name, o.procs)
		if err != nil {
			return nil, traceError(o.s, err)
		}
		defer ps.prog.Close()
	}
	fmt.Fprintf(c.App.ErrWriter, "running it %s...\n", times(o.runs))
	for i := range o.runs {
		for _, ps := range progs {
			if err := ps.run(c, o, i); err != nil {
				return nil, err
			}
		}
	}
	var sides []*traceSide
	for _, ps := range progs {
		if !ps.stopped {
			ps.side.drawn = medianRun(ps.side.runs)
		}
		sides = append(sides, ps.side)
	}
	return sides, nil
}

// A programSide is a side whose runs are a program's.
type programSide struct {
	side    *traceSide
	files   map[string]string // none: the reference's
	prog    *trace.Program
	stopped bool // a run went wrong: it is the one drawn, and the last
}

// run runs the program for run i of the side, unless it has stopped. A
// run that went wrong but left events is kept, to judge and draw.
func (ps *programSide) run(c *cli.Context, o traceOptions, i int) error {
	if ps.stopped {
		return nil
	}
	who := ps.side.who
	run, err := ps.prog.Run(c.Context, o.seed, trace.DefaultLimit)
	if run == nil {
		return traceError(o.s, err)
	}
	r := &scenario.Result{Scenario: o.s, Procs: run.Procs, Seed: run.Seed, Events: run.Events}
	switch {
	case run.Deadlock:
		// As the reference's run in kata's own process would return it:
		// the story of the deadlock scenario reads checkdead's list.
		r.Err = &sched.DeadlockError{Waiting: run.Waiting}
	case run.WaitErr != "":
		r.Err = errors.New(run.WaitErr)
	}
	if err != nil {
		var failure *program.CodeFailure
		if !errors.As(err, &failure) || ps.files == nil {
			return couldNot(err)
		}
		fmt.Fprintf(c.App.ErrWriter, "trace: run %d of your scheduler went wrong; the page shows it as far as it got:\n%v\n", i+1, err)
	}
	jr := judged(o, who, i, r, err != nil, run.Crashed)
	// What crashed the run, if its panic says: a G's second start
	// (never traced), or a G no M would ever run.
	if g := run.DispatchedTwice; g != 0 && !slices.Contains(jr.verdict.Twice, g) {
		jr.verdict.Twice = append(jr.verdict.Twice, g)
	}
	if g := run.Stranded; g != 0 && !slices.Contains(jr.verdict.Lost, g) {
		jr.verdict.Lost = append(jr.verdict.Lost, g)
	}
	if run.Crashed && !slices.ContainsFunc(run.Events, func(ev sched.Event) bool { return ev.Kind == sched.EvGoStart }) {
		// It crashed before a G ran, or before it wrote a G's start:
		// nothing to draw, but its panic may name a G.
		if len(jr.verdict.Twice)+len(jr.verdict.Lost) > 0 {
			fmt.Fprintf(c.App.Writer, "== %s\nverdict of run %d, which crashed before it had traced a G:\n", who, i+1)
			scenario.PrintVerdict(c.App.Writer, jr.verdict)
		}
		return traceError(o.s, err)
	}
	ps.side.runs = append(ps.side.runs, jr)
	if err != nil {
		ps.stopped, ps.side.drawn = true, len(ps.side.runs)-1 // the run that went wrong is the one to see
	}
	return nil
}

// traceError is what kata trace says when a program could not run at all.
func traceError(s scenario.Scenario, err error) error {
	var failure *program.CodeFailure
	if errors.As(err, &failure) {
		return cli.Exit("trace: your scheduler did not get through "+s.Name+":\n"+err.Error(), exitFailed)
	}
	return couldNot(err)
}

// judged is run i of a side with its story checked and its verdict.
func judged(o traceOptions, who string, i int, r *scenario.Result, failed, crashed bool) tracedRun {
	run := tracedRun{who: who, result: r, failed: failed}
	run.verdict = scenario.Judge(r, crashed)
	if o.ownPs && !crashed {
		run.view, run.story = o.s.Check(r)
	} else {
		// The story is told of the scenario's own Ps, and of a whole run.
		run.verdict.Story, run.verdict.StoryMust = nil, false
	}
	if o.runs > 1 {
		run.which = fmt.Sprintf("run %d of %d", i+1, o.runs)
	}
	return run
}

// medianRun returns the index of the run of median wall time.
func medianRun(runs []tracedRun) int {
	idx := make([]int, len(runs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmp.Compare(scenario.Summarize(runs[a].result).Span, scenario.Summarize(runs[b].result).Span)
	})
	return idx[(len(idx)-1)/2]
}

// times says how many runs: "once", "5 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}

// printSide writes a side's runs: one run in full (the per-P table, the
// timeline, the verdict), several as a line each and the verdict of the
// drawn one.
func printSide(w io.Writer, side *traceSide, o traceOptions) {
	if len(side.runs) == 1 {
		run := side.runs[0]
		fmt.Fprintf(w, "== %s\n", side.who)
		scenario.Print(w, run.result, 72)
		fmt.Fprintln(w, "\nverdict:")
		scenario.PrintVerdict(w, run.verdict)
		return
	}
	fmt.Fprintf(w, "== %s: %s of %s, seed %d each\n", side.who, scenario.Plural(len(side.runs), "run"), o.s.Name, o.seed)
	fmt.Fprintf(w, "%-4s %10s %7s %17s %7s %10s  %s\n", "run", "wall time", "steals", "idle beside work", "yields", "preempted", "verdict")
	for i, run := range side.runs {
		v, sum := run.verdict, scenario.Summarize(run.result)
		mark := ""
		if i == side.drawn {
			mark = " (drawn)"
		}
		fmt.Fprintf(w, "%-4d %10s %7d %17s %7d %10d  %s%s\n", i+1, roundDur(sum.Span), sum.Steals, roundDur(v.Idle), v.Yielded, v.Preempted, verdictWord(run), mark)
	}
	fmt.Fprintf(w, "\nverdict of run %d:\n", side.drawn+1)
	scenario.PrintVerdict(w, side.runs[side.drawn].verdict)
}

// verdictWord says a run's verdict in a word.
func verdictWord(run tracedRun) string {
	switch {
	case run.failed || run.verdict.Broken():
		return "FAIL"
	case run.verdict.Story != nil:
		return "ok (story not shown)"
	}
	return "ok"
}

// comparison is the table of both sides' spreads: a row per measure,
// "median [min–max]" in a column per side.
func comparison(sides []*traceSide) (header []string, rows [][]string) {
	header = []string{"median [min–max]"}
	measures := []struct {
		name string
		of   func(run tracedRun) float64
		say  func(float64) string
	}{
		{"wall time", func(r tracedRun) float64 { return float64(scenario.Summarize(r.result).Span) }, durString},
		{"steals", func(r tracedRun) float64 { return float64(scenario.Summarize(r.result).Steals) }, countString},
		{"idle beside queued work", func(r tracedRun) float64 { return float64(r.verdict.Idle) }, durString},
		{"preempted", func(r tracedRun) float64 { return float64(r.verdict.Preempted) }, countString},
	}
	for _, side := range sides {
		header = append(header, side.who)
	}
	for _, m := range measures {
		row := []string{m.name}
		for _, side := range sides {
			var xs []float64
			for _, run := range side.runs {
				xs = append(xs, m.of(run))
			}
			slices.Sort(xs)
			row = append(row, fmt.Sprintf("%s [%s–%s]", m.say(xs[(len(xs)-1)/2]), m.say(xs[0]), m.say(xs[len(xs)-1])))
		}
		rows = append(rows, row)
	}
	return header, rows
}

func durString(x float64) string   { return roundDur(time.Duration(x)).String() }
func countString(x float64) string { return fmt.Sprint(int64(x)) }

// roundDur rounds d for a table: to 10µs above a millisecond, to the
// microsecond below.
func roundDur(d time.Duration) time.Duration {
	if d > time.Millisecond {
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}

// printComparison writes the comparison of two sides' spreads.
func printComparison(w io.Writer, sides []*traceSide) {
	_, rows := comparison(sides)
	fmt.Fprintf(w, "== over %s each, same seed: median [min–max]\n", scenario.Plural(len(sides[1].runs), "run"))
	fmt.Fprintf(w, "%-24s %-30s %s\n", "", "yours", "the reference")
	for _, row := range rows {
		fmt.Fprintf(w, "%-24s %-30s %s\n", row[0], row[1], row[2])
	}
	fmt.Fprintln(w, "A difference well outside the reference's range is worth a look; one inside it is the threads.")
}

// tracePage lays the runs out on one page, on one time scale.
func tracePage(s scenario.Scenario, seed uint64, runs []tracedRun) *diagram.Page {
	var span int64
	for _, run := range runs {
		if evs := run.result.Events; len(evs) > 0 {
			span = max(span, evs[len(evs)-1].When-evs[0].When)
		}
	}
	p := &diagram.Page{
		Title:    "kata trace " + s.Name,
		Subtitle: fmt.Sprintf("%s. %s", s.Short, seedSays(seed)),
	}
	for i, run := range runs {
		r := run.result
		sum := scenario.Summarize(r)
		which := ""
		if run.which != "" {
			which = fmt.Sprintf(" (%s, the median by wall time)", run.which)
			if run.failed || run.verdict.Broken() {
				which = fmt.Sprintf(" (%s, the first that went wrong)", run.which)
			}
		}
		var verdict bytes.Buffer
		scenario.PrintVerdict(&verdict, run.verdict)
		pr := diagram.PageRun{
			Heading: fmt.Sprintf("%s%s: %s, %s%s", strings.ToUpper(run.who[:1]), run.who[1:], scenario.Plural(r.Procs, "P"), sum.Span.Round(time.Microsecond), which),
			Verdict: strings.Split(strings.TrimRight(verdict.String(), "\n"), "\n"),
			Header:  []string{"P", "runs", "Gs", "busy", "steals (Gs)", "stolen from", "preempted", "syscalls", "retaken"},
			Totals:  sum.Totals(),
			SVG:     diagram.Lay(diagram.Run{Events: r.Events, Procs: r.Procs}).SVG(diagram.Options{ID: fmt.Sprintf("run%d", i), Span: span, View: run.view}),
		}
		if run.story != nil {
			pr.Note = fmt.Sprintf("This run does not show all that the scenario is about: %s. Runs on real threads differ from one to the next; if the next run does not show it either, and the machine is not busy, look for the reason in the scheduler.",
				strings.TrimPrefix(run.story.Error(), "scenario "+s.Name+": "))
		}
		for _, ps := range sum.Procs {
			pr.Rows = append(pr.Rows, []string{fmt.Sprintf("P%d", ps.P), fmt.Sprint(ps.Runs), fmt.Sprint(ps.Gs), ps.Busy.Round(time.Microsecond).String(),
				fmt.Sprintf("%d (%d)", ps.Steals, ps.StolenGs), fmt.Sprint(ps.StolenFrom), fmt.Sprint(ps.Preempted), fmt.Sprint(ps.Syscalls), fmt.Sprint(ps.Retaken)})
		}
		if r.Err != nil {
			pr.Err = "Wait returned: " + r.Err.Error()
		}
		p.Runs = append(p.Runs, pr)
	}
	return p
}
