package checker

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// TestLimitFileSize: a process whose file size kata bounded right after
// starting it, and the children it starts, cannot write past the bound
// (the build: the red team's A32 had the linker write 2 GB).
func TestLimitFileSize(t *testing.T) {
	out := filepath.Join(t.TempDir(), "big")
	// The shell starts dd, which writes 2 MiB; the bound is 1 MiB.
	cmd := exec.Command("sh", "-c", "sleep 0.2; exec dd if=/dev/zero of="+out+" bs=1M count=2")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := limitFileSize(cmd.Process.Pid, 1<<20); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err == nil {
		t.Fatalf("dd wrote 2 MiB past a 1 MiB bound")
	}
	if info, statErr := exec.Command("stat", "-c", "%s", out).Output(); statErr == nil && string(info) != "1048576\n" {
		t.Errorf("the file is %s bytes, want 1048576", info)
	}
}
