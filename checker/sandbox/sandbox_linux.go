package sandbox

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// nobody is the uid and gid an isolated program runs as when kata runs
// as root.
const nobody = 65534

// envInit names the environment variable that makes this executable,
// started again by Start, the init of a sandbox (see init_linux.go). Its
// value is the initConfig, in JSON.
const envInit = "KATA_SANDBOX_INIT"

// initConfig is what Start tells the init it starts.
type initConfig struct {
	Path     string
	Args     []string
	Env      []string
	Dir      string
	Files    int // the program's ExtraFiles: the init's fds 3 to 3+Files-1; 3+Files is the status pipe
	Isolate  bool
	ReadOnly []string
	TmpSize  int64
	FileSize int64
	Root     string // an empty directory to build the sandbox's root on
	Nobody   bool   // run the program as uid and gid nobody (kata runs as root)
	Probe    bool   // build the sandbox, start nothing
	Filter   filter // whether to install the seccomp filter
}

// A filter says whether the init installs the seccomp filter.
type filter int

const (
	filterOff     filter = iota // not (KATA_SANDBOX=off)
	filterTry                   // if it can: the system may have no seccomp
	filterRequire               // or fail: the probe installed one
)

// A Proc is a program started by Start, and every process it starts.
type Proc struct {
	cmd      *exec.Cmd
	isolated bool
	root     string
	note     []byte // what the probe's init said it went without

	mu     sync.Mutex
	waited bool
}

// Start starts s.Path under an init process of its own: kata's own
// executable, started again (/proc/self/exe), whose only work is to start
// the program, wait for it, and then kill every process left.
//
// Isolated, the init is the first process of new user, PID, mount,
// network, IPC and UTS namespaces: it builds the program's file system
// (see the package's documentation), and when it exits, for whatever
// reason, the kernel kills every process of its PID namespace.
//
// Not isolated, the init is a child subreaper (PR_SET_CHILD_SUBREAPER):
// a process whose parent exits, setsid or not, becomes the init's, and
// so stays in the tree the init kills.
func Start(s *Spec) (*Proc, error) {
	if s.Isolate {
		if ok, why := Available(); !ok {
			return nil, fmt.Errorf("sandbox: not available: %s", why)
		}
	}
	return start(s, false)
}

func start(s *Spec, probe bool) (*Proc, error) {
	c := initConfig{Path: s.Path, Args: s.Args, Env: s.Env, Dir: s.Dir, Files: len(s.ExtraFiles), Isolate: s.Isolate,
		ReadOnly: s.ReadOnly, TmpSize: s.TmpSize, FileSize: s.FileSize, Probe: probe, Filter: filterTry}
	if disabled() {
		c.Filter = filterOff
	} else if !probe {
		if ok, why := Available(); ok && why == "" {
			c.Filter = filterRequire
		}
	}
	if c.TmpSize == 0 {
		c.TmpSize = DefaultTmpSize
	}
	p := &Proc{isolated: s.Isolate}
	if s.Isolate {
		root, err := os.MkdirTemp("", "kata-sandbox-")
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		c.Root, p.root = root, root
	}
	c.Nobody = s.Isolate && os.Getuid() == 0
	cfg, err := json.Marshal(c)
	if err != nil {
		p.cleanup()
		return nil, err
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		p.cleanup()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	defer statusR.Close()
	cmd := &exec.Cmd{
		Path:       "/proc/self/exe",
		Args:       []string{"kata-sandbox-init"},
		Env:        []string{envInit + "=" + string(cfg)},
		Stdout:     s.Stdout,
		Stderr:     s.Stderr,
		ExtraFiles: append(append([]*os.File{}, s.ExtraFiles...), statusW),
		// Setsid: the run is in a session of its own, with no
		// controlling terminal, so that it cannot open kata's (/dev/tty)
		// or push input into it; and a process group of its own, led by
		// the init. Pdeathsig: the init dies with kata (and, isolated,
		// everything else of the run with it).
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
	}
	if s.Isolate {
		// The namespaces, with the user's own uid and gid seen as 0
		// inside: what an unprivileged user may map.
		cmd.SysProcAttr.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
			syscall.CLONE_NEWNET | syscall.CLONE_NEWIPC | syscall.CLONE_NEWUTS
		cmd.SysProcAttr.UidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}}
		cmd.SysProcAttr.GidMappings = []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}}
		cmd.SysProcAttr.GidMappingsEnableSetgroups = false
		if os.Getuid() == 0 {
			// Root (a grader in a container): the program runs as nobody,
			// so that it cannot read what only root may, /etc/shadow say,
			// in the directories it sees.
			cmd.SysProcAttr.UidMappings = append(cmd.SysProcAttr.UidMappings, syscall.SysProcIDMap{ContainerID: nobody, HostID: nobody, Size: 1})
			cmd.SysProcAttr.GidMappings = append(cmd.SysProcAttr.GidMappings, syscall.SysProcIDMap{ContainerID: nobody, HostID: nobody, Size: 1})
		}
	}
	p.cmd = cmd
	if err := cmd.Start(); err != nil {
		statusW.Close()
		p.cleanup()
		return nil, fmt.Errorf("sandbox: starting its init: %w", err)
	}
	statusW.Close()
	// The init says "ok" once the program has started, or why it could
	// not; it closes the pipe either way.
	status := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(statusR, 4096))
		status <- b
	}()
	var said []byte
	select {
	case said = <-status:
	case <-time.After(time.Minute):
		said = []byte("error: the init did not start the program within a minute")
	}
	// "ok", or "ok; " and what the sandbox goes without (a probe's
	// only).
	said, p.note, _ = bytes.Cut(said, []byte("; "))
	if string(said) != "ok" {
		p.Kill()
		_ = p.Wait()
		msg := strings.TrimPrefix(string(said), "error: ")
		if msg == "" {
			msg = "its init exited before starting the program"
		}
		return nil, errors.New("sandbox: " + msg)
	}
	// The init has pivoted to its own root, and needs the directory it
	// built it on no more: removed now, it is not left behind should
	// kata be killed.
	p.cleanup()
	return p, nil
}

