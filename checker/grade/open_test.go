package grade

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A student who can still write to the class's directory while kata grades
// it swaps what kata listed for something else before kata reads it (a red
// team's attacks 09-11 and 14: it took them a dozen tries to hit the
// window). The tests make the swap before kata reads, every time.

// TestSwappedSubmissionIsRefused: a workspace listed in a class, then
// replaced by a link (to a directory holding an instructor's "secret" as
// runq.go), is refused, not read; an archive replaced by a link or by a
// named pipe too, the pipe without kata waiting on it. A link the
// instructor names on the command line is followed, as before.
func TestSwappedSubmissionIsRefused(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "instructor")
	workspace(t, secret, map[string][]byte{"runq.go": []byte("TOPSECRET\n")})
	class := filepath.Join(dir, "class")
	require.NoError(t, os.MkdirAll(class, 0o755))
	if runtime.GOOS != "windows" {
		alice := filepath.Join(class, "alice")
		require.NoError(t, os.Symlink(secret, alice)) // the swap, after the listing
		s := finder().fromDir(alice, true)
		assert.Contains(t, s.Problem, "changed while kata read it", "a listed workspace that is now a link")
		_, problem := s.File("runq.go")
		assert.NotContains(t, problem, "TOPSECRET")

		given := finder().fromDir(alice, false) // the instructor's own link
		data, problem := given.File("runq.go")
		assert.Empty(t, problem)
		assert.Equal(t, "TOPSECRET\n", string(data))

		zipped := filepath.Join(dir, "real.zip")
		writeZip(t, zipped, dirEntries(t, secret, ""))
		link := filepath.Join(class, "bob.zip")
		require.NoError(t, os.Symlink(zipped, link))
		assert.Contains(t, finder().fromArchive(link, true).Problem, "changed while kata read it", "a listed archive that is now a link")
		assert.Empty(t, finder().fromArchive(link, false).Problem, "an archive the instructor names through a link")
	}

	pipe := filepath.Join(class, "carol.tar.gz")
	if err := mkfifo(pipe); err != nil {
		t.Logf("no named pipe here (%v): the pipe case is not run", err)
		return
	}
	done := make(chan *Submission, 1)
	go func() { done <- finder().fromArchive(pipe, true) }()
	select {
	case s := <-done:
		assert.Contains(t, s.Problem, "not a regular file", "an archive that is now a named pipe")
	case <-time.After(10 * time.Second):
		t.Fatal("kata waited on a named pipe put where an archive was listed")
	}
}

// TestLessonFileSwappedAfterListing: the workspace's directory is listed
// (runq.go a regular file), and runq.go is then replaced before it is read:
// by a link out of the submission, it is refused, not read; by a named
// pipe, it is refused without kata waiting on it.
func TestLessonFileSwappedAfterListing(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.go")
	require.NoError(t, os.WriteFile(secret, []byte("TOPSECRET\n"), 0o644))
	swaps := map[string]func(p string) error{
		"a link out of the submission": func(p string) error { return os.Symlink(secret, p) },
		"a named pipe":                 mkfifo,
	}
	for name, swap := range swaps {
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			ws := filepath.Join(t.TempDir(), "alice")
			workspace(t, ws, nil)
			tr, err := readDir(ws, true, DefaultLimits)
			require.NoError(t, err)
			if tr.close != nil {
				defer tr.close()
			}
			p := filepath.Join(ws, "runq.go")
			require.NoError(t, os.Remove(p))
			if err := swap(p); err != nil {
				t.Skipf("cannot make %s here: %v", name, err)
			}
			e := tr.entries["runq.go"]
			require.NotNil(t, e, "runq.go was listed")
			done := make(chan struct{})
			go func() { tr.fetch([]*entry{e}, DefaultLimits.FileBytes); close(done) }()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("kata waited on %s put where runq.go was listed", name)
			}
			assert.NotEmpty(t, e.problem, "runq.go, now %s, was read: %q", name, e.data)
			assert.NotContains(t, string(e.data), "TOPSECRET")
		})
	}
}

// TestDotNamesAreNoted: a class entry whose name starts with a dot is not
// a submission, and kata says it skipped it (a red team's ".zip" was
// dropped without a word), except the class's own .git.
func TestDotNamesAreNoted(t *testing.T) {
	class := t.TempDir()
	workspace(t, filepath.Join(class, "alice"), nil)
	workspace(t, filepath.Join(class, ".bob"), nil)
	writeZip(t, filepath.Join(class, ".zip"), dirEntries(t, filepath.Join(class, "alice"), ""))
	require.NoError(t, os.MkdirAll(filepath.Join(class, ".git"), 0o755))
	var notes []string
	f := finder()
	f.Notes = func(msg string) { notes = append(notes, msg) }
	subs := find(t, f, class)
	assert.Len(t, subs, 1)
	joined := strings.Join(notes, "\n")
	assert.Contains(t, joined, filepath.Join(class, ".bob")+": its name starts with a dot")
	assert.Contains(t, joined, filepath.Join(class, ".zip")+": its name starts with a dot")
	assert.NotContains(t, joined, ".git")
}
