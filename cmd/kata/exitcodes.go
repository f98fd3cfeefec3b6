package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// Exit codes of kata. They are part of its interface (scripts, CI and the
// GitHub Classroom workflow read them): never renumber them.
const (
	exitOK       = 0 // everything checked passed
	exitFailed   = 1 // something checked failed
	exitUsage    = 2 // the command line was wrong
	exitCouldNot = 3 // kata could not run the check at all
)

// exitCode maps an error from a command to kata's exit code: a cli.Exit
// error carries its own; anything else means kata could not do its job.
func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return exitCouldNot
}

// usageError is a wrong command line, with what to do instead.
func usageError(msg string) error {
	return cli.Exit(msg, exitUsage)
}

// couldNot is an error that stopped kata from doing its job.
func couldNot(err error) error {
	return cli.Exit(err.Error(), exitCouldNot)
}
