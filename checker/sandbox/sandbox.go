package sandbox

import (
	"os"
	"strings"
	"sync"
)

// A Spec says what to run, and what the program may see when it runs
// isolated.
type Spec struct {
	Path string   // the program: an absolute path
	Args []string // its arguments, Args[0] included
	Env  []string // its whole environment
	Dir  string   // its working directory

	// Stdout and Stderr receive what it prints (nil: nowhere); ExtraFiles
	// are its file descriptors 3, 4, ... (not on Windows).
	Stdout, Stderr *os.File
	ExtraFiles     []*os.File

	// Isolate runs the program in the sandbox. Start fails if that cannot
	// be done: ask Available first.
	Isolate bool
	// ReadOnly are the files and directories an isolated program sees
	// besides the system's own (ReadOnlySystem), each at its own path and
	// read-only. The program, its working directory and what it reads
	// must be among them.
	ReadOnly []string
	// TmpSize bounds, in bytes, what an isolated program and its children
	// may write in their private /tmp, the only place they can write; 0:
	// DefaultTmpSize.
	TmpSize int64
	// FileSize bounds, in bytes, every file the program writes (the
	// RLIMIT_FSIZE resource limit, on Linux); 0: no bound.
	FileSize int64
}

// DefaultTmpSize is the size of an isolated program's /tmp.
const DefaultTmpSize = 64 << 20

// ReadOnlySystem are the directories an isolated program sees of the
// system, read-only, where they exist: its programs, libraries and
// configuration. Nothing of a user's: no /home, /root, /tmp, /var, /opt,
// /srv, /mnt, /media, /run.
var ReadOnlySystem = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/nix/store"}

// EnvDisable names the environment variable that, set to "off", turns the
// sandbox off (Available reports false): for a system where it misbehaves.
const EnvDisable = "KATA_SANDBOX"

var (
	availableOnce sync.Once
	available     bool
	unavailableBy string
)

// Available reports whether programs can be run isolated here and, if
// not, why, in a few words. The first call tries (on Linux, by starting
// an empty sandbox); later calls remember its answer. A sandbox that
// goes without part of itself is available, and why says what it lacks:
// on Linux, the seccomp filter, where the kernel or the architecture has
// none ("no seccomp filter for riscv64").
func Available() (ok bool, why string) {
	availableOnce.Do(func() {
		if disabled() {
			unavailableBy = EnvDisable + "=off"
			return
		}
		available, unavailableBy = probe()
	})
	return available, unavailableBy
}

// disabled reports whether the sandbox is turned off (KATA_SANDBOX=off).
func disabled() bool { return strings.EqualFold(os.Getenv(EnvDisable), "off") }
