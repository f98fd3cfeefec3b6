// Command kata is the gmp-kata course's tool: the learner's loop (init,
// list, task, check, hint, quiz, watch, reset, solution), the course's
// self-check (verify), and a look at the reference scheduler (demo).
//
// Each command lives in its own file, named after it. Only this package
// turns errors into exit codes (exitcodes.go).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"

	"github.com/urfave/cli/v2"

	_ "github.com/gmp-kata/gmp-kata/lessons/all"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), stopSignals...)
	defer stop()
	app := newApp()
	if err := app.RunContext(ctx, flagsFirst(app, os.Args)); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, "kata:", msg)
		}
		os.Exit(exitCode(err))
	}
}

// newApp builds the command tree.
func newApp() *cli.App {
	app := &cli.App{
		Name:  "kata",
		Usage: "learn the Go scheduler by building it",
		Description: "Run kata with no command to see where you are and what to do next.\n" +
			"Start with: kata init DIR",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "workspace", Aliases: []string{"w"}, EnvVars: []string{"KATA_WORKSPACE"},
				Usage: "the workspace `DIR` (default: the current directory or the nearest one above it)"},
		},
		Action: runStatus, // status.go
		Commands: []*cli.Command{
			initCommand,     // init.go
			listCommand,     // list.go
			taskCommand,     // task.go
			checkCommand,    // check.go
			hintCommand,     // hint.go
			quizCommand,     // quiz.go
			watchCommand,    // watch.go
			resetCommand,    // reset.go
			solutionCommand, // solution.go
			verifyCommand,   // verify.go
			gradeCommand,    // grade.go
			demoCommand,     // demo.go
			benchCommand,    // bench.go
			bookCommand,     // book.go
			traceCommand,    // trace.go
		},
		ExitErrHandler: func(*cli.Context, error) {}, // main prints and exits
		OnUsageError:   onUsageError,
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = onUsageError
	}
	return app
}

// onUsageError turns a flag the command does not know into exit code 2,
// with where to look.
func onUsageError(c *cli.Context, err error, _ bool) error {
	name := "kata"
	if c.Command != nil && c.Command.Name != "" {
		name += " " + c.Command.Name
	}
	return cli.Exit(fmt.Sprintf("%v (run '%s --help')", err, name), exitUsage)
}
