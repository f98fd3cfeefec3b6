package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/internal/diagram"
	"github.com/gmp-kata/gmp-kata/internal/scenario"
	"github.com/gmp-kata/gmp-kata/internal/tracejson"
	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

// traceCommand runs a scenario with the learner's lesson files (or the
// reference's) and draws what the scheduler did as an HTML page, and with
// --json writes it as trace-event JSON for Perfetto too.
var traceCommand = &cli.Command{
	Name:  "trace",
	Usage: "run a scenario with your scheduler and draw what every P and M did, as an HTML page",
	ArgsUsage: "SCENARIO  (one of: " + strings.Join(scenario.Names(), ", ") + ")\n\n" +
		"Your files are those of the lessons you have passed (or --lessons); the reference's fill in the rest.",
	Flags: []cli.Flag{
		&cli.BoolFlag{Name: "reference", Usage: "run the reference scheduler, not your files"},
		&cli.BoolFlag{Name: "compare", Usage: "run yours and the reference's on the same seed, one above the other"},
		&cli.StringFlag{Name: "lessons", Usage: "take your files of these lessons (`L,...`), not of the lessons you have passed"},
		&cli.IntFlag{Name: "procs", Usage: "number of Ps (default: the scenario's own)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed for the steal order"},
		&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "the HTML `FILE` to write (default: trace-SCENARIO.html)"},
		&cli.StringFlag{Name: "json", Usage: "also write the run as Chrome trace-event JSON to `FILE`, to open at ui.perfetto.dev or chrome://tracing"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite the files even if kata did not write them"},
		&cli.BoolFlag{Name: "list", Usage: "list the scenarios and what each shows"},
	},
	Action: runTrace,
}

// traceGenerator marks the pages kata trace writes, so that it replaces
// its own pages and nothing else without asking.
const traceGenerator = `<meta name="generator" content="kata trace">`

// A traced run: whose scheduler, and what it did.
type tracedRun struct {
	who    string // "your scheduler (lessons 01, 02)", "the reference"
	result *scenario.Result
	failed bool // the learner's scheduler went wrong on the way
	// view is the stretch of the run its scenario's story is about, and
	// story what the run did not bear out of it, if anything.
	view  scenario.Window
	story error
}

