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
//     child;
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
//     zero, full, random, urandom, tty), what kata binds (Spec.ReadOnly:
//     the test binary, its working directory, test2json), a /proc of its
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
//   - It does not bound the number of processes or threads, beyond what
//     the memory watchdog and the time limits do.
//   - It hides nothing of the system's directories: whatever any user may
//     read in /usr or /etc, the program may read.
//   - It does not protect the kernel: a kernel bug reachable from an
//     unprivileged user namespace is a way out. Grade a class you do not
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
//     the same user; on other Unixes the program runs in a process group
//     of its own, killed when it ends, which a setsid child leaves; on
//     Windows a process it starts can outlive it.
package sandbox
