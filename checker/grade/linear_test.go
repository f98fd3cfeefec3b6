package grade

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/threadcpu"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deepPath is a path levels directories deep, ending in a lesson file.
func deepPath(levels int) string {
	return strings.Repeat("a/", levels) + "runq.go"
}

// deepTar writes n entries whose paths are levels deep as a tar stream
// (their names go into PAX records, which hold up to 1 MiB).
func deepTar(t testing.TB, n, levels int) []byte {
	t.Helper()
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for i := range n {
		name := strings.Repeat("a/", levels) + strings.Repeat("b", i+1) + ".go"
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Typeflag: tar.TypeReg, Format: tar.FormatPAX}))
	}
	require.NoError(t, tw.Close())
	return b.Bytes()
}

// deepZip writes n entries whose paths are as deep as a zip's 16-bit name
// length allows (32,764 levels): 250 of them make a 33 MB zip (each name is there twice).
func deepZip(t testing.TB, file string, n int) {
	t.Helper()
	f, err := os.Create(file)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for i := range n {
		name := strings.Repeat("a/", 32760) + strings.Repeat("b", i%8+1) + ".go"
		name = name[:min(len(name), 0xffff)]
		_, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

// TestDeepPathsAreRefusedFast: the red team's archives of paths hundreds of
// thousands of levels deep (a 30 KB .tar.gz, a 33 MB zip) held kata for
// minutes walking each path up one level at a time; a path longer than
// any file system has is now refused at once, with what it is, and a
// plain directory is walked no deeper than a workspace can be.
func TestDeepPathsAreRefusedFast(t *testing.T) {
	dir := t.TempDir()
	class := filepath.Join(dir, "class")
	require.NoError(t, os.MkdirAll(class, 0o755))
	tarData := deepTar(t, 30, 500_000)
	require.NoError(t, os.WriteFile(filepath.Join(class, "deep.tar"), tarData, 0o644))
	gz := filepath.Join(class, "deep.tar.gz")
	writeGz(t, gz, tarData)
	deepZip(t, filepath.Join(class, "deep.zip"), 250)
	// A directory deeper than the depth a workspace may be at: walked to
	// that depth and no further (file systems bound the rest).
	deepDir := filepath.Join(class, "deepdir")
	require.NoError(t, os.MkdirAll(filepath.Join(deepDir, filepath.FromSlash(strings.Repeat("a/", 100))), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(deepDir, filepath.FromSlash(deepPath(100))), []byte("package sched\n"), 0o644))
	for _, f := range []string{"deep.tar.gz", "deep.zip"} {
		fi, err := os.Stat(filepath.Join(class, f))
		require.NoError(t, err)
		t.Logf("%s: %d bytes", f, fi.Size())
	}

	start := time.Now()
	found, err := finder().Find([]string{class})
	took := time.Since(start)
	require.NoError(t, err)
	t.Logf("found and refused in %v", took)
	var archives int
	for _, s := range found {
		name := filepath.Base(s.Source) // three are named "deep"
		if name == "deepdir" {
			assert.Contains(t, s.Problem, "holds none of the lesson files", "a file 100 levels down is not a workspace")
			continue
		}
		archives++
		assert.Regexp(t, `entry "a/a/a/[a/]*"… has a path of \d+ bytes; no file system kata runs on has paths longer than 4096 bytes`, s.Problem, name)
	}
	assert.Equal(t, 3, archives)
	// The old walk took minutes of one core for these; what is left is
	// writing and reading 35 MB of archives.
	assert.Less(t, took, time.Minute)
}

// writeGz writes data gzip-compressed to file.
func writeGz(t testing.TB, file string, data []byte) {
	t.Helper()
	f, err := os.Create(file)
	require.NoError(t, err)
	w := gzip.NewWriter(f)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	require.NoError(t, f.Close())
}

// hiddenSlow is hidden as it was: one path.Dir a level. The fuzz test
// checks the new one says what it said.
func hiddenSlow(name string) bool {
	dir := path.Dir(name)
	if isMarker(name) {
		dir = path.Dir(dir)
	}
	for ; dir != "." && dir != "/"; dir = path.Dir(dir) {
		if skipDir(dir) {
			return true
		}
	}
	return false
}

// rootWork returns the CPU time of 200 t.root over entries levels deep
// (tens of milliseconds at the least: a thread's CPU time is counted in
// ticks of a few), the least of three tries.
func rootWork(entries, levels int) time.Duration {
	tr := newTree()
	for i := range entries {
		name := strings.Repeat("d/", levels) + strings.Repeat("x", i%50+1) + "/f.txt"
		tr.entries[name] = &entry{name: name}
	}
	best := time.Duration(1 << 62)
	for range 3 {
		runtime.GC()
		best = min(best, threadcpu.Of(func() {
			for range 200 {
				tr.root([]string{"runq.go"})
			}
		}))
	}
	return best
}

// TestRootIsLinearInPathLength: finding a workspace in paths 8 times as
// deep costs about 8 times the CPU time, not 64 (a generous bound: 24).
func TestRootIsLinearInPathLength(t *testing.T) {
	small, large := rootWork(2000, 250), rootWork(2000, 2000)
	t.Logf("2000 entries 250 levels deep: %v; 2000 levels deep: %v (%.1f×)", small, large, float64(large)/float64(small))
	require.Positive(t, small)
	assert.Less(t, float64(large)/float64(small), 24.0, "the walk is not linear in the depth")
}

// FuzzEntryPath: any entry name is cleaned or refused, a name longer than
// maxPathBytes always refused, and hidden (one pass) says what the walk
// one level at a time said.
func FuzzEntryPath(f *testing.F) {
	for _, seed := range []string{
		"runq.go", "a/b/.git/x/runq.go", ".kata/progress.json", "w/.kata/progress.json", "node_modules/.kata/progress.json",
		"../x", "/abs", `C:\x`, "a\x00b", deepPath(3000), strings.Repeat("a/", 2046) + "b.go", strings.Repeat(".git/", 10) + "x",
		"vendor/a.go", "a//b/../c.go",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		clean, err := cleanName(name)
		if len(name) > maxPathBytes {
			require.Error(t, err)
			require.Contains(t, err.Error(), "has a path of")
			return
		}
		if err != nil {
			return
		}
		if len(clean) <= 512 {
			require.Equal(t, hiddenSlow(clean), hidden(clean), "%q", clean)
		}
	})
}

// FuzzTar: a tar stream of any bytes is listed, or refused, within the
// limits, and every path kata keeps is bounded.
func FuzzTar(f *testing.F) {
	f.Add(deepTar(f, 2, 3000))
	f.Add(deepTar(f, 1, 10))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		tr := newTree()
		lim := Limits{ArchiveBytes: 1 << 20, UnpackedBytes: 4 << 20, Entries: 100, FileBytes: 1 << 16, Depth: 6}
		err := scanTar(bytes.NewReader(data), lim, func(n int, hdr *tar.Header, _ io.Reader) (bool, error) {
			return false, tr.addTar(n, hdr)
		})
		if err != nil {
			return
		}
		for name := range tr.entries {
			require.LessOrEqual(t, len(name), maxPathBytes)
		}
		tr.root([]string{"runq.go"})
	})
}

