package sandbox

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The tests below go at the kernel from inside a run (red team S01, S02):
// the terminal of whoever started kata, their keyrings, memory no
// process's resident size shows, nested namespaces, the system calls a
// test binary has no use for. Each runs the attack as kata ran code
// before (it must work there, or the test proves nothing), then under
// the init, isolated and not.

// modes are the ways a test runs the hostile program: as kata ran code
// under test before there was a sandbox, under the init only, isolated.
var modes = []string{"unconfined", "subreaper", "isolated"}

// runHostile runs the hostile program with args in mode, and returns its
// result line ("" if it printed none), all it printed, and how it ended.
func runHostile(t *testing.T, mode string, spec Spec, args ...string) (string, string, error) {
	t.Helper()
	bin := hostile(t)
	var out []byte
	var err error
	if mode == "unconfined" {
		cmd := exec.Command(bin, args...)
		cmd.ExtraFiles = spec.ExtraFiles
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		out, err = cmd.CombinedOutput()
	} else {
		if mode == "isolated" {
			needSandbox(t)
		}
		f, ferr := os.CreateTemp(t.TempDir(), "out")
		if ferr != nil {
			t.Fatal(ferr)
		}
		defer f.Close()
		spec.Path, spec.Args, spec.Isolate = bin, append([]string{"hostile"}, args...), mode == "isolated"
		if spec.Dir == "" {
			spec.Dir = filepath.Dir(bin)
		}
		spec.ReadOnly = append(spec.ReadOnly, filepath.Dir(bin))
		if spec.Env == nil {
			spec.Env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp"}
			if mode == "subreaper" {
				spec.Env[2] = "TMPDIR=" + t.TempDir()
			}
		}
		spec.Stdout, spec.Stderr = f, f
		p, serr := Start(&spec)
		if serr != nil {
			t.Fatal(serr)
		}
		err = p.Wait()
		out, _ = os.ReadFile(f.Name())
	}
	res := ""
	for _, l := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(l, "result: "); ok {
			res = r
		}
	}
	return res, string(out), err
}

// filtered reports whether runs here are under the seccomp filter: not
// with KATA_SANDBOX=off, nor where Available says there is none.
func filtered() bool {
	ok, why := Available()
	return !disabled() && (!ok || why == "")
}

func needFilter(t *testing.T) {
	t.Helper()
	if !filtered() {
		_, why := Available()
		t.Skipf("no seccomp filter here: %s", why)
	}
}

// openPty opens a new pseudo-terminal: its master, and its slave.
func openPty(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("no pseudo-terminal: %v", err)
	}
	return m, s
}

// helper runs this test binary again as kata would be, running test in
// it with SANDBOX_TEST_HELPER=mode, and returns what it printed.
func helper(t *testing.T, test, mode string, setup func(*exec.Cmd)) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), "SANDBOX_TEST_HELPER="+mode, "HOSTILE_BIN="+hostile(t))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if setup != nil {
		setup(cmd)
	}
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s as kata (%s): %v\n%s", test, mode, err, out.String())
	}
	return out.String()
}

// field returns what follows "name: " on a line of out.
func field(out, name string) string {
	for _, l := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(l, name+": "); ok {
			return v
		}
	}
	return ""
}

