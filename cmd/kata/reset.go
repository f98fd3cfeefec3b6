package main

import (
	"fmt"

	"github.com/urfave/cli/v2"
)

var resetCommand = &cli.Command{
	Name:      "reset",
	Usage:     "start a lesson over: restore its files to the skeleton (yours are saved first)",
	ArgsUsage: "LESSON",
	Action:    runReset,
}

func runReset(c *cli.Context) error {
	l, ws, err := lessonInWorkspace(c)
	if err != nil {
		return err
	}
	saved, err := ws.Reset(l)
	if err != nil {
		return couldNot(err)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "Restored %s to the skeleton.\n", join(l.Files))
	if saved != "" {
		fmt.Fprintf(w, "Your version is saved in %s\n", saved)
	}
	return nil
}
