package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"net"
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

	"github.com/gmp-kata/gmp-kata/internal/liveprocs"
)

// The tests below run testdata/hostile, a program that tries one attack
// at a time, in the sandbox, and each also runs it the way kata ran code
// under test before there was one (a child in a process group of its
// own, with kata's environment): the attack must work there, or the test
// proves nothing, and fail in the sandbox.

var (
	hostileOnce sync.Once
	hostileDir  string // holds the hostile program, and nothing else
	hostileErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if hostileDir != "" {
		os.RemoveAll(hostileDir)
	}
	os.Exit(code)
}

// hostile returns the path of the hostile program, built once. With
// HOSTILE_BIN set (TestAsAnUnprivilegedUser), it is that one.
func hostile(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("HOSTILE_BIN"); p != "" {
		return p
	}
	hostileOnce.Do(func() {
		if hostileDir, hostileErr = os.MkdirTemp("", "kata-hostile-"); hostileErr != nil {
			return
		}
		_ = os.Chmod(hostileDir, 0o755)
		out, err := exec.Command("go", "build", "-o", filepath.Join(hostileDir, "hostile"), "./testdata/hostile").CombinedOutput()
		if err != nil {
			hostileErr = fmt.Errorf("building testdata/hostile: %v\n%s", err, out)
		}
	})
	if hostileErr != nil {
		t.Fatal(hostileErr)
	}
	return filepath.Join(hostileDir, "hostile")
}

func needSandbox(t *testing.T) {
	t.Helper()
	if ok, why := Available(); !ok {
		t.Skipf("no sandbox here: %s", why)
	}
}

// inSandbox runs the hostile program with args, isolated (or only under
// the subreaper init), and returns what it found.
func inSandbox(t *testing.T, isolate bool, spec Spec, args ...string) string {
	t.Helper()
	bin := hostile(t)
	out, err := os.CreateTemp(t.TempDir(), "out")
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	spec.Path, spec.Args, spec.Isolate = bin, append([]string{"hostile"}, args...), isolate
	if spec.Dir == "" {
		spec.Dir = filepath.Dir(bin)
	}
	spec.ReadOnly = append(spec.ReadOnly, filepath.Dir(bin))
	if spec.Env == nil {
		spec.Env = []string{"PATH=/usr/bin:/bin", "HOME=/tmp", "TMPDIR=/tmp"}
	}
	spec.Stdout, spec.Stderr = out, out
	p, err := Start(&spec)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("hostile %s: %v", strings.Join(args, " "), err)
	}
	data, _ := os.ReadFile(out.Name())
	return result(t, data)
}

