package checker

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// The test binary cache: a kata check of files it has built before runs the
// binary it built then, instead of asking the go command, whose own cache
// spares the compile but not the link (about a second with -race, half of
// a warm check). A binary is kept under the hash of everything it is built
// from: the go command's arguments, the go command itself, and the content
// of every file of the overlay (the learner's snapshot, the hidden tests,
// the harness, whose identifiers are a keyed hash of the learner's files)
// over the grading module (named by its own hash in its directory).
//
// Only a learner's own checks use it (not kata grade's isolated runs, not
// the self-check's mutants): the cache is in kata's cache directory, which
// the sandbox hides from the code under test, and a binary is copied in
// and out, never linked, so a run cannot write to the kept one. Where
// there is no sandbox, code under test can write the cache, as it can
// anything else of the learner's: a learner can fool their own checks,
// which grade nobody; kata grade builds every submission afresh.

// binCacheKeep is how many binaries the cache keeps, the newest: two per
// lesson (with the race detector and, for its serial tests, without) and
// a few spare, 4 to 6 MB each.
const binCacheKeep = 20

// binCacheDir is where r's binaries are kept: beside the grading module.
func (r *run) binCacheDir() string {
	return filepath.Join(filepath.Dir(r.mod.dir), "testbin")
}

// binKey is the cache's name for the binary go test -c with flags builds
// for r; "" if r does not use the cache.
func (r *run) binKey(flags []string) string {
	if r.isolate || r.trusted || r.used != r.mod {
		return ""
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	st, err := os.Stat(goCmd)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "go %s %d %v\nflags %q\nmodule %s\n", goCmd, st.Size(), st.ModTime().UnixNano(), flags, r.mod.sum)
	for _, v := range []string{"GOROOT", "GOFLAGS", "GOEXPERIMENT", "CGO_ENABLED", "GOARCH", "GOAMD64"} {
		fmt.Fprintf(h, "env %s=%q\n", v, os.Getenv(v))
	}
	targets := make([]string, 0, len(r.overlay))
	for t := range r.overlay {
		targets = append(targets, t)
	}
	sort.Strings(targets)
	for _, t := range targets {
		rel, err := filepath.Rel(r.mod.dir, t)
		if err != nil {
			return ""
		}
		sum, ok := r.sums[r.overlay[t]]
		if !ok {
			return ""
		}
		fmt.Fprintf(h, "file %q %s\n", filepath.ToSlash(rel), sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fromBinCache copies the binary kept under key to bin, and says whether
// there was one.
func (r *run) fromBinCache(key, bin string) bool {
	if key == "" {
		return false
	}
	kept := filepath.Join(r.binCacheDir(), key)
	if err := copyFile(kept, bin); err != nil || os.Chmod(bin, 0o755) != nil {
		os.Remove(bin)
		return false
	}
	now := time.Now()
	_ = os.Chtimes(kept, now, now) // the newest are kept
	return true
}

// toBinCache keeps a copy of bin under key, and lets the oldest go.
// Failing to keep one only costs the next check a link.
func (r *run) toBinCache(key, bin string) {
	if key == "" {
		return
	}
	dir := r.binCacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, "tmp-")
	if err != nil {
		return
	}
	tmp.Close()
	if err := copyFile(bin, tmp.Name()); err != nil || os.Chmod(tmp.Name(), 0o755) != nil {
		os.Remove(tmp.Name())
		return
	}
	// Renamed into place: a kata reading it sees all of it or none.
	if err := os.Rename(tmp.Name(), filepath.Join(dir, key)); err != nil {
		os.Remove(tmp.Name())
		return
	}
	pruneCache(dir, binCacheKeep)
}

// pruneCache removes all but the keep newest files in dir, and what a kata
// stopped in the middle of keeping one left there.
func pruneCache(dir string, keep int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type kept struct {
		name string
		mod  int64
	}
	var bins []kept
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(e.Name(), "tmp-") {
			if time.Since(info.ModTime()) > time.Hour {
				os.Remove(filepath.Join(dir, e.Name()))
			}
			continue
		}
		bins = append(bins, kept{e.Name(), info.ModTime().UnixNano()})
	}
	slices.SortFunc(bins, func(a, b kept) int { return cmp.Compare(b.mod, a.mod) })
	for _, b := range bins[min(len(bins), keep):] {
		os.Remove(filepath.Join(dir, b.name))
	}
}

// copyFile copies src to dst, a new file with src's mode.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, info.Mode().Perm())
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
