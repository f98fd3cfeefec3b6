package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestBookBuildWritesOnlyWhereItMay builds the real book from the
// repository, rebuilds over it, and refuses a directory of the user's.
func TestBookBuildWritesOnlyWhereItMay(t *testing.T) {
	repo, err := filepath.Abs("../..")
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "site")

	stdout, stderr, code := kata(t, repo, "book", "build", "-o", out)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "open "+filepath.Join(out, "index.html"))
	for _, f := range []string{"index.html", "model.html", "01-ringbuffer.html", "print.html", "searchindex.js", "book.css", ".kata-book"} {
		require.FileExists(t, filepath.Join(out, f))
	}

	// A rebuild replaces kata's own files and removes those it no longer
	// writes, and nothing else.
	stale := filepath.Join(out, "old-chapter.html")
	require.NoError(t, os.WriteFile(stale, []byte("old"), 0o644))
	marker, err := os.ReadFile(filepath.Join(out, ".kata-book"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(out, ".kata-book"), append(marker, "old-chapter.html\n"...), 0o644))
	_, stderr, code = kata(t, repo, "book", "build", "-o", out)
	require.Equal(t, 0, code, stderr)
	require.NoFileExists(t, stale, "a page the book no longer has is removed")

	// A directory of the user's is never written into.
	mine := t.TempDir()
	notes := filepath.Join(mine, "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("mine"), 0o644))
	_, stderr, code = kata(t, repo, "book", "build", "-o", mine)
	require.Equal(t, exitUsage, code)
	require.Contains(t, stderr, "is not empty and was not written by 'kata book build'")
	require.NoFileExists(t, filepath.Join(mine, "index.html"))

	// Outside the repository kata builds the book it carries.
	elsewhere := filepath.Join(t.TempDir(), "x")
	stdout, stderr, code = kata(t, t.TempDir(), "book", "build", "-o", elsewhere)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "from the copy kata carries")
	require.FileExists(t, filepath.Join(elsewhere, "08-procresize.html"))
}
