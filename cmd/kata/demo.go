package main

import (
	"fmt"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/scenario"
	"github.com/urfave/cli/v2"
)

// demoCommand runs a scenario on the reference scheduler and prints what
// each P did.
var demoCommand = &cli.Command{
	Name:      "demo",
	Usage:     "run a scenario on the reference scheduler and show what each P did",
	ArgsUsage: "[SCENARIO]  (one of: " + strings.Join(scenario.Names(), ", ") + "; default imbalance)",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "procs", Usage: "number of Ps (default: the scenario's own)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed for the steal order"},
		&cli.IntFlag{Name: "width", Value: 72, Usage: "width of the timeline, in columns"},
		&cli.BoolFlag{Name: "all", Usage: "run every scenario"},
	},
	Action: runDemo,
}

func runDemo(c *cli.Context) error {
	if c.NArg() > 1 {
		return usageError(fmt.Sprintf("demo: one scenario at a time, got %d (run 'kata demo --all' for all)", c.NArg()))
	}
	var todo []scenario.Scenario
	switch {
	case c.Bool("all"):
		todo = scenario.All()
	case c.NArg() == 1:
		s, err := scenario.Lookup(c.Args().First())
		if err != nil {
			return usageError("demo: " + err.Error())
		}
		todo = append(todo, s)
	default:
		s, _ := scenario.Lookup("imbalance")
		todo = append(todo, s)
	}
	for i, s := range todo {
		if i > 0 {
			fmt.Fprintln(c.App.Writer)
		}
		r, err := scenario.Run(s, c.Int("procs"), c.Uint64("seed"))
		if err != nil {
			return couldNot(err)
		}
		scenario.Print(c.App.Writer, r, c.Int("width"))
	}
	return nil
}