// TestTerminalUnreachable: kata runs in a terminal; the code it grades
// can neither open it (/dev/tty) nor push a command into its input
// (TIOCSTI), which the shell would run once kata exits (red team S01),
// not even on a terminal it was handed a descriptor of (and TIOCSTI with
// bits above the 32 the kernel reads, CVE-2019-10063's way around a
// filter). And it runs in a session of its own.
func TestTerminalUnreachable(t *testing.T) {
	if mode := os.Getenv("SANDBOX_TEST_HELPER"); mode != "" {
		// Kata, in a terminal it controls (fd 0), in raw mode so that
		// every byte pushed is counted.
		tio, err := unix.IoctlGetTermios(0, unix.TCGETS)
		if err != nil {
			t.Fatal(err)
		}
		tio.Lflag &^= unix.ICANON | unix.ECHO
		if err := unix.IoctlSetTermios(0, unix.TCSETS, tio); err != nil {
			t.Fatal(err)
		}
		res, out, err := runHostile(t, mode, Spec{ExtraFiles: []*os.File{os.Stdin}}, "tty")
		queued, _ := unix.IoctlGetInt(0, unix.TIOCINQ)
		_ = unix.IoctlSetInt(0, unix.TCFLSH, unix.TCIFLUSH)
		sid, _, _ := runHostile(t, mode, Spec{}, "session")
		fmt.Printf("\nhostile: %s\nqueued: %d\nsession: %s\nkata's session: %d\n", res, queued, sid, unix.Getpgrp())
		if res == "" {
			fmt.Printf("run: %v\n%s\n", err, out)
		}
		return
	}
	for _, mode := range modes {
		if mode == "isolated" {
			needSandbox(t)
		}
		master, slave := openPty(t)
		var echo bytes.Buffer
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); _, _ = io.Copy(&echo, master) }()
		out := helper(t, "TestTerminalUnreachable", mode, func(cmd *exec.Cmd) {
			cmd.Stdin = slave
			cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
		})
		slave.Close()
		master.Close()
		wg.Wait()
		res, queued := field(out, "hostile"), field(out, "queued")
		sid, kata := field(out, "session"), field(out, "kata's session")
		if mode == "unconfined" {
			if !strings.Contains(res, "devtty: opened, write ok, TIOCSTI ok") || queued == "0" {
				t.Fatalf("unconfined, the attack failed: %s (queued %s)\n%s", res, queued, out)
			}
			continue
		}
		devtty := "devtty: open /dev/tty: no such device or address" // no controlling terminal
		if mode == "isolated" {
			devtty = "devtty: open /dev/tty: no such file or directory" // no /dev/tty either
		}
		if !strings.HasPrefix(res, devtty+"; ") {
			t.Errorf("%s: %s; want %s", mode, res, devtty)
		}
		// A terminal it was handed: only the filter keeps root (kata
		// runs as root here) from pushing input into it.
		if want := devtty + "; fd3: TIOCSTI EPERM, TIOCSTI with high bits EPERM, TIOCLINUX EPERM"; filtered() && (res != want || queued != "0") {
			t.Errorf("%s: %s, %s bytes pushed into the terminal; want %s, none", mode, res, queued, want)
		}
		if strings.Contains(echo.String(), "written by the hostile program") {
			t.Errorf("%s: the program wrote to the terminal: %q", mode, echo.String())
		}
		if !strings.HasPrefix(sid, "sid ") || strings.HasPrefix(sid, "sid "+kata+" ") ||
			(mode == "isolated" && !strings.HasPrefix(sid, "sid 1 ok")) {
			t.Errorf("%s: the run's session: %s; kata's: %s (want one of its own, led by its init)", mode, sid, kata)
		}
	}
}

// TestKeyringEmpty: kata's session keyring (where a login put the
// user's keys) is out of the run's reach (red team S01 read a key from
// it), and so is every other keyring: keyctl is refused.
func TestKeyringEmpty(t *testing.T) {
	if mode := os.Getenv("SANDBOX_TEST_HELPER"); mode != "" {
		// Kata, with a key in a session keyring of its own. Keyrings
		// are a thread's: the runs start from this one.
		runtime.LockOSThread()
		if _, _, e := unix.Syscall(unix.SYS_KEYCTL, unix.KEYCTL_JOIN_SESSION_KEYRING, 0, 0); e != 0 {
			t.Skipf("no keyrings: %v", e)
		}
		if _, err := unix.AddKey("user", "kata-canary", []byte("instructor-secret"), unix.KEY_SPEC_SESSION_KEYRING); err != nil {
			t.Skipf("no keyrings: %v", err)
		}
		res, out, err := runHostile(t, mode, Spec{}, "keyring")
		fmt.Printf("\nhostile: %s\n", res)
		if res == "" {
			fmt.Printf("run: %v\n%s\n", err, out)
		}
		return
	}
	for _, mode := range modes {
		if mode == "isolated" {
			needSandbox(t)
		}
		out := helper(t, "TestKeyringEmpty", mode, nil)
		if strings.Contains(out, "--- SKIP") {
			t.Skip(out)
		}
		res := field(out, "hostile")
		if mode == "unconfined" {
			if !strings.Contains(res, "kata-canary => instructor-secret") {
				t.Fatalf("unconfined, the attack failed: %s", out)
			}
			continue
		}
		// A new session keyring, empty; and with the filter, no keyring
		// at all.
		want := "session: []; user: []"
		if filtered() {
			want = "session: EPERM; user: EPERM"
		}
		if res != want {
			t.Errorf("%s: %s, want %s", mode, res, want)
		}
	}
}

