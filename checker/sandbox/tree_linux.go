package sandbox

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// processes reads the process table from /proc: every process's
// /proc/PID/stat (fields 3, state, 4, ppid, and 24, rss in pages). A
// process that exits meanwhile is left out.
func processes() []proc {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil
	}
	defer dir.Close()
	names, _ := dir.Readdirnames(-1)
	page := int64(os.Getpagesize())
	procs := make([]proc, 0, len(names))
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(name)
		if err != nil {
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
		// f[0] is field 3 (state): ppid is f[1], rss is f[21].
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(string(f[1]))
		rss, _ := strconv.ParseInt(string(f[21]), 10, 64)
		procs = append(procs, proc{pid: pid, ppid: ppid, rss: rss * page, zombie: string(f[0]) == "Z"})
	}
	return procs
}

// MemoryOf returns the resident memory, in bytes, of process pid and of
// every process it started, and they started, and so on, together.
func MemoryOf(pid int) int64 {
	return treeMemory(processes(), pid)
}

// killTree kills every process of the tree rooted at root but root: it
// stops them first (a stopped process starts no other), then kills them,
// and does it again until none is left (or it has tried long enough).
// Processes that leave the tree while it works (their parent exited)
// reparent to root if root is a subreaper, as Start's init is.
func killTree(root int) {
	for range 50 {
		var live []int
		for _, p := range descendants(processes(), root) {
			if p.pid != root && !p.zombie {
				live = append(live, p.pid)
			}
		}
		if len(live) == 0 {
			return
		}
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGSTOP)
		}
		for _, pid := range live {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(time.Millisecond)
	}
}
