package longtest

import (
	"os"
	"strings"
	"testing"
)

// Var is the environment variable that turns the long tests on.
const Var = "KATA_LONG"

// Enabled reports whether the long tests run: KATA_LONG is set to
// anything but "" or "0", and the run is not -short.
func Enabled() bool {
	v := os.Getenv(Var)
	return v != "" && v != "0" && !testing.Short()
}

// Skip skips t unless the long tests run, saying what it would have done
// (what: "grades the whole course once per alternate") and how to run it.
// Call it before the test does any work.
func Skip(t testing.TB, what string) {
	t.Helper()
	if !Enabled() {
		t.Skip(skipMessage(runPattern(t.Name()), what))
	}
}

func skipMessage(test, what string) string {
	return "long test, not run: it " + what + ". Run it with " + Var + "=1 (CI does), e.g. " +
		Var + "=1 go test -run '" + test + "' in this package"
}

// runPattern is a -run pattern that matches the test named name and no
// other: each part of the name anchored ("^TestX$/^alone$").
func runPattern(name string) string {
	return "^" + strings.ReplaceAll(name, "/", "$/^") + "$"
}

// Pick is normal in `go test ./...` and long with KATA_LONG=1: the size
// of a loop that runs either way, longer in CI.
func Pick[T any](normal, long T) T {
	if Enabled() {
		return long
	}
	return normal
}
