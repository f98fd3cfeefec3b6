package main

import (
	"fmt"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/urfave/cli/v2"
)

var initCommand = &cli.Command{
	Name:      "init",
	Usage:     "make a workspace: the scheduler with the lessons' parts left for you to write",
	ArgsUsage: "DIR",
	Flags: []cli.Flag{
		&cli.BoolFlag{Name: "force", Usage: "write into a non-empty DIR (files replaced are saved in .kata/backup first)"},
	},
	Action: runInit,
}

func runInit(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("init: name the directory to make, like 'kata init ~/gmp-kata'")
	}
	ws, err := workspace.Init(c.Args().First(), c.Bool("force"))
	if err != nil {
		return usageError(err.Error())
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Made a workspace in %s.\n\n", ws.Dir)
	fmt.Fprintf(w, "  cd %s\n  kata task 01      # what lesson 01 asks\n  kata check 01     # grade your runq.go\n  kata              # where you are, any time\n", ws.Dir)
	return nil
}
