package checker

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/vet"
)

// The vetting cache: a kata check of files the vetter passed before does
// not vet them again (the vetter is a child process that type-checks the
// whole package: a quarter of a second, a tenth of a warm check). A pass
// is kept as an empty file named by the hash of everything the verdict
// depends on: kata's own executable (whose vetter it is) and vet.Version,
// the grading module (the reference and the hidden tests, by its hash),
// the lessons' API lists, and each file vetted, by name and content.
//
// Only passes are kept: files the vetter refused are vetted again, and
// their problems told afresh. As with the binary cache (bincache.go), only
// a learner's own checks use it: kata grade vets every submission, and a
// learner who writes in kata's cache directory fools only their own
// checks.

// vetCacheKeep is how many passes the cache keeps, the newest.
const vetCacheKeep = 64

// vetCacheDir is where r's passes are kept: beside the grading module.
func (r *run) vetCacheDir() string {
	return filepath.Join(filepath.Dir(r.mod.dir), "vetted")
}

// vetKey is the cache's name for a pass of r's snapshot; "" if r does not
// use the cache.
func (c *Checker) vetKey(r *run) string {
	if r.isolate || r.trusted {
		return ""
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	h := sha256.New()
	fmt.Fprintf(h, "kata %s %d %d\nvet %d\nmodule %s\n", exe, st.Size(), st.ModTime().UnixNano(), vet.Version, r.mod.sum)
	apis := lessonAPIs(c.reg)
	files := make([]string, 0, len(apis))
	for f := range apis {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		fmt.Fprintf(h, "api %q %s %q\n", f, apis[f].Lesson, apis[f].Names)
	}
	bases := make([]string, 0, len(r.snapshot))
	for base := range r.snapshot {
		bases = append(bases, base)
	}
	slices.Sort(bases)
	for _, base := range bases {
		sum, err := fileSum(r.snapshot[base])
		if err != nil {
			return ""
		}
		fmt.Fprintf(h, "file %q %s\n", base, sum)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// vettedBefore reports whether the cache holds a pass under key.
func (r *run) vettedBefore(key string) bool {
	if key == "" {
		return false
	}
	p := filepath.Join(r.vetCacheDir(), key)
	if _, err := os.Stat(p); err != nil {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(p, now, now) // the newest are kept
	return true
}

// keepVetted keeps a pass under key, and lets the oldest go. Failing to
// keep one only costs the next check a vetting.
func (r *run) keepVetted(key string) {
	if key == "" {
		return
	}
	dir := r.vetCacheDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, key), nil, 0o644); err != nil {
		return
	}
	pruneCache(dir, vetCacheKeep)
}
