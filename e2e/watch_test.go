package e2e

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWatchRechecksOnSave starts kata watch on a fresh workspace, waits for
// its first check (a fail), saves a working runq.go, and expects a second
// check that passes; then watch moves on to lesson 02 and checks its file
// when saved. Stopped in the middle of a check, it says so and exits 0. It
// polls fast so that it also covers file systems that send no events.
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
	defer cmd.Process.Kill()

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
	waitFor("Next lesson: 02-runnext (kata task 02). Watching runnext.go", time.Minute)

	ref, err = os.ReadFile("../solutions/runnext.go")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "runnext.go"), ref, 0o644))
	waitFor("checking 02-runnext", time.Minute)
	if runtime.GOOS == "windows" {
		return // no SIGINT to send
	}
	// Ctrl-C in the middle of that check.
	require.NoError(t, cmd.Process.Signal(os.Interrupt))
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	require.NoError(t, cmd.Wait(), "kata watch stopped by Ctrl-C exits 0:\n%s", strings.Join(rest, "\n"))
	require.Contains(t, rest, "Stopped.")
	for _, l := range rest {
		require.NotContains(t, l, "could not run the check", "an interrupted check is not a failure to check")
	}
}
