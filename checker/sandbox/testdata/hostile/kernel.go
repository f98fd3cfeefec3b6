package main

// The modes that go at the kernel itself: the terminal, the keyrings,
// memory no process's resident size shows, new namespaces, and the
// system calls a test binary has no use for.

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

var kernelModes = map[string]func(args []string) string{
	"tty":      tty,
	"keyring":  keyring,
	"syscalls": syscalls,
	"hold":     hold,
	"session":  session,
	"nested":   nested,
	"int80":    func([]string) string { return int80Keyctl() },
	"x32":      x32,
}

// errno names the error of a system call: "ok", or its errno's name.
func errno(err error) string {
	if err == nil {
		return "ok"
	}
	var e syscall.Errno
	if errors.As(err, &e) {
		if e == 0 {
			return "ok"
		}
		return unix.ErrnoName(e)
	}
	return err.Error()
}

func sys(trap uintptr, a ...uintptr) error {
	var x [6]uintptr
	copy(x[:], a)
	_, _, e := unix.Syscall6(trap, x[0], x[1], x[2], x[3], x[4], x[5])
	if e != 0 {
		return e
	}
	return nil
}

// tty opens the controlling terminal and pushes a line into its input
// (TIOCSTI), as if typed: what the shell that started kata would run once
// kata exits. Then the same, and TIOCLINUX, on file descriptor 3 if it is
// a terminal.
func tty(args []string) string {
	var out []string
	if f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0); err != nil {
		out = append(out, "devtty: "+err.Error())
	} else {
		_, werr := f.WriteString("\r\n\x1b[1;31m[written by the hostile program]\x1b[0m\r\n")
		var ierr error
		for _, c := range []byte("echo injected\n") {
			if ierr = sys(unix.SYS_IOCTL, f.Fd(), unix.TIOCSTI, uintptr(unsafe.Pointer(&c))); ierr != nil {
				break
			}
		}
		f.Close()
		out = append(out, fmt.Sprintf("devtty: opened, write %s, TIOCSTI %s", errno(werr), errno(ierr)))
	}
	if _, err := unix.IoctlGetTermios(3, unix.TCGETS); err == nil {
		c := byte('x')
		p := uintptr(unsafe.Pointer(&c))
		out = append(out, fmt.Sprintf("fd3: TIOCSTI %s, TIOCSTI with high bits %s, TIOCLINUX %s",
			errno(sys(unix.SYS_IOCTL, 3, unix.TIOCSTI, p)),
			errno(sys(unix.SYS_IOCTL, 3, unix.TIOCSTI|1<<32, p)),
			errno(sys(unix.SYS_IOCTL, 3, unix.TIOCLINUX, p))))
	}
	return strings.Join(out, "; ")
}

// keyring lists the keys of the session and user keyrings it can read.
func keyring(args []string) string {
	var out []string
	for _, kr := range []struct {
		name string
		id   int
	}{{"session", unix.KEY_SPEC_SESSION_KEYRING}, {"user", unix.KEY_SPEC_USER_KEYRING}} {
		id, err := unix.KeyctlInt(unix.KEYCTL_GET_KEYRING_ID, kr.id, 0, 0, 0)
		if err != nil {
			out = append(out, kr.name+": "+errno(err))
			continue
		}
		buf := make([]byte, 4096)
		n, err := unix.KeyctlBuffer(unix.KEYCTL_READ, id, buf, 0)
		if err != nil {
			out = append(out, kr.name+": read "+errno(err))
			continue
		}
		var keys []string
		for i := 0; i+4 <= n && i+4 <= len(buf); i += 4 {
			kid := int(*(*int32)(unsafe.Pointer(&buf[i])))
			desc, err := unix.KeyctlString(unix.KEYCTL_DESCRIBE, kid)
			if err != nil {
				desc = errno(err)
			}
			payload := make([]byte, 256)
			pn, err := unix.KeyctlBuffer(unix.KEYCTL_READ, kid, payload, 0)
			if err == nil && pn <= len(payload) {
				desc += " => " + string(payload[:pn])
			}
			keys = append(keys, desc)
		}
		out = append(out, fmt.Sprintf("%s: [%s]", kr.name, strings.Join(keys, ", ")))
	}
	return strings.Join(out, "; ")
}