// FuzzZip: a zip of any bytes is listed, or refused, within the limits,
// and every path kata keeps is bounded.
func FuzzZip(f *testing.F) {
	dir := f.TempDir()
	deep := filepath.Join(dir, "deep.zip")
	deepZip(f, deep, 2)
	for _, file := range []string{deep} {
		data, err := os.ReadFile(file)
		require.NoError(f, err)
		f.Add(data)
	}
	var small bytes.Buffer
	zw := zip.NewWriter(&small)
	w, _ := zw.Create("ws/runq.go")
	w.Write([]byte("package sched\n"))
	zw.Close()
	f.Add(small.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(t.TempDir(), "f.zip")
		require.NoError(t, os.WriteFile(file, data, 0o644))
		lim := Limits{ArchiveBytes: 1 << 20, UnpackedBytes: 4 << 20, Entries: 100, FileBytes: 1 << 16, Depth: 6}
		tr, err := readZip(file, false, lim)
		if err != nil {
			return
		}
		defer tr.close()
		for name := range tr.entries {
			require.LessOrEqual(t, len(name), maxPathBytes)
		}
		tr.root([]string{"runq.go"})
	})
}

// FuzzPackSpec: any tests.json is parsed or refused, and what is parsed
// has tests.
func FuzzPackSpec(f *testing.F) {
	f.Add([]byte(`{"tests": [{"name": "TestPackL01Burst", "points": 10, "timeout": "20s"}]}`))
	f.Add([]byte(`{"tests": []}`))
	f.Add([]byte(strings.Repeat("[", 100000)))
	f.Add([]byte(`{"tests": [` + strings.Repeat(`{"name": "TestX"},`, 1000) + `{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tests, err := parsePackSpec(data)
		if err == nil {
			require.NotEmpty(t, tests)
		}
	})
}

// TestPackFilesAreBounded: a tests.json or a test file over 1 MiB is
// refused with what it is, before it is parsed.
func TestPackFilesAreBounded(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "tests.json")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte(" "), maxPackFileBytes+1), 0o644))
	_, err := readPackFile(big)
	require.EqualError(t, err, "tests.json is larger than 1024 KiB: a test pack's files are tests, not data")
	require.NoError(t, os.WriteFile(big, bytes.Repeat([]byte(" "), maxPackFileBytes), 0o644))
	_, err = readPackFile(big)
	require.NoError(t, err)
}

// TestDirectoryLinksCostTheirLength: listing a directory whose .go files
// are links into a loop of links, each 4 KB long (d/../d/../...), costs
// about what listing as many plain files does: a link's target is read
// once, and followed, lexically and at most maxLinkHops links, only if a
// lesson file's path goes through it (a red team's 200 such links cost
// kata 148 s of CPU when each was resolved by the file system, every
// component of every target looked up, 255 links deep). A lesson file
// that is such a link is refused, saying so.
func TestDirectoryLinksCostTheirLength(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	const files = 40
	plain, linked := t.TempDir(), t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(linked, "d"), 0o755))
	loop := strings.Repeat("d/../", (maxLinkBytes-len("loop"))/len("d/../")) + "loop"
	require.NoError(t, os.Symlink(loop, filepath.Join(linked, "loop")))
	for i := range files {
		name := fmt.Sprintf("f%d.go", i)
		require.NoError(t, os.WriteFile(filepath.Join(plain, name), []byte("package sched\n"), 0o644))
		require.NoError(t, os.Symlink("loop", filepath.Join(linked, name)))
	}
	list := func(dir string) (time.Duration, *tree) {
		var tr *tree
		best := time.Duration(1 << 62)
		for range 3 {
			best = min(best, threadcpu.Of(func() {
				for range 20 {
					var err error
					tr, err = readDir(dir, false, DefaultLimits)
					require.NoError(t, err)
					tr.close()
				}
			}))
		}
		return best, tr
	}
	plainCPU, _ := list(plain)
	linkedCPU, tr := list(linked)
	t.Logf("%d plain files: %v; %d links into a loop of 4 KB links: %v (%.1f×)", files, plainCPU, files, linkedCPU, float64(linkedCPU)/float64(plainCPU))
	require.Positive(t, plainCPU)
	assert.Less(t, float64(linkedCPU)/float64(plainCPU), 20.0, "the links cost more than their length")
	_, problem := tr.resolve("f0.go", "f0.go")
	assert.Equal(t, "f0.go is a chain of more than 8 links", problem)
}
