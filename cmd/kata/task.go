package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/urfave/cli/v2"
)

var taskCommand = &cli.Command{
	Name:      "task",
	Usage:     "show what a lesson asks you to write",
	ArgsUsage: "LESSON",
	Action:    runTask,
}

func runTask(c *cli.Context) error {
	l, err := oneLesson(c)
	if err != nil {
		return err
	}
	w := c.App.Writer
	fmt.Fprintln(w, strings.TrimSpace(l.Task))
	fmt.Fprintln(w)
	writeAPI(w, l.API)
	todo := l.Prereqs
	if ws, err := workspace.Find(c.String("workspace")); err == nil {
		for _, f := range l.Files {
			fmt.Fprintf(w, "Your file: %s\n", filepath.Join(ws.Dir, f))
		}
		todo = nil
		for _, id := range l.Prereqs {
			if !ws.Progress.Passed(id) {
				todo = append(todo, id)
			}
		}
	}
	if len(todo) > 0 {
		fmt.Fprintf(w, "Best done first (this lesson builds on them; until you pass them, checks use the reference's files in their place): %s\n", strings.Join(todo, ", "))
	}
	return nil
}

// writeAPI lists what a lesson file may use of the reference (the
// lesson's api.txt), a few names a line.
func writeAPI(w io.Writer, api []string) {
	fmt.Fprintln(w, "This lesson's API (what your file may use of the rest of the scheduler, besides its own declarations):")
	line := " "
	for _, name := range api {
		if len(line)+1+len(name) > 88 {
			fmt.Fprintln(w, line)
			line = " "
		}
		line += " " + name
	}
	if line != " " {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w, "Your file keeps no state of its own (no package-level variables, its own or another package's:")
	fmt.Fprintln(w, "the scheduler's state lives in its structures; constants are fine) and starts no goroutine;")
	fmt.Fprintln(w, "kata check names any line that breaks a rule of lesson files, and why.")
	fmt.Fprintln(w)
}
