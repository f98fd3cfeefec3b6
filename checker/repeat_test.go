package checker

import (
	"context"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

// TestRepeatCountsEveryFailure runs Repeat on a module of its own whose
// one hidden test fails every second time it runs in a process: whatever
// the number of processes the runs are shared between (repeatShares), 12
// runs are 6 failures, and each run of each test is counted once.
func TestRepeatCountsEveryFailure(t *testing.T) {
	dir := t.TempDir()
	err := writeFiles(dir, map[string][]byte{
		"go.mod":                 []byte("module gmpkata.grade\n\ngo 1.26\n"),
		"solutions/sched.go":     []byte("package sched\n"),
		"hidden/kit/kit_test.go": []byte("package sched\n"),
		"hidden/flaky/f_test.go": []byte(`package sched

import "testing"

var runs int

func TestSteady(t *testing.T) {}

func TestFlaky(t *testing.T) {
	runs++
	if runs%2 == 0 {
		t.Fatal("every second run")
	}
}
`),
	})
	if err != nil {
		t.Fatal(err)
	}
	c := &Checker{mod: moduleAt(dir), key: []byte("repeat"), opts: Options{NoRace: true}}
	l := &lessons.Lesson{ID: "flaky", Tests: []lessons.Test{{Name: "TestSteady", Timeout: time.Minute}, {Name: "TestFlaky", Timeout: time.Minute}}}
	fails, err := c.Repeat(context.Background(), []*lessons.Lesson{l}, 12)
	if err != nil {
		t.Fatal(err)
	}
	if len(fails) != 1 || fails["TestFlaky"] != 6 {
		t.Errorf("Repeat of 12 runs = %v, want TestFlaky failing 6 times and nothing else", fails)
	}
}

func TestRepeatShares(t *testing.T) {
	for _, c := range []struct {
		n, cpus int
		want    []int
	}{{12, 2, []int{6, 6}}, {5, 2, []int{3, 2}}, {1, 8, []int{1}}, {7, 1, []int{7}}, {3, 0, []int{3}}} {
		got := repeatShares(c.n, c.cpus)
		sum := 0
		for _, k := range got {
			sum += k
		}
		if len(got) != len(c.want) || sum != c.n || got[0] != c.want[0] {
			t.Errorf("repeatShares(%d, %d) = %v, want %v", c.n, c.cpus, got, c.want)
		}
	}
}
