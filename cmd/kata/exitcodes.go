package main

import (
	"errors"

	"github.com/urfave/cli/v2"
)

// Exit codes of kata. They are part of its interface (scripts and CI read
// them): never renumber them.
const (
	exitOK       = 0 // everything checked passed
	exitFailed   = 1 // something checked failed
	exitUsage    = 2 // the command line was wrong
	exitCouldNot = 3 // kata could not run the check at all
)

// exitCode maps an error from a command to kata's exit code.
func exitCode(err error) int {
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	return exitCouldNot
}
