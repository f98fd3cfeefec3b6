package tests

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWatchRechecksOnSave starts kata watch on a fresh workspace, waits for
// its first check (a fail), saves a working runq.go, and expects a second
// check that passes. It polls fast so that it also covers file systems that
// send no events.
func TestWatchRechecksOnSave(t *testing.T) {
	bin := buildKata(t)
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	out, code := run(t, bin, home, "init", ws)
	require.Equal(t, 0, code, out)

	cmd := exec.Command(bin, "watch", "01", "--no-race", "--poll", "200ms")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KATA_WORKSPACE=", "KATA_CACHE="+cacheDir(t))
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	cmd.Stderr = cmd.Stdout
	require.NoError(t, cmd.Start())
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()

	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	waitFor := func(what string, within time.Duration) {
		t.Helper()
		deadline := time.After(within)
		for {
			select {
			case l, ok := <-lines:
				require.True(t, ok, "kata watch exited while waiting for %q", what)
				if strings.Contains(l, what) {
					return
				}
			case <-deadline:
				t.Fatalf("kata watch did not print %q within %s", what, within)
			}
		}
	}
	waitFor("FAIL 01-ringbuffer", 5*time.Minute)
	waitFor("Watching runq.go", time.Minute)

	ref, err := os.ReadFile("../solutions/runq.go")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "runq.go"), ref, 0o644))
	waitFor("PASS 01-ringbuffer", 5*time.Minute)
}
