package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The hook: an executable that imports this package and is started by
// Start (the same executable, again) is the init of a sandbox, and does
// nothing else. It runs in this package's initialisation, before main and
// TestMain, so that kata, and the test binaries of the packages that use
// this one, need nothing of their own to serve as the init.
func init() {
	if cfg, ok := os.LookupEnv(envInit); ok {
		initMain(cfg)
	}
}

// initMain is the init: it builds the sandbox, starts the program, reaps
// every process that ends up its child, and when the program exits, kills
// every process left and exits with the program's status.
func initMain(cfg string) {
	// Namespaces, mounts and capabilities are the process's, but some
	// prctl settings are per thread: everything is done on this one,
	// which also starts the program.
	runtime.LockOSThread()
	var c initConfig
	if err := json.Unmarshal([]byte(cfg), &c); err != nil {
		fmt.Fprintln(os.Stderr, "kata-sandbox-init:", err)
		os.Exit(125)
	}
	_ = os.Unsetenv(envInit)
	statusFd := 3 + c.Files
	// The program gets the files meant for it and no other: not one kata
	// inherited from whatever started it (a pipe to it, say).
	closeOnExecFrom(statusFd)
	status := os.NewFile(uintptr(statusFd), "status")
	fail := func(err error) {
		fmt.Fprintf(status, "error: %v", err)
		status.Close()
		os.Exit(125)
	}
	// Not dumpable: the program cannot read the init's memory or
	// environment through /proc/1.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if c.Isolate {
		if err := isolate(&c); err != nil {
			fail(err)
		}
	} else if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fail(fmt.Errorf("becoming a subreaper: %w", err))
	}
	_ = unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{})
	if c.FileSize > 0 {
		lim := uint64(c.FileSize)
		if err := unix.Setrlimit(unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: lim, Max: lim}); err != nil {
			fail(fmt.Errorf("limiting file sizes: %w", err))
		}
	}
	// A session keyring of its own, new and empty: not the one kata
	// inherited from a login, with its keys. (The filter refuses the
	// keyring calls too; this holds where there is no filter.)
	_, _, _ = unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0)
	if err := dropPrivileges(c.Isolate); err != nil {
		fail(err)
	}
	// The filter, last: it is this thread's, which starts the program.
	ok := "ok"
	if c.Filter != filterOff {
		err := installFilter()
		if err == nil && c.Probe {
			err = checkFilter()
		}
		switch {
		case err == nil:
		case c.Filter == filterRequire:
			fail(err)
		default:
			ok += "; " + err.Error()
		}
	}
	if c.Probe {
		fmt.Fprint(status, ok)
		os.Exit(0)
	}
	files := make([]*os.File, c.Files)
	for i := range files {
		files[i] = os.NewFile(uintptr(3+i), "extra")
	}
	cmd := &exec.Cmd{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir, Stdout: os.Stdout, Stderr: os.Stderr, ExtraFiles: files}
	if !c.Isolate {
		// Without a PID namespace to take it along, the program dies
		// with the init all the same.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	}
	if c.Nobody {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody, NoSetGroups: true}}
	}
	if err := cmd.Start(); err != nil {
		fail(fmt.Errorf("starting %s: %w", filepath.Base(c.Path), err))
	}
	for _, f := range files {
		f.Close()
	}
	os.Stdout.Close()
	os.Stderr.Close()
	fmt.Fprint(status, "ok")
	status.Close()
	os.Exit(reap(cmd.Process.Pid, c.Isolate))
}

// closeOnExecFrom marks every open file descriptor from fd up
// close-on-exec.
func closeOnExecFrom(fd int) {
	if err := unix.CloseRange(uint(fd), ^uint(0), unix.CLOSE_RANGE_CLOEXEC); err == nil {
		return
	}
	// Before Linux 5.11: one by one.
	entries, _ := os.ReadDir("/proc/self/fd")
	for _, e := range entries {
		if n, err := strconv.Atoi(e.Name()); err == nil && n >= fd {
			syscall.CloseOnExec(n)
		}
	}
}

// reap waits for every child of the init, the program's orphans
// included, and when the program exits, kills every other process left
// and returns the program's exit status once none is.
func reap(child int, isolated bool) int {
	code := 125
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return code // ECHILD: nothing left (cannot happen before the program exits)
		}
		if pid != child {
			continue
		}
		switch {
		case ws.Exited():
			code = ws.ExitStatus()
		case ws.Signaled():
			code = 128 + int(ws.Signal())
		}
		break
	}
	// Kill, reap, again, until nothing is left: a process may fork while
	// the others are being killed.
	for {
		if isolated {
			// Every process of the PID namespace but the init.
			_ = syscall.Kill(-1, syscall.SIGKILL)
		} else {
			killTree(os.Getpid())
		}
		for {
			var ws syscall.WaitStatus
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			if errors.Is(err, syscall.ECHILD) {
				return code
			}
			if err != nil && !errors.Is(err, syscall.EINTR) || pid == 0 {
				break
			}
		}
		time.Sleep(time.Millisecond)
	}
}

