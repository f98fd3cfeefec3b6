package checker

import (
	"os/exec"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// buildFileSize bounds every file the build's processes write (the go
// command, the compiler, the linker): an honest test binary under the
// race detector is some 30 MB, the largest object of a cold build (the
// runtime's, with the race detector) 14 MB; a lesson file of huge static
// data made the linker write 2 GB into the temporary directory, outside
// the sandbox's bounded /tmp (the red team's A32), and the compiler write
// objects of hundreds of MB into the Go build cache. The vetter refuses
// such a file (rule 12); this holds where a way past the vetter is found.
const buildFileSize = 128 << 20

// buildCPUFloor is the least CPU time limitBuild gives each process of a
// build, whatever buildAllowance is (tests shorten it to a fraction of a
// second, which would make RLIMIT_CPU kill the go command at once instead
// of the build's deadline stopping it).
const buildCPUFloor = 10 * time.Second

// limitBuild bounds the build's processes, from the go command kata has
// just started (pid) down to every compiler and linker it starts later,
// which inherit the limits: RLIMIT_FSIZE to buildFileSize (a write past it
// fails, and the writer gets SIGXFSZ), RLIMIT_CPU to buildAllowance, at
// least buildCPUFloor (each process's CPU time), and, if memory > 0,
// RLIMIT_DATA to memory (its heap). kata's own watch (watchBuild) stops a
// build sooner, with a message; these hold where that watch cannot, once
// kata itself is gone: a red team killed kata with SIGKILL mid-build, and
// the compiler it left behind went on to 2.7 GiB.
func limitBuild(pid int, memory int64) error {
	type limit struct {
		resource int
		max      uint64
	}
	limits := []limit{
		{unix.RLIMIT_FSIZE, buildFileSize},
		{unix.RLIMIT_CPU, uint64(max(buildAllowance, buildCPUFloor) / time.Second)},
	}
	if memory > 0 {
		limits = append(limits, limit{unix.RLIMIT_DATA, uint64(memory)})
	}
	for _, l := range limits {
		lim := unix.Rlimit{Cur: l.max, Max: l.max}
		if err := unix.Prlimit(pid, l.resource, &lim, nil); err != nil {
			return err
		}
	}
	return nil
}

// dieWithKata has the kernel kill cmd's process when kata dies, however
// it dies (SIGKILL included): the go command of a build then starts no
// compiler or linker after kata, and those it started are bounded by
// limitBuild.
func dieWithKata(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
