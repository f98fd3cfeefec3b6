package grade

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker/proclimit"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeBomb makes a repository in dir whose main commit's tree object
// inflates to about size bytes (the same entry over and over: it deflates
// a thousandfold), written as a loose object, and returns it.
func treeBomb(t testing.TB, dir string, size int) *testRepo {
	t.Helper()
	r := newRepo(t, dir, nil)
	entry := []byte("100644 a\x00" + strings.Repeat("\x00", 20))
	n := size / len(entry)
	header := fmt.Sprintf("tree %d\x00", n*len(entry))
	chunk := bytes.Repeat(entry, 1<<16/len(entry)) // whole entries
	h := sha1.New()
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	require.NoError(t, err)
	both := func(p []byte) {
		h.Write(p)
		zw.Write(p)
	}
	both([]byte(header))
	per := len(chunk) / len(entry)
	for left := n; left > 0; left -= per {
		both(chunk[:min(left, per)*len(entry)])
	}
	require.NoError(t, zw.Close())
	oid := hex.EncodeToString(h.Sum(nil))
	obj := filepath.Join(r.dir, ".git", "objects", oid[:2], oid[2:])
	require.NoError(t, os.MkdirAll(filepath.Dir(obj), 0o755))
	require.NoError(t, os.WriteFile(obj, z.Bytes(), 0o444))
	commit := r.git("commit-tree", oid, "-p", "HEAD", "-m", "a tree bomb")
	r.git("update-ref", "refs/heads/main", commit)
	t.Logf("a tree of %d MiB, %d KiB on disk", n*len(entry)>>20, z.Len()>>10)
	return r
}

// readCommit reads repo's main commit as fromGit does, within lim, and
// returns its problem ("" if none) and the most memory a git reached.
//
// A git's peak is its rusage's maximum resident size, which Linux takes at
// each exec from the memory the process had until then: a process the Go
// runtime starts shares the test binary's memory until it execs, so the
// peak it reports is at least the test binary's own, made large by the
// tests before this one (364 MiB in one run, with git held to 64 MiB).
// So the test binary first gives back what it can and resets its own peak
// (/proc/self/clear_refs, Linux 4.0 on), and what git reports is git's.
func readCommit(t *testing.T, repo string, lim Limits) (string, int64) {
	t.Helper()
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Logf("the test binary's peak memory is not reset (%v): git's peak counts it", err)
	}
	r, err := openGit(repo, lim)
	require.NoError(t, err)
	defer r.close()
	commit, err := r.commit("main")
	if err != nil {
		return err.Error(), r.peak
	}
	if _, err := r.tree(commit, lim); err != nil {
		return err.Error(), r.peak
	}
	return "", r.peak
}

// TestGitTreeBombIsRefused: a repository whose tree object inflates to
// 256 MiB (a few hundred KiB on disk; the red team's inflated to 2.5 GiB
// and kata's git held all of it). With git's memory limit below that, git
// fails at once, kata says why, and git never holds much more than the
// limit;
// with the limit above it, git does hold it all, which is what the limit
// is for. The test sets the limit (64 MiB) under the default (512 MiB).
func TestGitTreeBombIsRefused(t *testing.T) {
	needGit(t)
	if !proclimit.Supported {
		t.Skip("git's memory is not limited on this system (see package proclimit)")
	}
	repo := treeBomb(t, filepath.Join(t.TempDir(), "bomb"), 256<<20)

	lim := DefaultLimits
	lim.GitMemory = 64 << 20
	f := finder()
	f.Limits = lim
	subs, err := f.Find([]string{repo.dir + "@main"})
	require.NoError(t, err)
	require.Len(t, subs, 1)
	assert.Equal(t, "unsafe or unreadable commit: reading it takes git more than the 64 MiB of memory kata gives it: an object in it inflates to more than that (a tree or a file built to, not a workspace's); submit the workspace's files, or a repository of them",
		subs[0].Problem)
	problem, peak := readCommit(t, repo.dir, lim)
	t.Logf("limited to 64 MiB: git reached %d MiB: %s", peak>>20, problem)
	assert.Contains(t, problem, "more than the 64 MiB of memory")
	// Its resident size also counts the pages of git and its libraries,
	// which the limit (of its heap) does not: below twice the limit, and
	// far below the tree.
	assert.Less(t, peak, int64(128<<20), "git grew past its limit")

	lim.GitMemory = 1 << 30
	problem, peak = readCommit(t, repo.dir, lim)
	t.Logf("limited to 1 GiB: git reached %d MiB: %s", peak>>20, problem)
	assert.Greater(t, peak, int64(200<<20), "without a limit below it, git holds the whole tree")
	assert.NotContains(t, problem, "of memory")
}