// refused are the system calls the filter refuses, each as the hostile
// program's "syscalls" mode names it, and what it must get.
var refused = func() map[string]string {
	m := map[string]string{"clone3": "ENOSYS"} // so that glibc falls back to clone
	for _, name := range strings.Fields(`ioctl-TIOCSTI ioctl-TIOCSTI-high ioctl-TIOCLINUX keyctl add_key request_key
		ptrace process_vm_readv process_vm_writev pidfd_getfd memfd_create memfd_secret
		shmget shmat shmdt shmctl msgget msgsnd msgrcv msgctl semget semop semtimedop semctl mq_open mq_unlink
		unshare setns bpf perf_event_open userfaultfd io_uring_setup io_uring_enter io_uring_register
		mount umount2 pivot_root chroot open_tree move_mount fsopen fsconfig fsmount fspick mount_setattr
		kexec_load kexec_file_load init_module finit_module delete_module open_by_handle_at
		clone-newuser clone-newns clone-newpid clone-newnet clone-newipc clone-newuts clone-newcgroup`) {
		m[name] = "EPERM"
	}
	return m
}()

// TestRefusedSyscalls: the run gets EPERM (ENOSYS for clone3) for every
// system call the filter refuses, and what a test binary does still
// works: threads, processes, ioctls on its own files.
func TestRefusedSyscalls(t *testing.T) {
	parse := func(res string) map[string]string {
		got := map[string]string{}
		for _, f := range strings.Fields(res) {
			if name, v, ok := strings.Cut(f, "="); ok {
				got[name] = v
			}
		}
		return got
	}
	for _, mode := range modes {
		if mode != "unconfined" {
			needFilter(t)
		}
		res, out, err := runHostile(t, mode, Spec{}, "syscalls")
		got := parse(res)
		if err != nil || len(got) < len(refused) {
			t.Fatalf("%s: %v\n%s", mode, err, out)
		}
		if mode == "unconfined" {
			// What each call gets where nothing refuses it: the calls
			// are harmless, and their errors are not EPERM (so EPERM in
			// the sandbox is the filter's).
			for name, want := range map[string]string{"memfd_create": "ok", "keyctl": "ok", "unshare": "ok",
				"shmget": "ok", "msgget": "ok", "clone3": "EINVAL", "ioctl-TIOCSTI": "ENOTTY",
				"ioctl-TIOCSTI-high": "ENOTTY", "mount": "ENOENT", "chroot": "ENOENT", "setns": "EBADF"} {
				if got[name] != want {
					t.Fatalf("unconfined, %s: %s, want %s: %s", name, got[name], want, res)
				}
			}
			continue
		}
		for name, want := range refused {
			if got[name] != want {
				t.Errorf("%s: %s got %s, want %s", mode, name, got[name], want)
			}
		}
		for _, name := range []string{"ioctl-FIONREAD", "clone-thread"} {
			if got[name] != "ok" {
				t.Errorf("%s: %s got %s, want ok", mode, name, got[name])
			}
		}
	}
}

// noForeignABI says why this machine makes no i386 system call (a kernel
// built without IA32 emulation: nothing to kill), or "" if it makes them.
func noForeignABI(t *testing.T) string {
	res, _, err := runHostile(t, "unconfined", Spec{}, "int80")
	if err != nil || !strings.HasPrefix(res, "int80 keyctl: keyring ") {
		return fmt.Sprintf("no i386 system calls here: %s %v", res, err)
	}
	return ""
}