// syscalls tries, one by one, the system calls the sandbox refuses, with
// arguments that make each harmless, and chosen where they can be so that
// the kernel itself answers something else than EPERM; and a few it must
// still allow. It says what each returned: "name=ok" or "name=ERRNO".
func syscalls(args []string) string {
	null, err := os.Open("/dev/null")
	if err != nil {
		return err.Error()
	}
	defer null.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err.Error()
	}
	defer pr.Close()
	defer pw.Close()
	c := byte('x')
	char := uintptr(unsafe.Pointer(&c))
	nowhere, _ := unix.BytePtrFromString("/nonexistent-kata-hostile")
	path := uintptr(unsafe.Pointer(nowhere))
	empty, _ := unix.BytePtrFromString("")
	const far = 0x3ffffff0 // beyond any pid_max
	type try struct {
		name string
		call func() error
	}
	tries := []try{
		// Allowed: what a test binary does.
		{"ioctl-FIONREAD", func() error { _, err := unix.IoctlGetInt(int(pr.Fd()), unix.TIOCINQ); return err }},
		{"clone-thread", func() error { return exec.Command("true").Run() }},
		// The terminal.
		{"ioctl-TIOCSTI", func() error { return sys(unix.SYS_IOCTL, null.Fd(), unix.TIOCSTI, char) }},
		{"ioctl-TIOCSTI-high", func() error { return sys(unix.SYS_IOCTL, null.Fd(), unix.TIOCSTI|1<<32, char) }},
		{"ioctl-TIOCLINUX", func() error { return sys(unix.SYS_IOCTL, null.Fd(), unix.TIOCLINUX, char) }},
		// The keyrings.
		{"keyctl", func() error {
			return sys(unix.SYS_KEYCTL, unix.KEYCTL_GET_KEYRING_ID, uintptr(0xfffffffffffffffd), 0) // @s
		}},
		{"add_key", func() error { return sys(unix.SYS_ADD_KEY, 0, 0, 0, 0, 0) }},
		{"request_key", func() error { return sys(unix.SYS_REQUEST_KEY, 0, 0, 0) }},
		// Other processes.
		{"ptrace", func() error { return sys(unix.SYS_PTRACE, unix.PTRACE_ATTACH, far) }},
		{"process_vm_readv", func() error { return sys(unix.SYS_PROCESS_VM_READV, far, 0, 0, 0, 0, 0) }},
		{"process_vm_writev", func() error { return sys(unix.SYS_PROCESS_VM_WRITEV, far, 0, 0, 0, 0, 0) }},
		{"pidfd_getfd", func() error { return sys(unix.SYS_PIDFD_GETFD, ^uintptr(0), 0, 0) }},
		// Memory outside any process.
		{"memfd_create", func() error {
			fd, err := unix.MemfdCreate("hostile", 0)
			if err == nil {
				unix.Close(fd)
			}
			return err
		}},
		{"memfd_secret", func() error { return sys(unix.SYS_MEMFD_SECRET, 0xffff) }},
		{"shmget", func() error {
			id, err := unix.SysvShmGet(unix.IPC_PRIVATE, 4096, unix.IPC_CREAT|0o600)
			if err == nil {
				_, _ = unix.SysvShmCtl(id, unix.IPC_RMID, nil)
			}
			return err
		}},
		{"shmat", func() error { return sys(unix.SYS_SHMAT, ^uintptr(0), 0, 0) }},
		{"shmdt", func() error { return sys(unix.SYS_SHMDT, 0) }},
		{"shmctl", func() error { return sys(unix.SYS_SHMCTL, ^uintptr(0), unix.IPC_STAT, 0) }},
		{"msgget", func() error {
			r, _, e := unix.Syscall(unix.SYS_MSGGET, unix.IPC_PRIVATE, unix.IPC_CREAT|0o600, 0)
			if e == 0 {
				_ = sys(unix.SYS_MSGCTL, r, unix.IPC_RMID, 0)
				return nil
			}
			return e
		}},
		{"msgsnd", func() error { return sys(unix.SYS_MSGSND, ^uintptr(0), 0, 0, 0) }},
		{"msgrcv", func() error { return sys(unix.SYS_MSGRCV, ^uintptr(0), 0, 0, 0, 0) }},
		{"msgctl", func() error { return sys(unix.SYS_MSGCTL, ^uintptr(0), unix.IPC_STAT, 0) }},
		{"semget", func() error {
			r, _, e := unix.Syscall(unix.SYS_SEMGET, unix.IPC_PRIVATE, 1, unix.IPC_CREAT|0o600)
			if e == 0 {
				_ = sys(unix.SYS_SEMCTL, r, 0, unix.IPC_RMID)
				return nil
			}
			return e
		}},
		{"semop", func() error { return sys(unix.SYS_SEMOP, ^uintptr(0), 0, 0) }},
		{"semtimedop", func() error { return sys(unix.SYS_SEMTIMEDOP, ^uintptr(0), 0, 0, 0) }},
		{"semctl", func() error { return sys(unix.SYS_SEMCTL, ^uintptr(0), 0, unix.IPC_STAT) }},
		{"mq_open", func() error { return sys(unix.SYS_MQ_OPEN, 0, 0, 0, 0) }},
		{"mq_unlink", func() error { return sys(unix.SYS_MQ_UNLINK, 0) }},
		// New namespaces.
		{"unshare", func() error { return sys(unix.SYS_UNSHARE, 0) }},
		{"setns", func() error { return sys(unix.SYS_SETNS, ^uintptr(0), 0) }},
		{"clone3", func() error { return sys(unix.SYS_CLONE3, 0, 0) }},
		// Kernel code a test never needs, the usual road of exploits.
		{"bpf", func() error { return sys(unix.SYS_BPF, 0xffff, 0, 0) }},
		{"perf_event_open", func() error { return sys(unix.SYS_PERF_EVENT_OPEN, 0, 0, ^uintptr(0), ^uintptr(0), 0) }},
		{"userfaultfd", func() error { return sys(unix.SYS_USERFAULTFD, 1|4) }},
		{"io_uring_setup", func() error { return sys(unix.SYS_IO_URING_SETUP, 0, 0) }},
		{"io_uring_enter", func() error { return sys(unix.SYS_IO_URING_ENTER, ^uintptr(0), 0, 0, 0, 0, 0) }},
		{"io_uring_register", func() error { return sys(unix.SYS_IO_URING_REGISTER, ^uintptr(0), 0, 0, 0) }},
		// What needs a capability: mounts, modules, kexec.
		{"mount", func() error { return sys(unix.SYS_MOUNT, 0, path, 0, 0, 0) }},
		{"umount2", func() error { return sys(unix.SYS_UMOUNT2, path, 0) }},
		{"pivot_root", func() error { return sys(unix.SYS_PIVOT_ROOT, path, path) }},
		{"chroot", func() error { return sys(unix.SYS_CHROOT, path) }},
		{"open_tree", func() error { return sys(unix.SYS_OPEN_TREE, uintptr(0xffffff9c), path, 0) }}, // AT_FDCWD
		{"move_mount", func() error {
			return sys(unix.SYS_MOVE_MOUNT, ^uintptr(0), uintptr(unsafe.Pointer(empty)), ^uintptr(0), uintptr(unsafe.Pointer(empty)), 0)
		}},
		{"fsopen", func() error { return sys(unix.SYS_FSOPEN, 0, 0) }},
		{"fsconfig", func() error { return sys(unix.SYS_FSCONFIG, ^uintptr(0), 0, 0, 0, 0) }},
		{"fsmount", func() error { return sys(unix.SYS_FSMOUNT, ^uintptr(0), 0, 0) }},
		{"fspick", func() error { return sys(unix.SYS_FSPICK, ^uintptr(0), uintptr(unsafe.Pointer(empty)), 0) }},
		{"mount_setattr", func() error { return sys(unix.SYS_MOUNT_SETATTR, ^uintptr(0), uintptr(unsafe.Pointer(empty)), 0, 0, 0) }},
		{"kexec_load", func() error { return sys(unix.SYS_KEXEC_LOAD, 0, 0, 0, 0) }},
		{"kexec_file_load", func() error { return sys(unix.SYS_KEXEC_FILE_LOAD, ^uintptr(0), ^uintptr(0), 0, 0, 0) }},
		{"init_module", func() error { return sys(unix.SYS_INIT_MODULE, 0, 0, 0) }},
		{"finit_module", func() error { return sys(unix.SYS_FINIT_MODULE, ^uintptr(0), 0, 0) }},
		{"delete_module", func() error { return sys(unix.SYS_DELETE_MODULE, 0, 0) }},
		{"open_by_handle_at", func() error { return sys(unix.SYS_OPEN_BY_HANDLE_AT, ^uintptr(0), 0, 0) }},
	}
	for _, flag := range []struct {
		name string
		flag uintptr
	}{{"user", unix.CLONE_NEWUSER}, {"ns", unix.CLONE_NEWNS}, {"pid", unix.CLONE_NEWPID}, {"net", unix.CLONE_NEWNET},
		{"ipc", unix.CLONE_NEWIPC}, {"uts", unix.CLONE_NEWUTS}, {"cgroup", unix.CLONE_NEWCGROUP}} {
		tries = append(tries, try{"clone-new" + flag.name, func() error {
			cmd := exec.Command("true")
			cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: flag.flag}
			return cmd.Run()
		}})
	}
	var out []string
	for _, t := range tries {
		out = append(out, t.name+"="+errno(t.call()))
	}
	_ = pw
	return strings.Join(out, " ")
}