// unconfined runs the hostile program as kata ran the test binary before
// the sandbox: kata's environment, a process group of its own, and
// nothing killed when it exits.
func unconfined(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(hostile(t), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	data, err := cmd.CombinedOutput()
	if err != nil {
		t.Errorf("hostile %s, unconfined: %v", strings.Join(args, " "), err)
	}
	return result(t, data)
}

func result(t *testing.T, out []byte) string {
	t.Helper()
	for _, l := range strings.Split(string(out), "\n") {
		if r, ok := strings.CutPrefix(l, "result: "); ok {
			return r
		}
	}
	t.Fatalf("no result in:\n%s", out)
	return ""
}

// TestIsolatedFileSystem: the program sees the system's directories and
// what kata binds, read-only, a /tmp of its own, and nothing else: not a
// file next door, not $HOME, not kata's executable.
func TestIsolatedFileSystem(t *testing.T) {
	needSandbox(t)
	outside := t.TempDir()
	secret := filepath.Join(outside, "id_ed25519")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	self, _ := os.Executable()

	if got := unconfined(t, "read", secret); got != "read 12 bytes: <nil>" {
		t.Fatalf("unconfined, reading %s: %s", secret, got)
	}
	for _, path := range []string{secret, self, "/proc/1/root/etc/hostname"} {
		if got := inSandbox(t, true, Spec{}, "read", path); !strings.Contains(got, "no such file or directory") &&
			!strings.Contains(got, "permission denied") {
			t.Errorf("in the sandbox, reading %s: %s", path, got)
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" {
		if got := inSandbox(t, true, Spec{}, "read", home); !strings.Contains(got, "no such file or directory") {
			t.Errorf("in the sandbox, $HOME (%s): %s", home, got)
		}
	}
	if got := inSandbox(t, true, Spec{}, "read", "/etc/passwd"); !strings.Contains(got, "<nil>") {
		t.Errorf("in the sandbox, the system's /etc/passwd: %s", got)
	}
	if _, err := os.Stat("/etc/shadow"); err == nil {
		// Root's only, even when kata runs as root.
		if got := inSandbox(t, true, Spec{}, "read", "/etc/shadow"); !strings.Contains(got, "permission denied") {
			t.Errorf("in the sandbox, /etc/shadow: %s", got)
		}
	}

	bound := t.TempDir()
	if got := unconfined(t, "write", filepath.Join(bound, "planted")); got != "write: <nil>" {
		t.Fatalf("unconfined, writing: %s", got)
	}
	for _, path := range []string{filepath.Join(bound, "planted2"), filepath.Join(outside, "planted"), "/planted", "/usr/planted", "/etc/planted"} {
		got := inSandbox(t, true, Spec{ReadOnly: []string{bound}}, "write", path)
		if !strings.Contains(got, "read-only file system") && !strings.Contains(got, "no such file or directory") {
			t.Errorf("in the sandbox, writing %s: %s", path, got)
		}
		if _, err := os.Stat(path); err == nil && path != filepath.Join(bound, "planted") {
			t.Errorf("%s was written", path)
		}
	}
	if got := inSandbox(t, true, Spec{}, "write", "/tmp/mine"); got != "write: <nil>" {
		t.Errorf("in the sandbox, writing its own /tmp: %s", got)
	}
}

// TestIsolatedNetwork: a listener of the host's loopback is out of reach.
func TestIsolatedNetwork(t *testing.T) {
	needSandbox(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var mu sync.Mutex
	var heard []string
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			b := make([]byte, 100)
			n, _ := c.Read(b)
			mu.Lock()
			heard = append(heard, string(b[:n]))
			mu.Unlock()
			c.Close()
		}
	}()
	addr := l.Addr().String()
	if got := unconfined(t, "dial", addr); got != "dial: <nil>" {
		t.Fatalf("unconfined, dialing %s: %s", addr, got)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	before := len(heard)
	mu.Unlock()
	if got := inSandbox(t, true, Spec{}, "dial", addr); !strings.Contains(got, "connection refused") {
		t.Errorf("in the sandbox, dialing %s: %s", addr, got)
	}
	if got := inSandbox(t, true, Spec{}, "dial", "1.1.1.1:443"); !strings.Contains(got, "network is unreachable") {
		t.Errorf("in the sandbox, dialing out: %s", got)
	}
	time.Sleep(100 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != before {
		t.Errorf("the listener heard from the sandbox: %q", heard[before:])
	}
}

// TestIsolatedEnvironment: the program's environment is what kata gives
// it, and no other process's is in reach: not kata's (a test's
// environment plays it), not its init's.
func TestIsolatedEnvironment(t *testing.T) {
	needSandbox(t)
	t.Setenv("KATA_INSTRUCTOR_TOKEN", "hunter2")
	// os.Setenv does not change /proc/PID/environ: the marker must be in
	// a process's initial environment. A sleeping child of the test's
	// plays kata.
	kata := exec.Command("sleep", "60")
	kata.Env = append(os.Environ(), "KATA_INSTRUCTOR_TOKEN=hunter2")
	if err := kata.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = kata.Process.Kill(); _ = kata.Wait() }()

	if got := unconfined(t, "environ"); !strings.Contains(got, "KATA_INSTRUCTOR_TOKEN") {
		t.Fatalf("unconfined: %s", got)
	}
	got := inSandbox(t, true, Spec{Env: []string{"PATH=/usr/bin:/bin", "HOME=/tmp"}}, "environ")
	if want := "own: HOME,PATH; others: ; processes: 2"; got != want {
		t.Errorf("in the sandbox: %s, want %s (the init's environment unreadable, no process of kata's in /proc)", got, want)
	}
}

// TestIsolatedTmp: /tmp holds TmpSize bytes, and every file FileSize.
func TestIsolatedTmp(t *testing.T) {
	needSandbox(t)
	if got := unconfined(t, "fill", "48"); got != "wrote 48 MiB: <nil>" {
		t.Fatalf("unconfined: %s", got)
	}
	got := inSandbox(t, true, Spec{TmpSize: 16 << 20}, "fill", "1024")
	if !regexp.MustCompile(`^wrote 1[0-6] MiB: .*no space left on device$`).MatchString(got) {
		t.Errorf("in the sandbox with a /tmp of 16 MiB: %s", got)
	}
	got = inSandbox(t, false, Spec{FileSize: 8 << 20, Env: []string{"TMPDIR=" + t.TempDir()}}, "fill", "1024")
	if !regexp.MustCompile(`^wrote 8 MiB: .*file too large$`).MatchString(got) {
		t.Errorf("with no sandbox, files of 8 MiB at most: %s", got)
	}
}

// TestNoPrivileges: root of the sandbox's user namespace, the program
// has no capability: it cannot mount, nor remount read-write what is
// read-only, nor read or kill its init.
func TestNoPrivileges(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	got := inSandbox(t, true, Spec{ReadOnly: []string{dir}}, "privileges", dir)
	uid := "uid 0 gid 0" // the user's own, seen as root in the user namespace
	if os.Getuid() == 0 {
		uid = "uid 65534 gid 65534" // kata runs as root: the program as nobody
	}
	for _, want := range []string{
		uid, "CapInh: 0000000000000000", "CapPrm: 0000000000000000", "CapEff: 0000000000000000",
		"CapBnd: 0000000000000000", "CapAmb: 0000000000000000",
		"mount tmpfs: operation not permitted", "remount rw: operation not permitted",
		"init's environ: open /proc/1/environ: permission denied",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("in the sandbox: %s\nwant %q", got, want)
		}
	}
	if strings.Contains(got, "init after SIGKILL: no such process") {
		t.Errorf("in the sandbox, the program killed its init: %s", got)
	}
}

// TestExtraFiles: the program gets ExtraFiles as fds 3, 4, ... and no
// other file of kata's or of the init's.
func TestExtraFiles(t *testing.T) {
	for _, isolate := range []bool{false, true} {
		if isolate {
			needSandbox(t)
		}
		r1, w1, _ := os.Pipe()
		r2, w2, _ := os.Pipe()
		got := inSandbox(t, isolate, Spec{ExtraFiles: []*os.File{r1, w2}}, "fds")
		r1.Close()
		w1.Close()
		r2.Close()
		w2.Close()
		if got != "3=pipe,4=pipe" {
			t.Errorf("isolated %v: open files %q, want 3=pipe,4=pipe", isolate, got)
		}
	}
}

// TestNothingOutlivesTheRun: children the program left, in its process
// group or in sessions of their own, die when it exits, isolated or not.
func TestNothingOutlivesTheRun(t *testing.T) {
	for _, mode := range []string{"group", "setsid"} {
		marker := fmt.Sprintf("unconfined-%s-%d", mode, time.Now().UnixNano())
		unconfined(t, "spawn", marker, "5", mode)
		time.Sleep(200 * time.Millisecond)
		left := liveprocs.WithEnv("HOSTILE_MARKER=" + marker + "\x00")
		liveprocs.Kill(left)
		if len(left) != 5 {
			t.Fatalf("unconfined (%s): %d sleepers left, want 5", mode, len(left))
		}
		for _, isolate := range []bool{false, true} {
			if isolate {
				needSandbox(t)
			}
			marker := fmt.Sprintf("%s-%v-%d", mode, isolate, time.Now().UnixNano())
			if got := inSandbox(t, isolate, Spec{}, "spawn", marker, "5", mode); got != "spawned" {
				t.Fatalf("isolated %v: %s", isolate, got)
			}
			if left := liveprocs.WithEnv("HOSTILE_MARKER=" + marker + "\x00"); len(left) > 0 {
				liveprocs.Kill(left)
				t.Errorf("isolated %v (%s): %d processes outlived the run", isolate, mode, len(left))
			}
		}
	}
}

// TestKillKillsEverything: Kill, in the middle of a run, kills the
// children it left in sessions of their own too.
func TestKillKillsEverything(t *testing.T) {
	for _, isolate := range []bool{false, true} {
		if isolate {
			needSandbox(t)
		}
		marker := fmt.Sprintf("kill-%v-%d", isolate, time.Now().UnixNano())
		p, err := Start(&Spec{Path: hostile(t), Args: []string{"hostile", "grow", marker, "1"}, Dir: "/",
			Env: []string{"PATH=/bin"}, Isolate: isolate, ReadOnly: []string{filepath.Dir(hostile(t))}})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return len(liveprocs.WithEnv("HOSTILE_MARKER="+marker+"\x00")) == 1 })
		p.Kill()
		_ = p.Wait()
		if left := liveprocs.WithEnv("HOSTILE_MARKER=" + marker + "\x00"); len(left) > 0 {
			liveprocs.Kill(left)
			t.Errorf("isolated %v: %d processes outlived Kill", isolate, len(left))
		}
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("timed out")
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// TestDiesWithKata: when kata dies, killed, the whole isolated run dies
// with it, setsid children included.
func TestDiesWithKata(t *testing.T) {
	if marker := os.Getenv("SANDBOX_TEST_KATA"); marker != "" {
		// The helper: plays kata, starting a run and waiting for it.
		p, err := Start(&Spec{Path: hostile(t), Args: []string{"hostile", "grow", marker, "1"}, Dir: "/",
			Env: []string{"PATH=/bin"}, Isolate: true, ReadOnly: []string{filepath.Dir(hostile(t))}})
		if err != nil {
			t.Fatal(err)
		}
		_ = p.Wait()
		return
	}
	needSandbox(t)
	marker := fmt.Sprintf("dies-with-kata-%d", time.Now().UnixNano())
	kata := exec.Command(os.Args[0], "-test.run=^TestDiesWithKata$")
	kata.Env = append(os.Environ(), "SANDBOX_TEST_KATA="+marker, "HOSTILE_BIN="+hostile(t))
	if err := kata.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(liveprocs.WithEnv("HOSTILE_MARKER="+marker+"\x00")) == 1 })
	_ = kata.Process.Kill()
	_ = kata.Wait()
	waitFor(t, func() bool { return len(liveprocs.WithEnv("HOSTILE_MARKER="+marker+"\x00")) == 0 })
}

