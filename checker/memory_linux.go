//go:build linux

package checker

import (
	"bytes"
	"os"
	"strconv"
)

// memoryLimitEnforced says whether MaxMemory works on this system.
const memoryLimitEnforced = true

// groupRSS returns the resident memory, in bytes, of every process in
// process group pgid together: the go command, the compiler and linker it
// starts, and the test binary. It reads /proc/PID/stat (fields 5, pgrp, and
// 24, rss in pages) of every process; a process that exits meanwhile is
// skipped.
func groupRSS(pgid int) int64 {
	dir, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	page := int64(os.Getpagesize())
	want := []byte(strconv.Itoa(pgid))
	var total int64
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		// The command name (field 2) is in parentheses and may hold
		// spaces; the fields after it are space-separated.
		i := bytes.LastIndexByte(data, ')')
		if i < 0 || i+2 > len(data) {
			continue
		}
		f := bytes.Fields(data[i+2:])
		// f[0] is field 3 (state): pgrp is f[2], rss is f[21].
		if len(f) < 22 || !bytes.Equal(f[2], want) {
			continue
		}
		if rss, err := strconv.ParseInt(string(f[21]), 10, 64); err == nil {
			total += rss * page
		}
	}
	return total
}
