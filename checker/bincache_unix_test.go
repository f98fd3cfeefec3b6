//go:build !windows

package checker

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestBinCache: a second check of the same files runs the binary the first
// built, without the go command; a changed file is built; a run with
// Isolate on (kata grade's) never uses the cache. The go command is
// reached through a wrapper that logs each call.
func TestBinCache(t *testing.T) {
	real, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "calls")
	wrapper := "#!/bin/sh\necho \"$1\" >> " + log + "\nexec " + real + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "go"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("GOROOT", filepath.Dir(filepath.Dir(real)))
	calls := func() int {
		data, _ := os.ReadFile(log)
		return strings.Count(string(data), "test\n")
	}

	mod := miniModule(t)
	mod.files = map[string][]byte{} // what an isolated run's private copy is made of
	err = filepath.WalkDir(mod.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(mod.dir, p)
		mod.files[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(src string, isolate bool) {
		t.Helper()
		r := &run{mod: mod, replace: lessonFile(t, "sched.go", []byte(src)), hidden: []string{"les"}, isolate: isolate, key: []byte("a key of thirty-two bytes, ok..."),
			timeouts: map[string]time.Duration{"TestPass": time.Minute}}
		defer r.cleanup()
		rr := execOK(t, r, "TestPass")
		if rr.ended["TestPass"] != "pass" {
			t.Fatalf("TestPass: %q, want pass", rr.ended["TestPass"])
		}
	}
	const a, b = "package sched\n\nfunc crash() {}\n", "package sched\n\nfunc crash() { _ = 1 }\n"
	check(a, false)
	check(a, false)
	if got := calls(); got != 1 {
		t.Fatalf("two checks of the same file called go test %d times, want 1 (the second runs the kept binary)", got)
	}
	check(b, false)
	if got := calls(); got != 2 {
		t.Fatalf("a changed file: go test called %d times in all, want 2", got)
	}
	check(a, true)
	check(a, true)
	if got := calls(); got != 4 {
		t.Fatalf("isolated runs: go test called %d times in all, want 4 (each builds)", got)
	}
	entries, err := os.ReadDir(filepath.Join(filepath.Dir(mod.dir), "testbin"))
	if err != nil || len(entries) != 2 {
		t.Fatalf("the cache holds %d binaries (%v), want 2", len(entries), err)
	}
}