// TestMemoryCountsEveryProcess: Memory adds up every process of the run,
// a child in a session of its own included, where the old watchdog added
// up the process group only.
func TestMemoryCountsEveryProcess(t *testing.T) {
	for _, isolate := range []bool{false, true} {
		if isolate {
			needSandbox(t)
		}
		marker := fmt.Sprintf("grow-%v-%d", isolate, time.Now().UnixNano())
		p, err := Start(&Spec{Path: hostile(t), Args: []string{"hostile", "grow", marker, "256"}, Dir: "/",
			Env: []string{"PATH=/bin"}, Isolate: isolate, ReadOnly: []string{filepath.Dir(hostile(t))}})
		if err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool { return p.Memory() > 256<<20 })
		if group := groupMemory(p.Pid()); group > 128<<20 {
			t.Errorf("isolated %v: the process group alone holds %d MiB: the test proves nothing", isolate, group>>20)
		}
		p.Kill()
		_ = p.Wait()
		liveprocs.Kill(liveprocs.WithEnv("HOSTILE_MARKER=" + marker + "\x00"))
	}
}

// groupMemory is the old watchdog's sum: the processes of process group
// pgid only.
func groupMemory(pgid int) int64 {
	var total int64
	for _, p := range processes() {
		if g, err := syscall.Getpgid(p.pid); err == nil && g == pgid {
			total += p.rss
		}
	}
	return total
}