// Pid is the process ID of the program's init (in kata's PID namespace).
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Isolated reports whether the program runs in the sandbox.
func (p *Proc) Isolated() bool { return p.isolated }

// Kill kills the program and every process it started, now.
func (p *Proc) Kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waited {
		return
	}
	if !p.isolated {
		// The init is a subreaper: while it lives, every process of the
		// run is in its tree.
		killTree(p.cmd.Process.Pid)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	// Isolated, the init is PID 1 of the run's PID namespace: the kernel
	// kills every other process of it when it dies.
	_ = p.cmd.Process.Kill()
}

// Wait waits for the program to exit, and returns as exec.Cmd's Wait
// does. By then every process it started has been killed.
func (p *Proc) Wait() error {
	err := p.cmd.Wait()
	p.mu.Lock()
	p.waited = true
	p.mu.Unlock()
	if !p.isolated {
		// The init killed its tree before exiting; its process group,
		// in case it was killed first.
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
	p.cleanup()
	return err
}

// Memory returns the memory, in bytes, that the run holds: what every
// process of it holds, all the init's descendants, with the shared
// memory they hold open or map counted once (see MemoryOf); and,
// isolated, what is in its /tmp, a tmpfs, whether a process holds it
// open or not.
func (p *Proc) Memory() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waited {
		return 0
	}
	pid := p.cmd.Process.Pid
	if !p.isolated {
		return MemoryOf(pid)
	}
	// The run's /tmp, seen through its init's root (kata, which made
	// the user namespace, may look there).
	tmp := fmt.Sprintf("/proc/%d/root/tmp", pid)
	var st unix.Stat_t
	var fs unix.Statfs_t
	if unix.Stat(tmp, &st) != nil || unix.Statfs(tmp, &fs) != nil || !isShmem(&fs) {
		return MemoryOf(pid)
	}
	return treeMemoryShared(processes(), pid, uint64(st.Dev)) + int64(fs.Blocks-fs.Bfree)*int64(fs.Bsize)
}

func (p *Proc) cleanup() {
	if p.root != "" {
		_ = os.Remove(p.root)
		p.root = ""
	}
}

// probe starts an empty sandbox, to learn whether this system can have
// one.
func probe() (bool, string) {
	p, err := start(&Spec{Isolate: true}, true)
	if err == nil {
		err = p.Wait()
	}
	if err == nil {
		return true, string(p.note)
	}
	why := strings.TrimPrefix(err.Error(), "sandbox: ")
	// The usual reasons, from the system's settings.
	read := func(path string) string {
		b, _ := os.ReadFile(path)
		return strings.TrimSpace(string(b))
	}
	switch {
	case read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		why = "unprivileged user namespaces are disabled (sysctl kernel.unprivileged_userns_clone=0): " + why
	case read("/proc/sys/user/max_user_namespaces") == "0":
		why = "user namespaces are disabled (sysctl user.max_user_namespaces=0): " + why
	case read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1":
		why = "AppArmor restricts unprivileged user namespaces (sysctl kernel.apparmor_restrict_unprivileged_userns=1): " + why
	}
	return false, why
}
