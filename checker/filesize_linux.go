package checker

import "golang.org/x/sys/unix"

// buildFileSize bounds every file the build's processes write (the go
// command, the compiler, the linker): an honest test binary under the
// race detector is some 30 MB, and a lesson file of huge static data made
// the linker write 2 GB into the temporary directory, outside the
// sandbox's bounded /tmp (the red team's A32).
const buildFileSize = 512 << 20

// limitFileSize sets RLIMIT_FSIZE of the process pid, just started, to
// max bytes: a write past it fails and the writer gets SIGXFSZ. Its
// children inherit the limit; the go command starts the compiler and the
// linker well after kata has set it.
func limitFileSize(pid int, max int64) error {
	lim := unix.Rlimit{Cur: uint64(max), Max: uint64(max)}
	return unix.Prlimit(pid, unix.RLIMIT_FSIZE, &lim, nil)
}