// TestMemoryOfAgreesWithPS reads this test's own process tree both ways
// the sandbox can (ps everywhere but Windows; /proc on Linux), so that
// the macOS way is exercised on Linux.
func TestMemoryOfAgreesWithPS(t *testing.T) {
	out, err := exec.Command("ps", "-A", "-o", "pid=,ppid=,rss=").Output()
	if err != nil {
		t.Skip("no ps here")
	}
	viaPS, native := treeMemory(parsePS(out), os.Getpid()), MemoryOf(os.Getpid())
	if viaPS <= 0 || native <= 0 {
		t.Fatalf("ps: %d, /proc: %d", viaPS, native)
	}
	if d := viaPS - native; d > native/4+16<<20 || -d > native/4+16<<20 {
		t.Errorf("ps: %d KiB, /proc: %d KiB", viaPS>>10, native>>10)
	}
}

func TestDescendants(t *testing.T) {
	procs := []proc{{pid: 1, ppid: 0, rss: 1}, {pid: 10, ppid: 1, rss: 2}, {pid: 11, ppid: 10, rss: 4},
		{pid: 12, ppid: 11, rss: 8}, {pid: 20, ppid: 1, rss: 16}, {pid: 13, ppid: 10, rss: 32}}
	if got := treeMemory(procs, 10); got != 2+4+8+32 {
		t.Errorf("tree of 10: %d, want 46", got)
	}
	if got := treeMemory(procs, 99); got != 0 {
		t.Errorf("no such process: %d", got)
	}
	ps := parsePS([]byte("    1     0  1200\n  42    1   3000\n  43   42   24\n\n oops\n  44 42 x\n"))
	if got := treeMemory(ps, 42); got != (3000+24)<<10 {
		t.Errorf("ps tree of 42: %d", got)
	}
}

