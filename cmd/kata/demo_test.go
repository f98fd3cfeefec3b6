package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoSchedTrace: --schedtrace prints the runtime's SCHED lines while
// the scenario runs, the first before it starts (only sysmon exists, every
// P is idle), then the usual summary.
func TestDemoSchedTrace(t *testing.T) {
	out, errOut, code := kata(t, t.TempDir(), "demo", "burst", "--schedtrace", "1ms")
	require.Equal(t, exitOK, code, errOut)
	line := regexp.MustCompile(`^SCHED \d+ms: gomaxprocs=4 idleprocs=[0-4] threads=\d+ spinningthreads=\d+ needspinning=[01] idlethreads=\d+ runqueue=\d+ \[( \d+){4} \] schedticks=\[ (\d+ ){4}\]$`)
	lines := strings.Split(out, "\n")
	require.Equal(t, "SCHED 0ms: gomaxprocs=4 idleprocs=4 threads=1 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 [ 0 0 0 0 ] schedticks=[ 0 0 0 0 ]", lines[0],
		"before the scenario starts, only sysmon exists and every P is idle")
	n := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "SCHED") {
			assert.Regexp(t, line, l)
			n++
		}
	}
	assert.GreaterOrEqual(t, n, 3, "burst runs for over 10ms; a line every 1ms:\n%s", out)
	assert.Contains(t, out, "scenario burst:", "the summary follows the lines")

	out, errOut, code = kata(t, t.TempDir(), "demo", "hog", "--schedtrace", "1ms", "--scheddetail")
	require.Equal(t, exitOK, code, errOut)
	// sysmon (M0) may already be in its deep sleep, every P being idle.
	assert.Regexp(t, `^SCHED 0ms: gomaxprocs=1 idleprocs=1 threads=1 spinningthreads=0 needspinning=0 idlethreads=0 runqueue=0 gcwaiting=false nmidlelocked=0 stopwait=0 sysmonwait=(true|false)\n`+
		`  P0: status=0 schedtick=0 syscalltick=0 m=nil runqsize=0 gfreecnt=0 timerslen=0\n`+
		`  M0: p=nil curg=nil mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=false blocked=(true|false) lockedg=nil\n`+
		`SCHED `, out, "before the scenario starts: one idle P, sysmon, no G")
	assert.Regexp(t, `(?m)^  G1: status=\d\(.*\) m=(\d+|nil) lockedm=nil$`, out, "G lines, once the scenario has started")

	for _, args := range [][]string{
		{"demo", "--scheddetail"},
		{"demo", "--schedtrace", "0s"},
	} {
		_, errOut, code := kata(t, t.TempDir(), args...)
		assert.Equal(t, exitUsage, code, "kata %s", strings.Join(args, " "))
		assert.Contains(t, errOut, "--schedtrace", "kata %s must say what to add", strings.Join(args, " "))
	}
}