// hold MIB KIND: holds MIB MiB of memory in a way that no process's
// resident size shows, says "holding", and waits to be killed.
//
//	memfd: written to a memfd that is never mapped;
//	shared: written to a shared anonymous mapping, page by page, each
//	  dropped from the process's page tables once written (MADV_DONTNEED
//	  frees nothing of a shared mapping);
//	tmp: written to a file of the temporary directory, closed.
func hold(args []string) string {
	mib := atoi(args[0])
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i*7 + 1)
	}
	switch args[1] {
	case "memfd":
		fd, err := unix.MemfdCreate("hostile", 0)
		if err != nil {
			return "memfd: " + errno(err)
		}
		for range mib {
			if _, err := unix.Write(fd, chunk); err != nil {
				return "memfd write: " + errno(err)
			}
		}
	case "shared":
		m, err := unix.Mmap(-1, 0, mib<<20, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANONYMOUS)
		if err != nil {
			return "mmap: " + errno(err)
		}
		for i := range mib {
			part := m[i<<20 : (i+1)<<20]
			copy(part, chunk)
			if err := unix.Madvise(part, unix.MADV_DONTNEED); err != nil {
				return "madvise: " + errno(err)
			}
		}
	case "tmp":
		f, err := os.CreateTemp("", "hold-")
		if err != nil {
			return err.Error()
		}
		for range mib {
			if _, err := f.Write(chunk); err != nil {
				return "tmp write: " + err.Error()
			}
		}
		f.Close()
	default:
		return "unknown kind " + args[1]
	}
	fmt.Println("result: holding")
	select {}
}

// session says which session it is in, and whether it has a
// controlling terminal.
func session(args []string) string {
	sid, err := unix.Getsid(0)
	_, terr := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	return fmt.Sprintf("sid %d %s; tty: %v", sid, errno(err), terr)
}

// nested runs `unshare ARGS...`: a new user namespace, root again inside.
func nested(args []string) string {
	out, err := exec.Command("unshare", args...).CombinedOutput()
	return fmt.Sprintf("unshare: %v: %s", err, strings.Join(strings.Fields(string(out)), " "))
}

// x32 makes the getpid system call through the x32 ABI's numbers
// (0x40000000 and up), which a filter that checks only the plain
// numbers of x86-64 would let through.
func x32(args []string) string {
	if x32Bit == 0 {
		return "x32: not amd64"
	}
	_, _, e := unix.RawSyscall(x32Bit|unix.SYS_GETPID, 0, 0, 0)
	time.Sleep(10 * time.Millisecond)
	return "x32 getpid: " + errno(e)
}