// TestAsAnUnprivilegedUser runs the sandbox's tests again as nobody, as
// the users of kata are: a sandbox made with the privileges of root
// would prove nothing for them.
func TestAsAnUnprivilegedUser(t *testing.T) {
	if os.Getuid() != 0 || os.Getenv("HOSTILE_BIN") != "" {
		t.Skip("only as root: runs the tests again as nobody")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Skip("no setpriv")
	}
	needSandbox(t)
	// Directly in the system's temporary directory: t.TempDir's parent is
	// root's alone.
	dir, err := os.MkdirTemp("", "kata-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	_ = os.Chmod(dir, 0o777)
	self, _ := os.Executable()
	data, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	test := filepath.Join(dir, "sandbox.test")
	if err := os.WriteFile(test, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// A skip as nobody is a failure (the sandbox did not start for the
	// users), except the one the machine makes for root too: a kernel
	// without IA32 emulation has no i386 system call to kill.
	tests := "Isolated|NoPrivileges|ExtraFiles|NothingOutlives|KillKills|MemoryCounts|TerminalUnreachable|KeyringEmpty|RefusedSyscalls|NoNestedNamespaces|NamespaceLimits|RaceProgramRuns"
	if why := noForeignABI(t); runtime.GOARCH == "amd64" && why == "" {
		tests += "|ForeignABIsKilled"
	} else {
		t.Logf("not run as nobody: TestForeignABIsKilled (%s)", why)
	}
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", test,
		"-test.run=^Test("+tests+")", "-test.v")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=/nonexistent", "TMPDIR=" + dir, "HOSTILE_BIN=" + hostile(t), "RACY_BIN=" + racy(t)}
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("--- SKIP")) {
		t.Errorf("as nobody: %v\n%s", err, out)
	}
	t.Logf("as nobody:\n%s", out)
}
