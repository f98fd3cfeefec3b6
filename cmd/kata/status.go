package main

import (
	"errors"
	"fmt"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

// runStatus is kata with no command: where the learner is, and the one next
// thing to do.
func runStatus(c *cli.Context) error {
	if c.NArg() > 0 {
		return usageError(fmt.Sprintf("no command %q (run 'kata help')", c.Args().First()))
	}
	w := c.App.Writer
	st := styleFor(w)
	ws, err := workspace.Find(c.String("workspace"))
	if errors.Is(err, workspace.ErrNotFound) {
		fmt.Fprintf(w, "%s — learn the Go scheduler by building it.\n\n", st.bold("gmp-kata"))
		fmt.Fprintf(w, "You have no workspace here yet. Make one, then go into it:\n\n  kata init ~/gmp-kata\n  cd ~/gmp-kata\n\n")
		fmt.Fprintf(w, "The %d lessons: kata list\n", len(lessons.Default.All()))
		fmt.Fprintf(w, "(No kata on your PATH? In the repository: go install ./cmd/kata, or use go run ./cmd/kata instead.)\n")
		return nil
	}
	if err != nil {
		return usageError(err.Error())
	}
	all := lessons.Default.All()
	passed := 0
	for _, l := range all {
		if ws.Progress.Passed(l.ID) {
			passed++
		}
	}
	fmt.Fprintf(w, "Workspace %s: %d of %d lessons passed.\n\n", ws.Dir, passed, len(all))
	next := nextLesson(ws)
	if next == nil {
		fmt.Fprintf(w, "%s Every lesson passes. Run them all together in one scheduler: kata check --all\n", st.green("Done!"))
		return nil
	}
	short := next.ID[:2]
	fmt.Fprintf(w, "Next: %s — %s\n", st.bold(next.ID), next.Title)
	lp := ws.Progress.Lessons[next.ID]
	switch {
	case lp != nil && lp.Status == "fail":
		fmt.Fprintf(w, "Your last check scored %d/%d. Edit %s, then: kata check %s", lp.Score, lp.MaxScore, join(next.Files), short)
		if lp.HintLevel < len(next.Hints) {
			fmt.Fprintf(w, "   (stuck? kata hint %s)", short)
		}
		fmt.Fprintln(w)
	case ws.Touched(next):
		fmt.Fprintf(w, "You have started %s. When it is ready: kata check %s\n", join(next.Files), short)
	default:
		fmt.Fprintf(w, "Read the task (kata task %s), write %s, then: kata check %s\n", short, join(next.Files), short)
	}
	return nil
}
