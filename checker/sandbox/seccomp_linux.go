package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter: a BPF program the init installs on its own thread
// just before it starts the program, which the program and every process
// it starts inherit and cannot remove. It refuses the system calls a test
// binary has no use for and that reach past the run, or hold memory that
// no process's resident size shows, or open the kernel's least travelled
// code; every other call is allowed as it was (a deny list: the run may
// do what a Go test binary, with or without the race detector, and the
// programs it starts may need to).
//
// What it refuses, with EPERM:
//
//   - the terminal: ioctl TIOCSTI (push input into a terminal, as if
//     typed: the shell that started kata would run it once kata exits)
//     and TIOCLINUX (its console twin); compared on the low 32 bits of
//     the request, which are all the kernel reads (CVE-2019-10063 went
//     around a filter that compared 64);
//   - the keyrings (keyctl, add_key, request_key): the session and user
//     keyrings hold a login's keys;
//   - other processes' memory and files (ptrace, process_vm_readv,
//     process_vm_writev, pidfd_getfd): kata's own, where there is no
//     sandbox;
//   - memory held outside any process (memfd_create, memfd_secret, System
//     V shared memory, message queues and semaphores, POSIX message
//     queues): Proc.Memory cannot see a memfd once it is closed and
//     mapped nowhere, nor a System V segment or queue at all;
//   - new namespaces (unshare, setns, clone with any CLONE_NEW* flag): in
//     a user namespace of its own the run is root again, with every
//     capability, and could mount a tmpfs of any size or reach kernel
//     code only capabilities reach. clone3 gets ENOSYS, not EPERM: its
//     flags are behind a pointer a filter cannot read, and ENOSYS is what
//     makes glibc (pthread_create, posix_spawn) fall back to clone, as it
//     does on kernels older than clone3;
//   - what needs a capability the run does not have (mount and the
//     mount API, pivot_root, chroot, modules, kexec, reboot, swap,
//     process accounting, open_by_handle_at; iopl and ioperm on amd64),
//     so that only a kernel bug could let one through, and then not
//     this way;
//   - and the kernel interfaces most kernel exploits start from, which no
//     test needs: bpf, perf_event_open, userfaultfd, io_uring.
//
// A system call of another ABI than the one the numbers are for (i386's
// int $0x80 or x32's numbers from an amd64 process, a 32-bit arm call
// from an arm64 one) kills the process: through those, every number means
// another call.
//
// What it does not do: it does not limit what the allowed calls do with
// the files, sockets and memory the run has (the namespaces, the
// read-only file system and the limits do that), and there is a filter
// only on linux/amd64 and linux/arm64, on a kernel with seccomp filters
// (3.5 and later); elsewhere runs go on without it, and Available's
// reason says so where there is a sandbox but no filter.

// The seccomp ABI (linux/seccomp.h), which golang.org/x/sys/unix does not
// have at the version this module uses.
const (
	seccompSetModeFilter       = 1
	seccompFilterFlagSpecAllow = 1 << 2
	seccompRetKillProcess      = 0x80000000
	seccompRetErrno            = 0x00050000
	seccompRetAllow            = 0x7fff0000

	// Offsets in struct seccomp_data: the call's number, its
	// architecture (AUDIT_ARCH_*), its arguments (64 bits each; both
	// architectures with a filter are little-endian, so an argument's
	// low 32 bits are at its offset).
	seccompDataNr   = 0
	seccompDataArch = 4
	seccompDataArgs = 16
)

// cloneNewFlags are the clone flags that make a new namespace.
// CLONE_NEWTIME (0x80) is not among them: clone(2) reads those bits as
// the exit signal, and only clone3 and unshare take it.
const cloneNewFlags = unix.CLONE_NEWNS | unix.CLONE_NEWCGROUP | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC |
	unix.CLONE_NEWUSER | unix.CLONE_NEWPID | unix.CLONE_NEWNET

// filterProgram returns the filter's BPF program, nil where there is none
// for this architecture.
func filterProgram() ([]unix.SockFilter, error) {
	if filterArch == 0 {
		return nil, nil
	}
	var a bpfAsm
	a.ld(seccompDataArch)
	a.jeq(filterArch, "", "kill")
	a.ld(seccompDataNr)
	if x32Bit != 0 {
		a.jge(x32Bit, "kill", "")
	}
	a.jeq(unix.SYS_CLONE, "clone", "")
	a.jeq(unix.SYS_CLONE3, "enosys", "")
	a.jeq(unix.SYS_IOCTL, "ioctl", "")
	for _, nr := range refusedSyscalls() {
		a.jeq(uint32(nr), "eperm", "")
	}
	a.ret(seccompRetAllow)
	a.label("clone")
	a.ld(seccompDataArgs + 0*8) // flags
	a.jset(cloneNewFlags, "eperm", "allow")
	a.label("ioctl")
	a.ld(seccompDataArgs + 1*8) // request
	a.jeq(unix.TIOCSTI, "eperm", "")
	a.jeq(unix.TIOCLINUX, "eperm", "allow")
	a.label("allow")
	a.ret(seccompRetAllow)
	a.label("eperm")
	a.ret(seccompRetErrno | uint32(unix.EPERM))
	a.label("enosys")
	a.ret(seccompRetErrno | uint32(unix.ENOSYS))
	a.label("kill")
	a.ret(seccompRetKillProcess)
	return a.assemble()
}

