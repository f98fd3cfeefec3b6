package e2e

import (
	"errors"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuizFromTheBinary: kata quiz as a learner runs it, outside any
// workspace: --answers shows a question and its answer; asked the same
// question, an answer in the wrong form gets the question again, and the
// right one passes.
func TestQuizFromTheBinary(t *testing.T) {
	t.Parallel() // its own directories; it mostly waits on kata
	bin := buildKata(t)
	dir := t.TempDir()
	out, code := run(t, bin, dir, "quiz", "3", "--seed", "12", "--answers")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "03-globrunqget, question (kata quiz 03 --seed 12)")
	m := regexp.MustCompile(`(?m)^Answer: (\S+)$`).FindStringSubmatch(out)
	require.NotNil(t, m, "no answer printed:\n%s", out)

	cmd := exec.Command(bin, "quiz", "03-globrunqget", "--seed", "12")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "KATA_WORKSPACE=")
	cmd.Stdin = strings.NewReader("many\n" + m[1] + "\n")
	asked, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		t.Fatalf("kata quiz exited %d:\n%s", exit.ExitCode(), asked)
	}
	require.NoError(t, err)
	assert.Contains(t, string(asked), `"many" is not a number`)
	assert.Contains(t, string(asked), "Your answer (a number): "+m[1]+"\nRight.")
}
