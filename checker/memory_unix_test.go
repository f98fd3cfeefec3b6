//go:build !windows

package checker

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSumGroupRSS(t *testing.T) {
	out := []byte("    1  1200\n  42   3000\n 4242  9999\n  42     24\n\n  42 oops\n  42\n")
	assert.EqualValues(t, (3000+24)<<10, sumGroupRSS(out, 42), "only pgid 42's rss lines, in KiB")
	assert.Zero(t, sumGroupRSS(out, 7), "no such group")
}

// TestGroupRSSAgrees reads this test's own process group both ways kata
// can (ps everywhere but Windows; /proc on Linux, where groupRSS reads it)
// and wants them to agree, so that the macOS path is exercised on Linux.
func TestGroupRSSAgrees(t *testing.T) {
	if _, err := exec.LookPath("ps"); err != nil {
		t.Skip("no ps on this system")
	}
	pgid := syscall.Getpgrp()
	viaPS, native := psGroupRSS(pgid), groupRSS(pgid)
	require.Positive(t, viaPS, "ps -A -o pgid=,rss= says nothing of this process group (%d)", pgid)
	require.Positive(t, native)
	// Taken a moment apart, by two methods: they agree within a quarter,
	// plus slack for the ps process itself if it is in the group.
	assert.InDelta(t, native, viaPS, float64(native)/4+16<<20, "ps: %d KiB, groupRSS: %d KiB", viaPS>>10, native>>10)
}