// TestForeignABIsKilled: a system call made through another ABI than the
// one the filter's numbers are for (i386's int $0x80, x32's numbers) kills
// the run: with i386's numbers, keyctl is 288, and would pass a filter
// that did not check the architecture.
func TestForeignABIsKilled(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("amd64 only")
	}
	if why := noForeignABI(t); why != "" {
		t.Skip(why)
	}
	needFilter(t)
	for _, mode := range modes[1:] {
		for _, abi := range []string{"int80", "x32"} {
			res, out, err := runHostile(t, mode, Spec{}, abi)
			if res != "" || err == nil || !strings.Contains(err.Error(), "exit status 159") { // 128 + SIGSYS
				t.Errorf("%s, %s: %q, %v, want killed by SIGSYS (exit status 159)\n%s", mode, abi, res, err, out)
			}
		}
	}
}

// TestNoNestedNamespaces: `unshare -U`, a user namespace of the run's
// own where it is root again with every capability (red team S02
// mounted an unbounded tmpfs in one), is refused.
func TestNoNestedNamespaces(t *testing.T) {
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare(1)")
	}
	for _, mode := range modes {
		for _, args := range [][]string{{"-U", "true"}, {"-Urm", "sh", "-c", "mount -t tmpfs -o size=1g x /tmp && echo mounted"}} {
			res, out, _ := runHostile(t, mode, Spec{}, append([]string{"nested"}, args...)...)
			if mode == "unconfined" {
				if !strings.HasPrefix(res, "unshare: <nil>") {
					t.Skipf("no user namespaces here, even unconfined: %s\n%s", res, out)
				}
				continue
			}
			if mode == "subreaper" {
				needFilter(t)
			}
			if !strings.Contains(res, "Operation not permitted") || strings.Contains(res, "mounted") {
				t.Errorf("%s: unshare %s: %s", mode, strings.Join(args, " "), res)
			}
		}
	}
}

// TestNamespaceLimits: inside, what the namespace's owner may set is set
// so that nothing of what the filter refuses would work without it
// either: no namespace may be made in the run's user namespace, no
// System V shared memory or message queue, no POSIX message queue in its
// IPC namespace; and /proc/sys is read-only, so that the run (root of
// its user namespace, when kata is not root) cannot set them back.
func TestNamespaceLimits(t *testing.T) {
	needSandbox(t)
	for _, path := range []string{"user/max_user_namespaces", "user/max_mnt_namespaces", "user/max_pid_namespaces",
		"user/max_net_namespaces", "user/max_ipc_namespaces", "user/max_uts_namespaces", "user/max_cgroup_namespaces",
		"kernel/shmmni", "kernel/shmall", "kernel/shmmax", "kernel/msgmni", "fs/mqueue/queues_max", "kernel/sem"} {
		if _, err := os.Stat("/proc/sys/" + path); err != nil {
			continue
		}
		want := `cat: "0" <nil>`
		if path == "kernel/sem" {
			want = `cat: "0\t0\t0\t0" <nil>`
		}
		if got := inSandbox(t, true, Spec{}, "cat", "/proc/sys/"+path); got != want {
			t.Errorf("in the sandbox, %s: %s, want 0", path, got)
		}
	}
	if got := inSandbox(t, true, Spec{}, "write", "/proc/sys/kernel/shmmni"); !strings.Contains(got, "read-only file system") {
		t.Errorf("in the sandbox, writing /proc/sys/kernel/shmmni: %s", got)
	}
}

// residentOnly is what the watchdog counted before it counted shared
// memory: the resident size of every process of the tree.
func residentOnly(pid int) int64 { return treeMemory(processes(), pid) }

