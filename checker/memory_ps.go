//go:build !windows

package checker

import (
	"bytes"
	"os/exec"
	"strconv"
)

// psGroupRSS returns the resident memory, in bytes, of every process in
// process group pgid together, as ps(1) reports it: the way to read it on
// a Unix without /proc (macOS, the BSDs). Both BSD and procps ps accept
// these options and give rss in KiB. It returns 0 if ps cannot be run.
func psGroupRSS(pgid int) int64 {
	out, err := exec.Command("ps", "-A", "-o", "pgid=,rss=").Output()
	if err != nil {
		return 0
	}
	return sumGroupRSS(out, pgid)
}

// sumGroupRSS adds up the rss column (KiB) of the lines of ps output whose
// pgid column is pgid.
func sumGroupRSS(out []byte, pgid int) int64 {
	want := []byte(strconv.Itoa(pgid))
	var total int64
	for line := range bytes.Lines(out) {
		f := bytes.Fields(line)
		if len(f) != 2 || !bytes.Equal(f[0], want) {
			continue
		}
		if kib, err := strconv.ParseInt(string(f[1]), 10, 64); err == nil {
			total += kib << 10
		}
	}
	return total
}
