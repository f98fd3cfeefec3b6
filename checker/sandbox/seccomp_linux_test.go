package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runBPF runs a seccomp BPF program over a struct seccomp_data, as the
// kernel would (the few instructions the filter uses), and returns what it
// returns.
func runBPF(t *testing.T, prog []unix.SockFilter, nr, arch uint32, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[seccompDataNr:], nr)
	binary.LittleEndian.PutUint32(data[seccompDataArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[seccompDataArgs+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K, unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			var cond bool
			switch in.Code &^ (unix.BPF_JMP | unix.BPF_K) {
			case unix.BPF_JEQ:
				cond = acc == in.K
			case unix.BPF_JGE:
				cond = acc >= in.K
			case unix.BPF_JSET:
				cond = acc&in.K != 0
			}
			if cond {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// TestFilterProgram runs the filter's program on calls it must refuse,
// and on calls it must let through, whatever the kernel.
func TestFilterProgram(t *testing.T) {
	prog, err := filterProgram()
	if err != nil {
		t.Fatal(err)
	}
	if prog == nil {
		t.Skip(errNoFilter)
	}
	const (
		allow  = seccompRetAllow
		eperm  = seccompRetErrno | uint32(unix.EPERM)
		enosys = seccompRetErrno | uint32(unix.ENOSYS)
		kill   = seccompRetKillProcess
	)
	threadFlags := uint64(unix.CLONE_VM | unix.CLONE_FS | unix.CLONE_FILES | unix.CLONE_SIGHAND | unix.CLONE_THREAD |
		unix.CLONE_SYSVSEM | unix.CLONE_SETTLS | unix.CLONE_PARENT_SETTID | unix.CLONE_CHILD_CLEARTID)
	for _, c := range []struct {
		name string
		nr   uintptr
		arch uint32
		args []uint64
		want uint32
	}{
		{"read", unix.SYS_READ, filterArch, nil, allow},
		{"futex", unix.SYS_FUTEX, filterArch, nil, allow},
		{"munmap", unix.SYS_MUNMAP, filterArch, nil, allow},
		{"clone, a thread", unix.SYS_CLONE, filterArch, []uint64{threadFlags}, allow},
		{"clone, os/exec's", unix.SYS_CLONE, filterArch, []uint64{unix.CLONE_VM | unix.CLONE_VFORK | unix.CLONE_PIDFD | uint64(unix.SIGCHLD)}, allow},
		{"clone, a user namespace", unix.SYS_CLONE, filterArch, []uint64{unix.CLONE_NEWUSER | uint64(unix.SIGCHLD)}, eperm},
		{"clone, a network namespace", unix.SYS_CLONE, filterArch, []uint64{unix.CLONE_NEWNET}, eperm},
		{"clone3", unix.SYS_CLONE3, filterArch, nil, enosys},
		{"ioctl TCGETS", unix.SYS_IOCTL, filterArch, []uint64{0, unix.TCGETS}, allow},
		{"ioctl TIOCSTI", unix.SYS_IOCTL, filterArch, []uint64{0, unix.TIOCSTI}, eperm},
		{"ioctl TIOCSTI, high bits set", unix.SYS_IOCTL, filterArch, []uint64{0, 1<<32 | unix.TIOCSTI}, eperm},
		{"ioctl TIOCLINUX", unix.SYS_IOCTL, filterArch, []uint64{0, unix.TIOCLINUX}, eperm},
		{"keyctl", unix.SYS_KEYCTL, filterArch, nil, eperm},
		{"memfd_create", unix.SYS_MEMFD_CREATE, filterArch, nil, eperm},
		{"unshare", unix.SYS_UNSHARE, filterArch, nil, eperm},
		{"read, another architecture", unix.SYS_READ, filterArch ^ 1, nil, kill},
		{"keyctl, another architecture", unix.SYS_KEYCTL, filterArch ^ 1, nil, kill},
	} {
		if got := runBPF(t, prog, uint32(c.nr), c.arch, c.args...); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
	for _, nr := range refusedSyscalls() {
		if got := runBPF(t, prog, uint32(nr), filterArch); got != eperm {
			t.Errorf("system call %d: %#x, want EPERM", nr, got)
		}
	}
	if x32Bit != 0 {
		if got := runBPF(t, prog, x32Bit|unix.SYS_GETPID, filterArch); got != kill {
			t.Errorf("x32 getpid: %#x, want the process killed", got)
		}
	}
}
