package sandbox

import (
	"bytes"
	"strconv"
)

// A proc is one process of the system, as the process table says.
type proc struct {
	pid, ppid int
	rss       int64 // resident memory, in bytes
	zombie    bool  // exited, not yet reaped
}

// descendants returns the processes of procs in the tree rooted at root,
// root included if it is in procs. A process whose parent exited belongs
// to whoever reaps it (the sandbox's init, which is the root of the run's
// tree, or a subreaper): so in the sandbox and under the init of
// Start, every process a program started, setsid or not, is here.
func descendants(procs []proc, root int) []proc {
	children := map[int][]int{}
	byPid := map[int]proc{}
	for _, p := range procs {
		children[p.ppid] = append(children[p.ppid], p.pid)
		byPid[p.pid] = p
	}
	var out []proc
	seen := map[int]bool{}
	queue := []int{root}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		if p, ok := byPid[pid]; ok {
			out = append(out, p)
		}
		queue = append(queue, children[pid]...)
	}
	return out
}

// treeMemory adds up the resident memory of the processes of the tree
// rooted at root.
func treeMemory(procs []proc, root int) int64 {
	var total int64
	for _, p := range descendants(procs, root) {
		total += p.rss
	}
	return total
}

// parsePS reads the output of `ps -A -o pid=,ppid=,rss=` (rss in KiB, as
// both BSD and procps ps give it).
func parsePS(out []byte) []proc {
	var procs []proc
	for line := range bytes.Lines(out) {
		f := bytes.Fields(line)
		if len(f) != 3 {
			continue
		}
		pid, err1 := strconv.Atoi(string(f[0]))
		ppid, err2 := strconv.Atoi(string(f[1]))
		kib, err3 := strconv.ParseInt(string(f[2]), 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		procs = append(procs, proc{pid: pid, ppid: ppid, rss: kib << 10})
	}
	return procs
}
