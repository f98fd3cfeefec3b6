package sandbox

import (
	"bytes"
	"errors"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
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

// MemoryOf returns the memory, in bytes, that process pid and every
// process it started, and they started, and so on, hold together: see
// treeMemoryShared for what is counted.
func MemoryOf(pid int) int64 {
	return treeMemoryShared(processes(), pid, 0)
}

// treeMemoryShared adds up the memory the processes of the tree rooted at
// root hold, as /proc shows it:
//
//   - each process's resident memory but its shared memory: its own
//     pages and the pages of the files it maps (RssAnon and RssFile of
//     /proc/PID/status; before Linux 4.5, which has neither, the whole of
//     its resident size);
//   - and, once however many processes hold it, every shared memory
//     object a process holds open or maps: a memfd, a file of a tmpfs,
//     a shared anonymous mapping, a System V segment. An object one of
//     them holds open counts for the memory it has (its blocks, from a
//     stat of /proc/PID/fd/N), an object they only map for the extent of
//     it that they map (from /proc/PID/maps), resident or not: its blocks
//     cannot be read from there, and what is mapped may be touched at any
//     time.
//
// Objects on device skip (if not 0) are left out: the caller counts that
// file system as a whole. So is what /proc does not show kata: memory a
// process keeps in a file it no longer holds open nor maps (in a tmpfs
// of the system's, where there is no sandbox; in the sandbox's /tmp,
// which Proc.Memory counts), and the kernel's own memory for the run
// (pipe and socket buffers, page tables). A process's fds and maps that
// kata may not read (another user's, or one no longer dumpable, where
// there is no sandbox) count for their resident size only.
func treeMemoryShared(procs []proc, root int, skip uint64) int64 {
	type object struct{ dev, ino uint64 }
	held := map[object]int64{}   // open: the blocks they have
	mapped := map[object]int64{} // mapped only: the extent mapped
	shmemFS := map[uint64]bool{} // by device: whether a tmpfs, or alike
	var total int64
	for _, p := range descendants(procs, root) {
		dir := "/proc/" + strconv.Itoa(p.pid)
		total += ownResident(dir, p.rss)
		fds, _ := os.ReadDir(dir + "/fd")
		for _, fd := range fds {
			path := dir + "/fd/" + fd.Name()
			var st unix.Stat_t
			if unix.Stat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || uint64(st.Dev) == skip {
				continue
			}
			dev := uint64(st.Dev)
			shmem, ok := shmemFS[dev]
			if !ok {
				var fs unix.Statfs_t
				if unix.Statfs(path, &fs) != nil {
					continue
				}
				shmem = isShmem(&fs)
				shmemFS[dev] = shmem
			}
			if shmem {
				held[object{dev, uint64(st.Ino)}] = int64(st.Blocks) * 512
			}
		}
		maps, err := os.ReadFile(dir + "/maps")
		if err != nil {
			continue
		}
		for line := range bytes.Lines(maps) {
			// start-end perms offset major:minor inode path
			f := bytes.Fields(line)
			if len(f) < 5 || len(f[1]) < 4 || f[1][3] != 's' {
				continue
			}
			start, end, _ := bytes.Cut(f[0], []byte("-"))
			lo, err1 := strconv.ParseUint(string(start), 16, 64)
			hi, err2 := strconv.ParseUint(string(end), 16, 64)
			off, err3 := strconv.ParseUint(string(f[2]), 16, 64)
			major, minor, _ := bytes.Cut(f[3], []byte(":"))
			maj, err4 := strconv.ParseUint(string(major), 16, 32)
			min, err5 := strconv.ParseUint(string(minor), 16, 32)
			ino, err6 := strconv.ParseUint(string(f[4]), 10, 64)
			if err := errors.Join(err1, err2, err3, err4, err5, err6); err != nil || hi < lo {
				continue
			}
			o := object{unix.Mkdev(uint32(maj), uint32(min)), ino}
			if o.dev == skip {
				continue
			}
			if extent := int64(off + hi - lo); extent > mapped[o] {
				mapped[o] = extent
			}
		}
	}
	for o, n := range held {
		total += n
		delete(mapped, o)
	}
	for _, n := range mapped {
		total += n
	}
	return total
}

// isShmem reports whether a file system keeps its files in memory, as
// shared memory: tmpfs (memfds and System V segments are on one the
// kernel keeps to itself), hugetlbfs, ramfs.
func isShmem(fs *unix.Statfs_t) bool {
	t := int64(fs.Type)
	return t == unix.TMPFS_MAGIC || t == unix.HUGETLBFS_MAGIC || t == unix.RAMFS_MAGIC
}

// ownResident returns the resident memory of the process whose /proc
// directory is dir but its shared memory, rss (its whole resident size)
// where /proc/PID/status does not say.
func ownResident(dir string, rss int64) int64 {
	status, err := os.ReadFile(dir + "/status")
	if err != nil {
		return rss
	}
	var own int64
	found := 0
	for line := range bytes.Lines(status) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.Equal(name, []byte("RssAnon")) && !bytes.Equal(name, []byte("RssFile")) {
			continue
		}
		f := bytes.Fields(value) // "1234 kB"
		if len(f) == 0 {
			continue
		}
		kib, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return rss
		}
		own += kib << 10
		found++
	}
	if found != 2 {
		return rss
	}
	return own
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
