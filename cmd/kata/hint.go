package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

var hintCommand = &cli.Command{
	Name:      "hint",
	Usage:     "show a lesson's next hint (a nudge, then the idea, then the near-answer)",
	ArgsUsage: "LESSON",
	Flags: []cli.Flag{
		&cli.IntFlag{Name: "level", Usage: "show hint `N` (1 is the gentlest) instead of the next one"},
	},
	Action: runHint,
}

func runHint(c *cli.Context) error {
	l, ws, err := lessonInWorkspace(c)
	if err != nil {
		return err
	}
	lp := ws.Progress.Lesson(l.ID)
	level := lp.HintLevel + 1
	if c.IsSet("level") {
		level = c.Int("level")
		if level < 1 || level > len(l.Hints) {
			return usageError(fmt.Sprintf("hint: --level %d: lesson %s has hints 1 to %d", level, l.ID, len(l.Hints)))
		}
	}
	if level > len(l.Hints) {
		level = len(l.Hints)
	}
	w := c.App.Writer
	st := styleFor(w)
	fmt.Fprintf(w, "%s (%d of %d)\n\n%s\n", st.bold(l.ID+" hint"), level, len(l.Hints), l.Hints[level-1])
	if level < len(l.Hints) {
		fmt.Fprintf(w, "\nStill stuck? Run it again for hint %d.\n", level+1)
	} else {
		fmt.Fprintf(w, "\nThat was the last hint. Once it passes, 'kata solution %s' shows the reference.\n", l.ID[:2])
	}
	if level > lp.HintLevel {
		lp.HintLevel = level
		if err := ws.Save(); err != nil {
			return couldNot(err)
		}
	}
	return nil
}
