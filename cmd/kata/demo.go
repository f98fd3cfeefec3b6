package main

import (
	"fmt"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/scenario"
	sched "github.com/gmp-kata/gmp-kata/solutions"
	"github.com/urfave/cli/v2"
)

// demoCommand runs a scenario on the reference scheduler and prints what
// each P did; with --schedtrace, also the scheduler's counters as it runs,
// in the format of the runtime's GODEBUG=schedtrace.
var demoCommand = &cli.Command{
	Name:      "demo",
	Usage:     "run a scenario on the reference scheduler and show what each P did",
	ArgsUsage: "[SCENARIO]  (one of: " + strings.Join(scenario.Names(), ", ") + "; default imbalance)",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "procs", Usage: "number of Ps (default: the scenario's own)"},
		&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed for the steal order"},
		&cli.IntFlag{Name: "width", Value: 72, Usage: "width of the timeline, in columns"},
		&cli.BoolFlag{Name: "all", Usage: "run every scenario"},
		&cli.DurationFlag{Name: "schedtrace", Usage: "while it runs, print the scheduler's counters every `DURATION` (1ms, 500us), as GODEBUG=schedtrace prints the runtime's"},
		&cli.BoolFlag{Name: "scheddetail", Usage: "with --schedtrace: every P, M and G too, as GODEBUG=scheddetail=1"},
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
	period, detailed := c.Duration("schedtrace"), c.Bool("scheddetail")
	switch {
	case c.IsSet("schedtrace") && period <= 0:
		return usageError(fmt.Sprintf("demo: --schedtrace %v: want a period above 0, like 1ms", period))
	case detailed && period <= 0:
		return usageError("demo: --scheddetail adds to --schedtrace's lines; add --schedtrace 1ms")
	}
	out := c.App.Writer
	for i, s := range todo {
		if i > 0 {
			fmt.Fprintln(out)
		}
		var watch func(*sched.Runtime)
		if period > 0 {
			// Only the watcher writes to out until RunWatching returns.
			watch = func(rt *sched.Runtime) { rt.SchedTrace(out, detailed) }
		}
		r, err := scenario.RunWatching(s, c.Int("procs"), c.Uint64("seed"), period, watch)
		if err != nil {
			return couldNot(err)
		}
		if period > 0 {
			fmt.Fprintln(out)
		}
		scenario.Print(out, r, c.Int("width"))
	}
	return nil
}
