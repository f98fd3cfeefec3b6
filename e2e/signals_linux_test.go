package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// processesUnder lists the processes whose command line names dir.
func processesUnder(dir string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(cmdline), dir) {
			found = append(found, e.Name()+": "+strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
	return found
}

// TestSignalsEndTheCheck: killing kata in the middle of a check, with the
// signal kill and timeout send (SIGTERM) or the one a closed terminal
// sends (SIGHUP), leaves no process of the check running and no temporary
// directory behind, as Ctrl-C already did.
func TestSignalsEndTheCheck(t *testing.T) {
	bin := buildKata(t)
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	out, code := run(t, bin, home, "init", ws)
	require.Equal(t, 0, code, out)
	ref, err := os.ReadFile("../solutions/runq.go")
	require.NoError(t, err)
	loop := strings.Replace(string(ref), "if t == h {\n\t\t\treturn nil\n\t\t}", "if t == h {\n\t\t\tcontinue\n\t\t}", 1)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "runq.go"), []byte(loop), 0o644))

	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			tmp := t.TempDir() // the check's temporary directories go here, and nowhere else
			cmd := exec.Command(bin, "check", "01")
			cmd.Dir = ws
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "KATA_WORKSPACE=", "KATA_CACHE="+cacheDir(t), "TMPDIR="+tmp)
			require.NoError(t, cmd.Start())
			deadline := time.Now().Add(2 * time.Minute)
			for !strings.Contains(strings.Join(processesUnder(tmp), "\n"), "sched.test") {
				require.True(t, time.Now().Before(deadline), "the test binary never started")
				time.Sleep(100 * time.Millisecond)
			}
			require.NoError(t, cmd.Process.Signal(sig))
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatalf("kata did not end within 30 s of %s", sig)
			}
			// The group is killed before kata exits; give the kernel a moment
			// to reap what was killed.
			var left []string
			for range 50 {
				if left = processesUnder(tmp); len(left) == 0 {
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			assert.Empty(t, left, "processes of the check outlived kata after %s", sig)
			entries, _ := os.ReadDir(tmp)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			assert.Empty(t, names, "temporary directories left behind after %s", sig)
		})
	}
}
