package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/urfave/cli/v2"
)

var solutionCommand = &cli.Command{
	Name:      "solution",
	Usage:     "show the reference for a lesson you have passed (or a diff against your file)",
	ArgsUsage: "LESSON",
	Flags: []cli.Flag{
		&cli.BoolFlag{Name: "diff", Usage: "show how your file differs from the reference"},
		&cli.BoolFlag{Name: "force", Usage: "show it before you have passed (it spoils the lesson)"},
	},
	Action: runSolution,
}

func runSolution(c *cli.Context) error {
	l, ws, err := lessonInWorkspace(c)
	if err != nil {
		return err
	}
	if !ws.Progress.Passed(l.ID) && !c.Bool("force") {
		return usageError(fmt.Sprintf("solution: you have not passed %s yet. Keep going (kata hint %s), or see the reference anyway with --force", l.ID, l.ID[:2]))
	}
	w := c.App.Writer
	for _, f := range l.Files {
		ref, err := workspace.Reference(f)
		if err != nil {
			return couldNot(err)
		}
		if !c.Bool("diff") {
			fmt.Fprintf(w, "// ===== %s (reference) =====\n%s\n", f, ref)
			continue
		}
		mine, err := os.ReadFile(filepath.Join(ws.Dir, f))
		if err != nil {
			return couldNot(fmt.Errorf("reading your %s: %w", f, err))
		}
		fmt.Fprint(w, unifiedDiff("yours/"+f, "reference/"+f, string(mine), string(ref)))
	}
	return nil
}
