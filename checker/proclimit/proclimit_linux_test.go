package proclimit

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestStartPassesTheInputWhole: the program gets its standard input as
// written, none of it eaten by the gate, and runs with the limits set.
func TestStartPassesTheInputWhole(t *testing.T) {
	input := "first line\nsecond\n" + strings.Repeat("x", 100_000)
	cmd := CommandContext(context.Background(), "cat")
	cmd.Stdin = strings.NewReader(input)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := Start(cmd, Limits{Memory: 64 << 20, CPU: time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if out.String() != input {
		t.Errorf("cat wrote %d bytes starting %.20q, want the %d written", out.Len(), out.String(), len(input))
	}
	limits := CommandContext(context.Background(), "sh", "-c", "ulimit -d; ulimit -t")
	var got bytes.Buffer
	limits.Stdout = &got
	if err := Start(limits, Limits{Memory: 64 << 20, CPU: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	if err := limits.Wait(); err != nil {
		t.Fatal(err)
	}
	if got.String() != "65536\n3\n" {
		t.Errorf("the program ran with limits %q, want 65536 KiB of data and 3 s", got.String())
	}
}

// TestCPULimit: a program that spins is ended at its CPU limit, and
// OverCPU says so; one that does not is not taken for it.
func TestCPULimit(t *testing.T) {
	lim := Limits{CPU: time.Second}
	cmd := CommandContext(context.Background(), "sh", "-c", "while :; do :; done")
	if err := Start(cmd, lim); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err == nil || !OverCPU(cmd.ProcessState, lim) {
		t.Fatalf("a spinning shell ended with %v, used %v: not over its CPU limit", err, cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime())
	}
	ok := CommandContext(context.Background(), "true")
	if err := Start(ok, lim); err != nil {
		t.Fatal(err)
	}
	if err := ok.Wait(); err != nil || OverCPU(ok.ProcessState, lim) {
		t.Fatalf("true: %v, over its CPU limit: %v", err, OverCPU(ok.ProcessState, lim))
	}
}
