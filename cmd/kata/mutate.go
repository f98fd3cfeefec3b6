package main

import (
	"fmt"
	"strings"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

// runMutate is kata verify --mutate: each lesson's mutation score, the
// mutants that survived, and a failure where a score is under the lesson's
// minimum or an equivalence claim no longer holds.
func runMutate(c *cli.Context, ck *checker.Checker, todo []*lessons.Lesson) error {
	w := c.App.Writer
	st := styleFor(w)
	opts := checker.MutationOptions{Jobs: c.Int("jobs"), Only: c.StringSlice("only")}
	if c.Bool("verbose") {
		opts.Progress = func(done, total int, m checker.MutantResult) {
			fmt.Fprintf(w, "  [%d/%d] %-9s %s (line %d): %s  %s %s\n", done, total, m.Status, m.Key, m.Line, m.Change, m.By, m.Message)
		}
	}
	bad := 0
	var summary []string
	for _, l := range todo {
		rep, err := ck.Mutate(c.Context, l, opts)
		if err != nil {
			return couldNot(err)
		}
		for _, m := range rep.Mutants {
			if m.Status == checker.MutantSurvived {
				fmt.Fprintf(w, "%s %s %s (line %d): %s\n", st.red("SURVIVED"), l.ID[:2], m.Key, m.Line, m.Change)
			}
		}
		for _, s := range rep.Stale {
			fmt.Fprintf(w, "%s %s %s\n", st.red("STALE"), l.ID[:2], s)
		}
		line := fmt.Sprintf("%s %s: %5.1f%% of %d mutants killed (%d killed, %d survived, %d equivalent, %d did not compile; minimum %.0f%%) in %.0fs",
			l.ID, rep.File, 100*rep.Score(), rep.Killed+rep.Survived, rep.Killed, rep.Survived, rep.Equivalent, rep.Uncompiled, 100*rep.Minimum, rep.WallTime)
		if rep.OK() {
			line = st.green("ok  ") + " " + line
		} else {
			line = st.red("FAIL") + " " + line
			bad++
		}
		fmt.Fprintln(w, line)
		summary = append(summary, line)
	}
	if len(todo) > 1 {
		fmt.Fprintln(w, "\n"+strings.Join(summary, "\n"))
	}
	if bad > 0 {
		return cli.Exit(fmt.Sprintf("verify --mutate: %d lessons under their minimum score or with stale equivalence claims", bad), exitFailed)
	}
	return nil
}