// TestMemoryCountsSharedMemory: the memory a run holds where no
// process's resident size shows it (red team S02 held 1440 MiB in
// memfds under a limit of 300) is counted: memory written to a memfd
// never mapped (refused in the sandbox, so measured on a program run
// outside it), to a shared mapping whose pages the program dropped from
// its page tables, to a file of its /tmp that it closed.
func TestMemoryCountsSharedMemory(t *testing.T) {
	const mib = 192
	// A memfd, outside the sandbox.
	cmd := exec.Command(hostile(t), "hold", fmt.Sprint(mib), "memfd")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "result: holding\n" {
		t.Fatalf("hold memfd: %q", line)
	}
	rss, all := residentOnly(cmd.Process.Pid), MemoryOf(cmd.Process.Pid)
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	if rss > 64<<20 {
		t.Errorf("memfd: the resident size alone is %d MiB: the test proves nothing", rss>>20)
	}
	if all < mib<<20 {
		t.Errorf("memfd of %d MiB: MemoryOf says %d MiB", mib, all>>20)
	}

	for _, kind := range []string{"shared", "tmp"} {
		for _, isolate := range []bool{false, true} {
			if kind == "tmp" && !isolate {
				continue // a temporary directory on the host's disk is disk
			}
			if isolate {
				needSandbox(t)
			}
			spec := &Spec{Path: hostile(t), Args: []string{"hostile", "hold", fmt.Sprint(mib), kind}, Dir: "/",
				Env: []string{"PATH=/bin", "TMPDIR=/tmp"}, Isolate: isolate, ReadOnly: []string{filepath.Dir(hostile(t))},
				TmpSize: 2 * mib << 20}
			p, err := Start(spec)
			if err != nil {
				t.Fatal(err)
			}
			ok := false
			for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if p.Memory() >= mib<<20 {
					ok = true
					break
				}
			}
			memory, rss := p.Memory(), residentOnly(p.Pid())
			p.Kill()
			_ = p.Wait()
			if !ok {
				t.Errorf("%s, isolated %v: %d MiB held, Memory says %d MiB", kind, isolate, mib, memory>>20)
			}
			if rss > 64<<20 {
				t.Errorf("%s, isolated %v: the resident size alone is %d MiB: the test proves nothing", kind, isolate, rss>>20)
			}
		}
	}
}

var (
	racyOnce sync.Once
	racyErr  error
)

// racy returns the path of testdata/racy built with -race, in the
// hostile program's directory (which the runs bind).
func racy(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RACY_BIN"); p != "" {
		return p
	}
	path := filepath.Join(filepath.Dir(hostile(t)), "racy")
	racyOnce.Do(func() {
		out, err := exec.Command("go", "build", "-race", "-o", path, "./testdata/racy").CombinedOutput()
		if err != nil {
			racyErr = fmt.Errorf("building testdata/racy with -race: %v\n%s", err, out)
		}
	})
	if racyErr != nil {
		t.Skip(racyErr)
	}
	return path
}

// TestRaceProgramRuns: what a graded test binary does, built with the
// race detector, still works under the filter, isolated or not:
// goroutines on threads (glibc's pthread_create, whose clone3 gets
// ENOSYS and falls back to clone), timers, the loopback, os/exec of a
// shell and of another race-enabled program; and the race detector
// still reports a data race.
func TestRaceProgramRuns(t *testing.T) {
	bin := racy(t)
	for _, isolate := range []bool{false, true} {
		if isolate {
			needSandbox(t)
		}
		for _, arg := range []string{"", "race"} {
			f, err := os.CreateTemp(t.TempDir(), "out")
			if err != nil {
				t.Fatal(err)
			}
			args := []string{"racy"}
			if arg != "" {
				args = append(args, arg)
			}
			p, err := Start(&Spec{Path: bin, Args: args, Dir: "/", Env: []string{"PATH=/usr/bin:/bin", "TMPDIR=/tmp"},
				Stdout: f, Stderr: f, Isolate: isolate, ReadOnly: []string{filepath.Dir(bin)}})
			if err != nil {
				t.Fatal(err)
			}
			werr := p.Wait()
			out, _ := os.ReadFile(f.Name())
			f.Close()
			if arg == "" {
				if werr != nil || !regexp.MustCompile(`(?m)^result: ok 64 goroutines, .*, hello, shell ok, child ok$`).Match(out) {
					t.Errorf("isolated %v: %v\n%s", isolate, werr, out)
				}
			} else if werr == nil || !strings.Contains(werr.Error(), "exit status 66") || !bytes.Contains(out, []byte("WARNING: DATA RACE")) {
				t.Errorf("isolated %v, a data race: %v\n%s", isolate, werr, out)
			}
		}
	}
}