func runTrace(c *cli.Context) error {
	out := c.App.Writer
	if c.Bool("list") {
		for _, s := range scenario.All() {
			fmt.Fprintf(out, "%-10s %-5s %s\n", s.Name, scenario.Plural(s.Procs, "P"), s.Short)
		}
		return nil
	}
	if c.NArg() != 1 {
		return usageError("trace: name one scenario, like 'kata trace imbalance' (run 'kata trace --list')")
	}
	s, err := scenario.Lookup(c.Args().First())
	if err != nil {
		return usageError("trace: " + err.Error())
	}
	if c.Bool("reference") && c.Bool("compare") {
		return usageError("trace: --compare already runs the reference beside yours; drop --reference")
	}
	procs, seed := c.Int("procs"), c.Uint64("seed")
	if procs < 0 || procs > 64 {
		return usageError(fmt.Sprintf("trace: --procs %d: want 1 to 64", procs))
	}
	file := c.String("out")
	if file == "" {
		file = defaultTraceFile(c, s.Name)
	}
	if err := checkTraceFile(file, "-o", c.Bool("force"), isTracePage); err != nil {
		return usageError(err.Error())
	}
	jsonFile := c.String("json")
	if jsonFile != "" {
		if filepath.Clean(jsonFile) == filepath.Clean(file) {
			return usageError(fmt.Sprintf("trace: --json %s is the HTML page's file too; name another", jsonFile))
		}
		if err := checkTraceFile(jsonFile, "--json", c.Bool("force"), tracejson.Written); err != nil {
			return usageError(err.Error())
		}
	}

	var runs []tracedRun
	if !c.Bool("reference") {
		run, err := traceWorkspace(c, s, procs, seed)
		if err != nil {
			return err
		}
		run.view, run.story = s.Check(run.result)
		runs = append(runs, *run)
	}
	if c.Bool("reference") || c.Bool("compare") {
		// As the book does: the first of a few runs that bears out the
		// scenario's story, with its own number of Ps (with others, the
		// story may not hold, and one run is drawn as it is).
		tries := scenario.Tries
		if procs != 0 && procs != s.Procs {
			tries = 1
		}
		r, view, story := scenario.RunStory(s, procs, seed, tries)
		if r == nil {
			return couldNot(story)
		}
		runs = append(runs, tracedRun{who: "the reference", result: r, view: view, story: story})
	}
	if procs != 0 && procs != s.Procs {
		for i := range runs {
			runs[i].story = nil // the story is told of the scenario's own Ps
		}
	}

	for i, run := range runs {
		if i > 0 {
			fmt.Fprintln(out)
		}
		fmt.Fprintf(out, "== %s\n", run.who)
		scenario.Print(out, run.result, 72)
	}
	var page bytes.Buffer
	if err := tracePage(s, seed, runs).Write(&page); err != nil {
		return couldNot(err)
	}
	html := strings.Replace(page.String(), "<head>", "<head>\n"+traceGenerator, 1)
	if err := os.WriteFile(file, []byte(html), 0o644); err != nil {
		return couldNot(fmt.Errorf("trace: %w", err))
	}
	abs, _ := filepath.Abs(file)
	fmt.Fprintf(out, "\nwrote %s (open it in a browser)\n", abs)
	if jsonFile != "" {
		if err := writeTraceJSON(jsonFile, s, seed, runs); err != nil {
			return couldNot(err)
		}
		abs, _ := filepath.Abs(jsonFile)
		fmt.Fprintf(out, "wrote %s (open it at https://ui.perfetto.dev or chrome://tracing)\n", abs)
	}
	for _, run := range runs {
		if run.failed {
			return cli.Exit("trace: "+run.who+" went wrong (see above); the page shows what it did", exitFailed)
		}
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

// traceWorkspace runs s with the learner's files: those of the lessons
// they passed, or of --lessons.
func traceWorkspace(c *cli.Context, s scenario.Scenario, procs int, seed uint64) (*tracedRun, error) {
	ws, err := findWorkspace(c)
	if err != nil {
		return nil, usageError(err.Error() + " (or run 'kata trace " + s.Name + " --reference')")
	}
	var ls []*lessons.Lesson
	if names := c.String("lessons"); names != "" {
		ls, err = lookupLessons(strings.Split(names, ","))
		if err != nil {
			return nil, err
		}
	} else {
		for _, l := range lessons.Default.All() {
			if ws.Progress.Passed(l.ID) {
				ls = append(ls, l)
			}
		}
	}
	if len(ls) == 0 {
		return nil, usageError("trace: you have not passed a lesson yet, so your scheduler is the reference's; pass one ('kata check 01'), name them with --lessons 01,02, or run with --reference")
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
	fmt.Fprintf(c.App.ErrWriter, "running %s with %s...\n", s.Name, who)
	r, failed, err := traceFiles(c, s, files, procs, seed)
	if err != nil {
		return nil, err
	}
	return &tracedRun{who: who, result: r, failed: failed}, nil
}

// traceFiles runs s in a program of its own built with files (base name →
// path) in place of the reference's. A run that went wrong but got as far
// as Wait returning is still drawn, with what went wrong.
func traceFiles(c *cli.Context, s scenario.Scenario, files map[string]string, procs int, seed uint64) (r *scenario.Result, failed bool, err error) {
	ck, err := checker.New(checker.Options{})
	if err != nil {
		return nil, false, couldNot(err)
	}
	run, err := ck.Trace(c.Context, files, s.Name, procs, seed)
	var failure *checker.CodeFailure
	if run == nil {
		if errors.As(err, &failure) {
			return nil, true, cli.Exit("trace: your scheduler did not get through "+s.Name+":\n"+err.Error(), exitFailed)
		}
		return nil, false, couldNot(err)
	}
	r = &scenario.Result{Scenario: s, Procs: run.Procs, Seed: run.Seed, Events: run.Events}
	if run.WaitErr != "" {
		r.Err = errors.New(run.WaitErr)
	}
	if err != nil {
		fmt.Fprintf(c.App.ErrWriter, "trace: your scheduler went wrong; the page shows the run as far as it got:\n%v\n", err)
		return r, true, nil
	}
	return r, false, nil
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
		Subtitle: fmt.Sprintf("%s. Seed %d.", s.Short, seed),
	}
	for i, run := range runs {
		r := run.result
		sum := scenario.Summarize(r)
		pr := diagram.PageRun{
			Heading: fmt.Sprintf("%s%s: %s, %s", strings.ToUpper(run.who[:1]), run.who[1:], scenario.Plural(r.Procs, "P"), sum.Span.Round(time.Microsecond)),
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
