package sched

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlainSlotsAreARace backs the reason the ring's slots are atomic
// pointers (the p struct in runtime2.go, and the book's primer on memory
// order): with the runtime's plain slots, a thief's read of a slot before
// its CAS races with the owner reusing the slot, and the race detector
// says so; with atomic slots it does not. testdata/plainslots is the
// program, built with -race and run both ways.
func TestPlainSlotsAreARace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program with -race")
	}
	bin := filepath.Join(t.TempDir(), "plainslots")
	build := exec.Command("go", "build", "-race", "-o", bin, "./testdata/plainslots")
	if out, err := build.CombinedOutput(); err != nil {
		if s := string(out); strings.Contains(s, "-race is not supported") || strings.Contains(s, "-race requires cgo") {
			t.Skipf("no race detector here: %s", strings.TrimSpace(s))
		}
		t.Fatalf("go build -race ./testdata/plainslots: %v\n%s", err, out)
	}
	// run returns the program's output and exit code; GORACE fixes the
	// code a race gives, whatever the caller's GORACE says.
	run := func(args ...string) (string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "GORACE=exitcode=66")
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return string(out), exit.ExitCode()
		}
		if err != nil {
			t.Fatalf("run plainslots %v: %v", args, err)
		}
		return string(out), 0
	}

	out, code := run()
	if code != 66 || !strings.Contains(out, "WARNING: DATA RACE") {
		t.Fatalf("plain slots: exit code %d and no race report, want the race detector to report the thief's read of a slot against the owner's reuse of it (exit code 66):\n%s", code, out)
	}
	for _, access := range []string{"main.(*plainSlots).load", "main.(*plainSlots).store"} {
		if !strings.Contains(out, access) {
			t.Errorf("plain slots: the race report does not name %s, want the slot read and the slot write as the two accesses:\n%s", access, out)
		}
	}
	if !strings.Contains(out, "lost its CAS") {
		t.Errorf("plain slots: the thief's CAS succeeded, want it to fail (the owner took the G first): the race is the read of a G that is then thrown away:\n%s", out)
	}

	out, code = run("-atomic")
	if code != 0 || strings.Contains(out, "DATA RACE") {
		t.Fatalf("atomic slots: exit code %d, want 0 and no race report: atomic loads and stores of a slot do not race:\n%s", code, out)
	}
}
