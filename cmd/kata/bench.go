package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/bench"
	"github.com/gmp-kata/gmp-kata/checker/program"
	"github.com/urfave/cli/v2"
)

// benchCommand times a lesson's code, the learner's against the
// reference's and against Go's own runtime (package checker/bench).
var benchCommand = &cli.Command{
	Name:      "bench",
	Usage:     "time your code for a lesson against the reference's and Go's own runtime",
	ArgsUsage: "LESSON",
	Description: "Builds the lesson's benchmarks twice, with your files and with the reference's,\n" +
		"runs the two alternately --count times and reports medians, the spread of the\n" +
		"runs, and the ratios yours/reference and reference/native (Go's own runtime).\n" +
		"A difference is called out only when the runs are clearly apart (a Mann-Whitney\n" +
		"U test, as benchstat does); otherwise it is within noise.",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "count", Value: bench.DefaultCount, Usage: "runs of each side (at least 4 to tell a difference from noise)"},
		&cli.DurationFlag{Name: "benchtime", Value: bench.DefaultBenchtime, Usage: "time each benchmark runs for, per run"},
		formatFlag(),
	},
	Action: runBench,
}

func runBench(c *cli.Context) error {
	asJSON, err := checkFormat(c)
	if err != nil {
		return err
	}
	if n := c.Int("count"); n < 1 || n > 50 {
		return usageError(fmt.Sprintf("bench: --count %d: want 1 to 50", n))
	}
	if d := c.Duration("benchtime"); d <= 0 {
		return usageError(fmt.Sprintf("bench: --benchtime %s: want a positive duration, like 100ms", d))
	}
	l, ws, err := lessonInWorkspace(c)
	if err != nil {
		return err
	}
	ck, err := checker.New(checker.Options{})
	if err != nil {
		return couldNot(err)
	}
	opts := bench.Options{Count: c.Int("count"), Benchtime: c.Duration("benchtime")}
	if !asJSON {
		st := styleFor(c.App.ErrWriter)
		opts.Progress = func(msg string) { fmt.Fprintln(c.App.ErrWriter, st.dim(msg+"…")) }
	}
	res, err := bench.Run(c.Context, ck, l, ws.LessonFiles(l), opts)
	var cf *program.CodeFailure
	switch {
	case errors.As(err, &cf):
		if asJSON {
			if err := benchJSON(c.App.Writer, map[string]any{"id": l.ID, "title": l.Title, "error": cf.Error()}); err != nil {
				return couldNot(err)
			}
			return cli.Exit("", exitFailed)
		}
		return cli.Exit(cf.Error(), exitFailed)
	case err != nil:
		return couldNot(err)
	}
	if asJSON {
		if err := benchJSON(c.App.Writer, res); err != nil {
			return couldNot(err)
		}
		return nil
	}
	printBench(c.App.Writer, res)
	return nil
}

func benchJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printBench writes the table for a person: one row per benchmark, what
// each measures, and the reading of each.
func printBench(w io.Writer, res *bench.Result) {
	st := styleFor(w)
	fmt.Fprintf(w, "%s  %s\n", st.bold(res.ID), res.Title)
	fmt.Fprintf(w, "%s\n\n", st.dim(fmt.Sprintf("%d runs of each side, %s a benchmark a run, GOMAXPROCS %d; times are medians of ns/op ± the farthest run",
		res.Count, benchSeconds(res.Benchtime), res.GOMAXPROCS)))
	// Names on the left, numbers on the right: the names are padded to
	// one width, so that right-aligning them changes nothing.
	nameW := len("benchmark")
	for _, r := range res.Rows {
		nameW = max(nameW, len(r.Short))
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%-*s\tyours\treference\tnative\tyours/ref\tref/native\t\n", nameW, "benchmark")
	for _, r := range res.Rows {
		native, refNative := "—", "—"
		if r.Native != nil {
			native, refNative = benchSideText(*r.Native), fmt.Sprintf("%.2f×", r.ReferenceVsNative)
		}
		ratio := fmt.Sprintf("%.2f×", r.YoursVsReference)
		if !r.Significant {
			ratio = "~ " + ratio
		}
		fmt.Fprintf(tw, "%-*s\t%s\t%s\t%s\t%s\t%s\t\n", nameW, r.Short, benchSideText(r.Yours), benchSideText(r.Reference), native, ratio, refNative)
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, r := range res.Rows {
		fmt.Fprintf(w, "%s  %s\n", st.bold(fmt.Sprintf("%-*s", nameW, r.Short)), st.dim(r.About))
	}
	fmt.Fprintln(w)
	for _, r := range res.Rows {
		line := r.Reading
		if r.Significant && r.YoursVsReference > 1 && !strings.Contains(line, "the same") {
			line = st.red(line)
		} else if r.Significant && r.YoursVsReference < 1 && !strings.Contains(line, "the same") {
			line = st.green(line)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, st.dim("~ marks a ratio within noise; ref/native is how the reference compares with Go's own runtime."))
}

// benchSideText is a median with its spread: "12.3ns ±4%".
func benchSideText(s bench.Side) string {
	return fmt.Sprintf("%s ±%.0f%%", benchNs(s.Median), s.Spread*100)
}

// benchNs shows a time in ns/op with three significant digits and a unit.
func benchNs(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3gms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3gµs", ns/1e3)
	default:
		return fmt.Sprintf("%.3gns", ns)
	}
}

func benchSeconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%gms", s*1000)
	}
	return fmt.Sprintf("%gs", s)
}