// dropPrivileges leaves the program no capability, whatever it executes:
// in the sandbox the init is root of its user namespace, and a root
// program there could mount, or remount read-write what the init made
// read-only. The bounding and inheritable sets are emptied (root gains
// only their union on execve), and no_new_privs is set.
func dropPrivileges(isolated bool) error {
	if isolated {
		last := unix.CAP_LAST_CAP
		if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				last = n
			}
		}
		for c := 0; c <= last; c++ {
			if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
				return fmt.Errorf("dropping capability %d: %w", c, err)
			}
		}
		_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
		hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
		var data [2]unix.CapUserData
		if err := unix.Capget(&hdr, &data[0]); err != nil {
			return fmt.Errorf("reading capabilities: %w", err)
		}
		data[0].Inheritable, data[1].Inheritable = 0, 0
		if err := unix.Capset(&hdr, &data[0]); err != nil {
			return fmt.Errorf("clearing inheritable capabilities: %w", err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	return nil
}

// isolate builds the program's file system, in the init's own mount
// namespace, and brings its network's loopback up. On a tmpfs mounted on
// c.Root: the system's directories (ReadOnlySystem) and c.ReadOnly,
// bound read-only at their own paths; a few devices; a /tmp of its own,
// c.TmpSize bytes at most; a /proc of the new PID namespace. Then that
// tmpfs becomes the root, the old root is detached, and the new root is
// made read-only: the only place left to write is /tmp.
func isolate(c *initConfig) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making mounts private: %w", err)
	}
	root := c.Root
	if err := unix.Mount("kata-sandbox", root, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755,size=4m"); err != nil {
		return fmt.Errorf("mounting the root: %w", err)
	}
	for _, d := range ReadOnlySystem {
		fi, err := os.Lstat(d)
		if err != nil {
			continue
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			// /bin -> usr/bin, on a merged /usr: the same link.
			target, err := os.Readlink(d)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(filepath.Dir(root+d), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(target, root+d); err != nil {
				return err
			}
			continue
		}
		if !fi.IsDir() {
			continue
		}
		if err := bind(d, root+d, true, false); err != nil {
			return err
		}
	}
	if err := os.Mkdir(root+"/dev", 0o755); err != nil {
		return err
	}
	// Not tty: kata's terminal is no business of the run's.
	for _, dev := range []string{"null", "zero", "full", "random", "urandom"} {
		if _, err := os.Stat("/dev/" + dev); err != nil {
			continue
		}
		if err := bind("/dev/"+dev, root+"/dev/"+dev, false, true); err != nil {
			return err
		}
	}
	for name, target := range map[string]string{"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1", "stderr": "/proc/self/fd/2"} {
		if err := os.Symlink(target, root+"/dev/"+name); err != nil {
			return err
		}
	}
	if err := os.Mkdir(root+"/tmp", 0o755); err != nil {
		return err
	}
	if err := unix.Mount("kata-tmp", root+"/tmp", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, fmt.Sprintf("mode=1777,size=%d", c.TmpSize)); err != nil {
		return fmt.Errorf("mounting /tmp: %w", err)
	}
	paths := slices.Clone(c.ReadOnly)
	slices.Sort(paths)
	var bound []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			return fmt.Errorf("%s: not an absolute path", p)
		}
		p = filepath.Clean(p)
		if visible(p, bound) {
			continue
		}
		if err := bind(p, root+p, true, false); err != nil {
			return err
		}
		bound = append(bound, p)
	}
	if err := os.Mkdir(root+"/proc", 0o555); err != nil {
		return err
	}
	if err := os.Mkdir(root+"/.oldroot", 0o700); err != nil {
		return err
	}
	if err := unix.PivotRoot(root, root+"/.oldroot"); err != nil {
		return fmt.Errorf("pivot_root: %w", err)
	}
	if err := os.Chdir("/"); err != nil {
		return err
	}
	// The old root's /proc is still mounted: the kernel lets a new
	// procfs be mounted only where a full one is visible.
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting /proc: %w", err)
	}
	limitNamespaces()
	// /proc/sys read-only: the run, root of its user namespace when kata
	// is not root, could otherwise set back what limitNamespaces set.
	if err := bind("/proc/sys", "/proc/sys", false, false); err != nil {
		return err
	}
	if err := unix.Unmount("/.oldroot", unix.MNT_DETACH); err != nil {
		return fmt.Errorf("detaching the old root: %w", err)
	}
	if err := os.Remove("/.oldroot"); err != nil {
		return err
	}
	if err := unix.Mount("", "/", "", unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
		return fmt.Errorf("making the root read-only: %w", err)
	}
	_ = unix.Sethostname([]byte("kata-sandbox"))
	if err := loopbackUp(); err != nil {
		return fmt.Errorf("bringing the loopback up: %w", err)
	}
	return nil
}

