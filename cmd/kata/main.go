// Command kata is the gmp-kata course's tool: it runs the reference
// scheduler, and (as the course grows) grades a learner's lessons.
package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
)

func main() {
	if err := newApp().Run(os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "kata:", err)
		os.Exit(exitCode(err))
	}
}

// newApp builds the command tree; each command lives in its own file.
func newApp() *cli.App {
	return &cli.App{
		Name:  "kata",
		Usage: "learn the Go scheduler by building it",
		Commands: []*cli.Command{
			demoCommand, // demo.go
		},
	}
}
