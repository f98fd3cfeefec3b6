// Command hostile does, one at a time, what code under test may try
// against the machine that grades it; package sandbox's tests run it in
// the sandbox and outside it. It prints one line, "result: ...", and
// exits 0, whatever it found: the tests read the line.
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Println("usage: hostile MODE ARGS...")
		os.Exit(2)
	}
	args := os.Args[2:]
	var result string
	switch os.Args[1] {
	case "read": // read PATH
		data, err := os.ReadFile(args[0])
		result = fmt.Sprintf("read %d bytes: %v", len(data), err)
	case "write": // write PATH
		result = fmt.Sprintf("write: %v", os.WriteFile(args[0], []byte("was here\n"), 0o644))
	case "dial": // dial ADDRESS
		c, err := net.DialTimeout("tcp", args[0], 2*time.Second)
		if err == nil {
			c.Write([]byte("hello from the sandbox\n"))
			c.Close()
		}
		result = fmt.Sprintf("dial: %v", err)
	case "environ":
		result = environ()
	case "fill": // fill MIB: writes that much to the temporary directory
		result = fill(atoi(args[0]))
	case "spawn": // spawn MARKER N setsid|group: N sleepers, then exit
		for range atoi(args[1]) {
			if err := spawn(args[0], args[2] == "setsid", "sleep"); err != nil {
				result = "spawn: " + err.Error()
			}
		}
		if result == "" {
			result = "spawned"
		}
	case "grow": // grow MARKER MIB: a setsid child that takes MIB, then sleep
		if err := spawn(args[0], true, "hog", args[1]); err != nil {
			result = "spawn: " + err.Error()
			break
		}
		fmt.Println("result: growing")
		select {}
	case "hog": // hog MIB
		hog := make([][]byte, 0)
		for range atoi(args[0]) {
			b := make([]byte, 1<<20)
			for i := 0; i < len(b); i += 4096 {
				b[i] = 1
			}
			hog = append(hog, b)
		}
		select {}
	case "sleep":
		select {}
	case "privileges": // privileges DIR: DIR is read-only
		result = privileges(args[0])
	case "fds":
		result = fds()
	case "cat": // cat PATH: what it holds, on one line
		data, err := os.ReadFile(args[0])
		result = fmt.Sprintf("cat: %q %v", strings.TrimSpace(string(data)), err)
	default:
		if f, ok := kernelModes[os.Args[1]]; ok {
			result = f(args)
			break
		}
		result = "unknown mode " + os.Args[1]
	}
	fmt.Println("result: " + result)
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		panic(err)
	}
	return n
}

// spawn starts this program again in mode, with HOSTILE_MARKER=marker in
// its environment (and its command line), in a session of its own if
// setsid.
func spawn(marker string, setsid bool, mode ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(self, append(mode, marker)...)
	cmd.Env = append(os.Environ(), "HOSTILE_MARKER="+marker)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: setsid}
	return cmd.Start()
}

// environ lists the names of the variables of its own environment, and of
// every other process's it can read.
func environ() string {
	names := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if name, _, ok := strings.Cut(kv, "="); ok && name != "" {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	own := names(os.Environ())
	var others []string
	procs := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		procs++
		if pid == os.Getpid() {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil {
			continue
		}
		others = append(others, names(strings.Split(string(data), "\x00"))...)
	}
	slices.Sort(others)
	others = slices.Compact(others)
	return fmt.Sprintf("own: %s; others: %s; processes: %d", strings.Join(own, ","), strings.Join(others, ","), procs)
}

// fill writes mib MiB to a file of the temporary directory, and says how
// many it could.
func fill(mib int) string {
	f, err := os.CreateTemp("", "fill-")
	if err != nil {
		return "fill: " + err.Error()
	}
	defer os.Remove(f.Name())
	defer f.Close()
	chunk := make([]byte, 1<<20)
	for i := range mib {
		if _, err := f.Write(chunk); err != nil {
			return fmt.Sprintf("wrote %d MiB: %v", i, err)
		}
	}
	return fmt.Sprintf("wrote %d MiB: <nil>", mib)
}

// privileges tries what root of a user namespace could, and says what it
// has.
func privileges(dir string) string {
	out := []string{fmt.Sprintf("uid %d gid %d", os.Getuid(), os.Getgid())}
	status, _ := os.ReadFile("/proc/self/status")
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "Cap") {
			out = append(out, strings.Join(strings.Fields(l), " "))
		}
	}
	out = append(out, fmt.Sprintf("mount tmpfs: %v", syscall.Mount("x", dir, "tmpfs", 0, "")))
	out = append(out, fmt.Sprintf("remount rw: %v", syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_BIND, "")))
	_, err := os.ReadFile("/proc/1/environ")
	out = append(out, fmt.Sprintf("init's environ: %v", err))
	_ = syscall.Kill(1, syscall.SIGKILL)
	time.Sleep(50 * time.Millisecond)
	out = append(out, fmt.Sprintf("init after SIGKILL: %v", syscall.Kill(1, 0)))
	return strings.Join(out, "; ")
}

// fds lists its open file descriptors from 3 up, and what they are.
func fds() string {
	entries, _ := os.ReadDir("/proc/self/fd")
	var out []string
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if target == "" || strings.HasPrefix(target, "anon_inode:") || strings.HasPrefix(target, "/proc/") || strings.HasPrefix(target, "/sys/fs/cgroup/") {
			continue // the Go runtime's own (epoll, pidfd, cgroup's CPU limits), and ReadDir's
		}
		out = append(out, fmt.Sprintf("%d=%s", fd, strings.SplitN(target, ":", 2)[0]))
	}
	return strings.Join(out, ",")
}
