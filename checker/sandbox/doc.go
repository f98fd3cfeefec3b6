// Package sandbox runs a program that kata does not trust, the test binary
// of a graded lesson, so that what it does ends with its run and stays in
// it. Start runs the program; Proc.Kill, Proc.Wait and Proc.Memory are
// how kata stops it, waits for it and watches its memory.
//
// # What it does
//
// Every program Start runs is under an init of its own: kata's own
// executable started again (/proc/self/exe, recognised by this package's
// init function before main runs, so that kata and the test binaries of
// the packages that import this one serve as the init without doing
// anything), whose only work is to start the program, reap every process
// that ends up its child, and, when the program exits, kill every process
// left and exit with the program's status. So on Linux, isolated or not:
//
//   - nothing outlives a run: not a child in the run's process group, not
//     one in a session of its own (setsid), not one that a child left
//     behind, whether the run ends normally or is killed;
//   - Proc.Memory adds up every process of the run, however it was
//     started, where a watchdog of the process group missed a setsid
//     child; and it counts the shared memory they hold, which no
//     process's resident size shows once it is not mapped: each
//     process's own resident pages and those of the files it maps, and,
//     once each, every shared memory object (a memfd, a tmpfs file, a
//     shared anonymous mapping, a System V segment) a process of the
//     run holds open, by its size, or maps, by the extent mapped;
//   - the run is in a session of its own (the init calls setsid), with
//     no controlling terminal: it cannot open kata's (/dev/tty), nor
//     push a command into its input for the shell to run once kata
//     exits;
//   - it has a session keyring of its own, new and empty (the init joins
//     one): not kata's, where a login may have put the user's keys;
//   - it runs under a seccomp filter (seccomp_linux.go says what it
//     refuses, and why), which refuses with EPERM the system calls a
//     test binary has no use for: pushing input into a terminal (ioctl
//     TIOCSTI, TIOCLINUX), the keyrings, other processes' memory
//     (ptrace, process_vm_readv...), memory outside any process
//     (memfd_create, System V IPC, POSIX message queues), new namespaces
//     (unshare, setns, clone with a CLONE_NEW* flag; clone3 gets ENOSYS,
//     so that glibc falls back to clone), mounts, modules, kexec, bpf,
//     perf_event_open, userfaultfd and io_uring; a call made through
//     another ABI (int $0x80, x32) kills the process. A Go test binary,
//     with the race detector or not, and what it starts, run as before;
//   - the program gets the files meant for it (Spec.ExtraFiles, as fds 3,
//     4, ...) and no other: every descriptor kata inherited is closed on
//     exec;
//   - every file it writes is at most Spec.FileSize bytes (RLIMIT_FSIZE);
//   - and the program dies with kata (PR_SET_PDEATHSIG on the init, and on
//     the program); isolated, so does every process of the run.
//
// Isolated (Spec.Isolate, where Available says there is a sandbox), the
// init is the first process of new user, PID, mount, network, IPC and UTS
// namespaces, which any user may create on most Linux systems: no
// privilege and no helper program is needed. The user's own uid and gid
// are root inside (the only mapping an unprivileged user may make); when
// kata itself runs as root, the program runs as nobody. Before starting
// the program the init builds its world:
//
//   - a file system of its own, read-only: the system's directories
//     (ReadOnlySystem: /usr, /bin, /lib, /etc...), a few devices (null,
//     zero, full, random, urandom; not tty), what kata binds (Spec.ReadOnly:
//     the test binary and its working directory), a /proc of its
//     own PID namespace, and a private /tmp of Spec.TmpSize bytes, the only
//     place it can write. Nothing else is there: not $HOME, not the user's
//     files, not kata's cache or executable, not the class being graded,
//     not the report, not the other runs (they are in the host's /tmp);
//   - no network but a loopback of its own: the host's 127.0.0.1, and
//     anything beyond, are out of reach;
//   - no process of the host in sight (its /proc is its PID namespace's),
//     so no other process's environment or memory; its init's own are
//     unreadable (the init is not dumpable);
//   - no capability: the bounding, inheritable and ambient sets are empty
//     and no_new_privs is set, so root of the user namespace cannot mount,
//     remount read-write what is read-only, or gain anything by executing
//     a set-user-ID program;
//   - no namespace of its own, beneath the filter too: in its user
//     namespace the init sets user.max_*_namespaces to 0, so no user
//     namespace (where it would be root again), mount or network
//     namespace can be made there; in its IPC namespace, the System V
//     and POSIX message queue limits to 0, where the kernel lets the
//     namespace's owner set them (recent kernels do); and /proc/sys is
//     read-only, so that the run cannot set them back;
//   - its /tmp counted in Proc.Memory, whether a process holds its files
//     open or not;
//   - and, being PID 1 of its namespace, the init takes every process of
//     the run with it when it dies, killed or not.
//
// # What it does not do
//
//   - It does not bound CPU time: kata's own deadlines do (a run's tests'
//     time limits). Nor does it bound memory: kata's watchdog reads
//     Proc.Memory five times a second and kills the run past its limit; a
//     program that allocates faster than that gets that far past it. The
//     kernel's cgroups would bound both; kata uses none (an unprivileged
//     process may only use a cgroup v2 tree delegated to it, which kata
//     does not require).
//   - Proc.Memory does not count the kernel's own memory for the run
//     (pipe and socket buffers, page tables), nor, where there is no
//     sandbox, a file the run wrote to a tmpfs of the system's (/dev/shm)
//     and closed, nor what /proc does not let kata read (the open files
//     and mappings of a process that is no longer dumpable, where there is
//     no sandbox).
//   - The seccomp filter is there on linux/amd64 and linux/arm64 only,
//     on a kernel with seccomp filters (3.5 and later); elsewhere runs go
//     on without it, and Available's reason says so where there is a
//     sandbox but no filter. KATA_SANDBOX=off turns it off with the rest.
//     It refuses calls, not what the allowed ones do.
//   - It does not bound the number of processes or threads, beyond what
//     the memory watchdog and the time limits do.
//   - It hides nothing of the system's directories: whatever any user may
//     read in /usr or /etc, the program may read.
//   - It does not protect the kernel: a kernel bug reachable from an
//     unprivileged user namespace, through the system calls the filter
//     allows, is a way out. Grade a class you do not
//     trust in a throw-away virtual machine or container too.
//   - There is no sandbox where there are no user namespaces: macOS,
//     Windows, and Linux systems that disable them for unprivileged users
//     (sysctl kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0,
//     or Ubuntu's kernel.apparmor_restrict_unprivileged_userns=1 since
//     23.10, unless an AppArmor profile allows kata). Available says so,
//     and why; KATA_SANDBOX=off turns the sandbox off. Then, on Linux, the
//     init still kills every process of a run at its end (as a child
//     subreaper, PR_SET_CHILD_SUBREAPER, every orphan of the run is its),
//     unless the program kills the init first, which it may, running as
//     the same user; the run still has a session and a keyring of its
//     own, and the seccomp filter where the kernel has one (not with
//     KATA_SANDBOX=off). On other Unixes the program runs in a session
//     and process group of its own (no controlling terminal), killed
//     when it ends, which a setsid child leaves; on Windows a process it
//     starts can outlive it, and it shares kata's console.
package sandbox
