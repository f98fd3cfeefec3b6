package main

import (
	"fmt"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

var verifyCommand = &cli.Command{
	Name:      "verify",
	Usage:     "the course's self-check: the reference passes, the skeleton scores 0, every known mistake fails",
	ArgsUsage: "[LESSON...]  (default: all)",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "repeat", Usage: "instead, run the hidden tests `N` times on the reference: any failure is a flaky test"},
		&cli.BoolFlag{Name: "mutate", Usage: "instead, grade machine-made mutants of each lesson's reference file and print the mutation score"},
		&cli.IntFlag{Name: "jobs", Value: 1, Usage: "with --mutate: run `N` mutants at once"},
		&cli.StringSliceFlag{Name: "only", Usage: "with --mutate: only the mutants whose key starts with `KEY` (e.g. runqgrab/)"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "with --mutate: a line for every mutant, not only the survivors"},
		&cli.BoolFlag{Name: "as-check", Usage: "grade as kata check does, the serial tests without the race detector (default: as kata grade does, every test under it)"},
	},
	Action: runVerify,
}

func runVerify(c *cli.Context) error {
	todo, err := lookupLessons(c.Args().Slice())
	if err != nil {
		return err
	}
	if len(todo) == 0 {
		todo = lessons.Default.All()
	}
	ck, err := checker.New(checker.Options{SerialWithoutRace: c.Bool("as-check")})
	if err != nil {
		return couldNot(err)
	}
	w := c.App.Writer
	st := styleFor(w)
	if n := c.Int("repeat"); c.IsSet("repeat") {
		if n < 1 {
			return usageError("verify: --repeat must be at least 1")
		}
		fails, err := ck.Repeat(c.Context, todo, n)
		if err != nil {
			return couldNot(err)
		}
		for name, k := range fails {
			fmt.Fprintf(w, "%s %s failed %d of %d runs on the reference\n", st.red("FLAKY"), name, k, n)
		}
		if len(fails) > 0 {
			return cli.Exit(fmt.Sprintf("verify: %d hidden tests failed on the reference", len(fails)), exitFailed)
		}
		fmt.Fprintf(w, "verify: every hidden test passed %d times on the reference\n", n)
		return nil
	}
	if c.Bool("mutate") {
		return runMutate(c, ck, todo)
	}
	bad := 0
	for _, l := range todo {
		verdicts, err := ck.Verify(c.Context, l)
		if err != nil {
			return couldNot(err)
		}
		for _, v := range verdicts {
			line := v.String()
			if v.OK {
				fmt.Fprintln(w, st.green(line[:4])+line[4:])
				continue
			}
			bad++
			fmt.Fprintln(w, st.red(line[:4])+line[4:])
			for _, t := range v.Result.Tests {
				if (v.Want == "zero") == (t.Status == checker.StatusPass) {
					fmt.Fprintf(w, "       %s %s: %.200s\n", t.Status, t.Name, t.Message)
				}
			}
			if v.Result.Error != "" {
				fmt.Fprintf(w, "       error: %s\n", v.Result.Error)
			}
		}
	}
	if bad > 0 {
		return cli.Exit(fmt.Sprintf("verify: %d verdicts wrong", bad), exitFailed)
	}
	fmt.Fprintln(w, "verify: all good")
	return nil
}
