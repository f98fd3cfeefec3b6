package main

import (
	"fmt"
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
		fmt.Fprintf(w, "Do first: %s\n", strings.Join(todo, ", "))
	}
	return nil
}
