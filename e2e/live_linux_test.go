package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckShowsProgressOnATerminal runs kata check on a terminal (script
// gives it one) and expects the live line: the build, then each test as it
// starts, each cleared before the grade is printed. Piped, the same check
// prints none of it.
func TestCheckShowsProgressOnATerminal(t *testing.T) {
	bin := buildKata(t)
	home := t.TempDir()
	ws := filepath.Join(home, "ws")
	out, code := run(t, bin, home, "init", ws)
	require.Equal(t, 0, code, out)
	ref, err := os.ReadFile("../solutions/runnext.go")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ws, "runnext.go"), ref, 0o644))

	cmd := exec.Command("script", "-qec", bin+" check 02 --no-race", "/dev/null")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=xterm", "KATA_WORKSPACE=", "KATA_CACHE="+cacheDir(t))
	tty, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", tty)
	s := string(tty)
	assert.Contains(t, s, "\r\x1b[K  building 02-runnext's tests")
	assert.Regexp(t, `\r\x1b\[K  02-runnext: TestL02\w+ \(1 of \d+\) \.\.\.`, s)
	assert.Contains(t, s, "\r\x1b[KPASS 02-runnext", "the live line is cleared before the grade")

	piped, code := run(t, bin, ws, "check", "02", "--no-race")
	require.Equal(t, 0, code, piped)
	assert.NotContains(t, piped, "building", "no live line in a pipe")
	assert.NotContains(t, piped, "\x1b[K")
	assert.True(t, strings.HasPrefix(piped, "PASS 02-runnext"), piped)
}
