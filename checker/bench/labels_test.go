package bench

import (
	"slices"
	"testing"
)

// TestDropLabels: the testing package's labels are dropped from a failed
// benchmark's output, and a panic line they cut in two is joined again
// (CI once showed a stub's panic as "panic: goos: linux").
func TestDropLabels(t *testing.T) {
	got := dropLabels([]string{
		"panic: goos: linux",
		"goarch: amd64",
		"pkg: github.com/gmp-kata/gmp-kata/solutions",
		"cpu: AMD EPYC",
		"not implemented: (*randomOrder).reset [recovered]",
		"goroutine 7 [running]:",
	})
	want := []string{"panic: not implemented: (*randomOrder).reset [recovered]", "goroutine 7 [running]:"}
	if !slices.Equal(got, want) {
		t.Errorf("dropLabels: %q, want %q", got, want)
	}
	plain := []string{"goos: linux", "panic: boom", "goroutine 1 [running]:"}
	if got := dropLabels(plain); !slices.Equal(got, plain[1:]) {
		t.Errorf("dropLabels: %q, want %q", got, plain[1:])
	}
}