// limitNamespaces sets, in the sandbox's own user and IPC namespaces,
// the limits their owner may set, to nothing: no namespace may be made
// in the user namespace (user.max_*_namespaces), and there may be no
// System V shared memory segment, message queue or semaphore, and no
// POSIX message queue, in the IPC namespace. The filter refuses all of
// these already; this holds where there is no filter, and would if a
// way around it were found. What the kernel does not let the owner set
// (the IPC limits, on older kernels) is left as it is.
func limitNamespaces() {
	for _, name := range []string{"user/max_user_namespaces", "user/max_mnt_namespaces", "user/max_pid_namespaces",
		"user/max_net_namespaces", "user/max_ipc_namespaces", "user/max_uts_namespaces", "user/max_cgroup_namespaces",
		"user/max_time_namespaces", "kernel/shmmni", "kernel/shmall", "kernel/shmmax", "kernel/msgmni",
		"fs/mqueue/queues_max"} {
		_ = os.WriteFile("/proc/sys/"+name, []byte("0\n"), 0)
	}
	_ = os.WriteFile("/proc/sys/kernel/sem", []byte("0 0 0 0\n"), 0)
}

// visible reports whether path is already in the sandbox, read-only:
// inside one of the system's directories, or of those bound already.
func visible(path string, bound []string) bool {
	within := func(d string) bool { return path == d || strings.HasPrefix(path, d+"/") }
	for _, d := range ReadOnlySystem {
		if within(d) {
			if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
				return true
			}
		}
	}
	return slices.ContainsFunc(bound, within)
}

// bind binds src (a directory, with what is mounted under it if
// recursive, or a file) at dst, creating dst, and makes it read-only,
// nosuid and, unless it is a device, nodev.
func bind(src, dst string, recursive, device bool) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		if err := os.MkdirAll(dst, 0o755); err != nil {
			return err
		}
	} else {
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.Close()
	}
	flags := uintptr(unix.MS_BIND)
	if recursive {
		flags |= unix.MS_REC
	}
	if err := unix.Mount(src, dst, "", flags, ""); err != nil {
		return fmt.Errorf("binding %s: %w", src, err)
	}
	// mount_setattr (Linux 5.12) makes a whole tree read-only at once.
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY | unix.MOUNT_ATTR_NOSUID | unix.MOUNT_ATTR_NODEV}
	remount := uintptr(unix.MS_BIND | unix.MS_REMOUNT | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV)
	if device {
		attr.Attr_set &^= unix.MOUNT_ATTR_NODEV
		remount &^= unix.MS_NODEV
	}
	atFlags := uint(0)
	if recursive {
		atFlags = unix.AT_RECURSIVE
	}
	err = unix.MountSetattr(unix.AT_FDCWD, dst, atFlags, &attr)
	if err == nil {
		return nil
	}
	if !errors.Is(err, unix.ENOSYS) {
		return fmt.Errorf("making %s read-only: %w", src, err)
	}
	// Before 5.12: a remount, of the top mount only, keeping the flags
	// the kernel locks in a user namespace.
	var st unix.Statfs_t
	if err := unix.Statfs(dst, &st); err != nil {
		return err
	}
	keep := uintptr(0)
	for _, f := range []struct{ st, ms uintptr }{
		{unix.ST_NOEXEC, unix.MS_NOEXEC}, {unix.ST_NOATIME, unix.MS_NOATIME},
		{unix.ST_NODIRATIME, unix.MS_NODIRATIME}, {unix.ST_RELATIME, unix.MS_RELATIME},
	} {
		if uintptr(st.Flags)&f.st != 0 {
			keep |= f.ms
		}
	}
	if err := unix.Mount("", dst, "", remount|keep, ""); err != nil {
		return fmt.Errorf("making %s read-only: %w", src, err)
	}
	return nil
}

// loopbackUp brings up lo, the only interface of a new network namespace:
// the program may talk to itself, and to nothing else.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}