// errNoFilter says there is no filter to install here.
var errNoFilter = errors.New("no seccomp filter for " + runtime.GOARCH)

// installFilter installs the filter on the calling thread, which must
// have no_new_privs set; the processes it starts from now on inherit it.
// It asks the kernel not to turn on its speculation mitigations for the
// filtered thread as it otherwise may (SECCOMP_FILTER_FLAG_SPEC_ALLOW):
// they would slow the run's timing tests, and the run holds no secret of
// its own to protect from itself.
func installFilter() error {
	prog, err := filterProgram()
	if err != nil {
		return err
	}
	if prog == nil {
		return errNoFilter
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, e := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, seccompFilterFlagSpecAllow, uintptr(unsafe.Pointer(&fprog)))
	if e == unix.EINVAL {
		// Before Linux 4.17, no SPEC_ALLOW.
		_, _, e = unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&fprog)))
	}
	if e == unix.ENOSYS {
		// Before Linux 3.17, no seccomp(2).
		_, _, e = unix.Syscall6(unix.SYS_PRCTL, unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0, 0)
	}
	runtime.KeepAlive(prog)
	if e != 0 {
		return fmt.Errorf("installing the seccomp filter: %w", e)
	}
	return nil
}

// checkFilter makes sure the installed filter refuses what it should: a
// memfd, which the kernel would otherwise give.
func checkFilter() error {
	fd, err := unix.MemfdCreate("kata-sandbox-check", 0)
	if err == nil {
		unix.Close(fd)
		return errors.New("the seccomp filter does not refuse memfd_create")
	}
	if !errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("the seccomp filter: memfd_create: %w, want EPERM", err)
	}
	return nil
}

// bpfAsm assembles a classic BPF program whose jumps name labels ("" is
// the next instruction).
type bpfAsm struct {
	prog   []unix.SockFilter
	jt, jf []string
	labels map[string]int
}

func (a *bpfAsm) add(code uint16, k uint32, jt, jf string) {
	a.prog = append(a.prog, unix.SockFilter{Code: code, K: k})
	a.jt, a.jf = append(a.jt, jt), append(a.jf, jf)
}

func (a *bpfAsm) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// ld loads the 32-bit word at off of struct seccomp_data.
func (a *bpfAsm) ld(off uint32) { a.add(unix.BPF_LD|unix.BPF_W|unix.BPF_ABS, off, "", "") }

// jeq jumps to jt if the word loaded is k, else to jf.
func (a *bpfAsm) jeq(k uint32, jt, jf string) {
	a.add(unix.BPF_JMP|unix.BPF_JEQ|unix.BPF_K, k, jt, jf)
}

// jge jumps to jt if the word loaded is k or more, else to jf.
func (a *bpfAsm) jge(k uint32, jt, jf string) {
	a.add(unix.BPF_JMP|unix.BPF_JGE|unix.BPF_K, k, jt, jf)
}

// jset jumps to jt if the word loaded has any bit of k, else to jf.
func (a *bpfAsm) jset(k uint32, jt, jf string) {
	a.add(unix.BPF_JMP|unix.BPF_JSET|unix.BPF_K, k, jt, jf)
}

// ret returns k: what the kernel does with the call.
func (a *bpfAsm) ret(k uint32) { a.add(unix.BPF_RET|unix.BPF_K, k, "", "") }

// assemble resolves the labels into the forward offsets BPF jumps take.
func (a *bpfAsm) assemble() ([]unix.SockFilter, error) {
	offset := func(i int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		target, ok := a.labels[name]
		if !ok {
			return 0, fmt.Errorf("bpf: no label %s", name)
		}
		d := target - i - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("bpf: jump to %s out of reach (%d)", name, d)
		}
		return uint8(d), nil
	}
	prog := append([]unix.SockFilter(nil), a.prog...)
	for i := range prog {
		var err error
		if prog[i].Jt, err = offset(i, a.jt[i]); err != nil {
			return nil, err
		}
		if prog[i].Jf, err = offset(i, a.jf[i]); err != nil {
			return nil, err
		}
	}
	return prog, nil
}
