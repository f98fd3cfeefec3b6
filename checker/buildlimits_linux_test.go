package checker

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLimitBuild: a process whose limits kata set right after starting it,
// and the children it starts, cannot write a file past the bound (the
// build: the red team's A32 had the linker write 2 GB), and carry the CPU
// and memory limits too (a compiler left running by a kata killed hard
// went on to 2.7 GiB).
func TestLimitBuild(t *testing.T) {
	if err := exec.Command("sh", "-c", "exit 0").Run(); err != nil {
		t.Skip("no sh")
	}
	out := filepath.Join(t.TempDir(), "big")
	// The shell starts dd, which writes 600 MiB; the bound is 512 MiB.
	cmd := exec.Command("sh", "-c", "sleep 0.2; grep -E 'Max (cpu time|data size)' /proc/self/limits; exec dd if=/dev/zero of="+out+" bs=1M count=600 status=none")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := limitBuild(cmd.Process.Pid, 3<<30); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Errorf("dd wrote 600 MiB past a 512 MiB bound")
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != buildFileSize {
		t.Errorf("the file: %v, %v; want %d bytes", fi, err, buildFileSize)
	}
	for _, want := range []string{fmt.Sprintf("Max cpu time              %d ", int(buildAllowance/time.Second)), fmt.Sprintf("Max data size             %d ", 3<<30)} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("a child's limits:\n%s\nwant a line starting %q", stdout.String(), want)
		}
	}
}

// TestBuildDiesWithKata: a process started with dieWithKata is killed when
// the process that started it dies, even by SIGKILL (a red team killed
// kata mid-build, and the go command went on building with no limit).
// This test binary plays kata in a child of its own.
func TestBuildDiesWithKata(t *testing.T) {
	if os.Getenv("KATA_TEST_PLAY_KATA") == "1" {
		cmd := exec.Command("sleep", "60")
		dieWithKata(cmd)
		if err := cmd.Start(); err != nil {
			os.Exit(2)
		}
		fmt.Println(cmd.Process.Pid)
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	kata := exec.Command(os.Args[0], "-test.run=^TestBuildDiesWithKata$")
	kata.Env = append(os.Environ(), "KATA_TEST_PLAY_KATA=1")
	stdout, err := kata.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := kata.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		kata.Process.Kill()
		t.Fatalf("the child playing kata said nothing: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		kata.Process.Kill()
		t.Fatalf("the child playing kata said %q", line)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Fatalf("the build stand-in %d is not running: %v", pid, err)
	}
	kata.Process.Signal(syscall.SIGKILL)
	kata.Wait()
	for deadline := time.Now().Add(10 * time.Second); ; {
		// A zombie still answers kill(0): look at its state instead.
		state, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(state), ") Z ") {
			return
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the build stand-in %d outlived kata's SIGKILL by 10 s", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
