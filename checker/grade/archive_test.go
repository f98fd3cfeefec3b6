package grade

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// measure runs f and returns the bytes it allocated and the time it took.
func measure(f func()) (uint64, time.Duration) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	took := time.Since(start)
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, took
}

// entryBomb writes a zip made of nothing but a central directory of n
// records (empty names, no file data: 46 bytes each, so 1.4 million fit
// under the 64 MiB limit) and the end-of-directory records: claimed is
// the entry count they declare, in a zip64 record if zip64.
func entryBomb(t testing.TB, file string, n, claimed int, zip64 bool) {
	t.Helper()
	var b bytes.Buffer
	b.Grow(n*46 + 100)
	var rec [46]byte
	binary.LittleEndian.PutUint32(rec[0:], 0x02014b50) // central directory header
	binary.LittleEndian.PutUint16(rec[4:], 20)
	binary.LittleEndian.PutUint16(rec[6:], 20)
	for range n {
		b.Write(rec[:])
	}
	cdSize := b.Len()
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	if zip64 {
		end64 := b.Len()
		le(uint32(0x06064b50))
		le(uint64(44))
		le(uint16(45))
		le(uint16(45))
		le(uint32(0))
		le(uint32(0))
		le(uint64(claimed))
		le(uint64(claimed))
		le(uint64(cdSize))
		le(uint64(0))
		le(uint32(0x07064b50)) // locator
		le(uint32(0))
		le(uint64(end64))
		le(uint32(1))
		le(uint32(0x06054b50))
		le(uint16(0))
		le(uint16(0))
		le(uint16(0xffff))
		le(uint16(0xffff))
		le(uint32(0xffffffff))
		le(uint32(0xffffffff))
		le(uint16(0))
	} else {
		le(uint32(0x06054b50))
		le(uint16(0))
		le(uint16(0))
		le(uint16(claimed))
		le(uint16(claimed))
		le(uint32(cdSize))
		le(uint32(0))
		le(uint16(0))
	}
	require.NoError(t, os.WriteFile(file, b.Bytes(), 0o644))
}

// TestZipEntryBombIsRefusedBeforeParsing: 1.4 million entries in a 61 MiB
// zip. Go's zip reader parses every one (339 MB) before kata can count
// them; kata must refuse it from the end-of-directory record, or, when
// that lies about the count, after counting no more records than its
// limit.
func TestZipEntryBombIsRefusedBeforeParsing(t *testing.T) {
	const n = 1_400_000
	dir := t.TempDir()
	cases := []struct {
		name    string
		claimed int
		zip64   bool
	}{
		{"honest-zip64", n, true},
		// The count is only 16 bits in a plain zip, and Go's reader reads
		// records until one does not parse: n mod 65536.
		{"wrapped-count", n % 65536, false},
		// A count that lies outright: Go's reader accepts n records
		// if n agrees with it modulo 65536.
		{"lying-count", 5, false},
		{"lying-zip64", 5, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, c.name+".zip")
			records := n
			if c.name == "lying-count" {
				records = 65536 + 5
			}
			entryBomb(t, file, records, c.claimed, c.zip64)
			var s *Submission
			alloc, took := measure(func() { s = finder().fromArchive(file, false) })
			t.Logf("%d records, %d claimed: %.1f MB allocated in %s: %s", records, c.claimed, float64(alloc)/1e6, took.Round(time.Millisecond), s.Problem)
			assert.Contains(t, s.Problem, "more than 20000 entries")
			assert.Less(t, alloc, uint64(8<<20), "refusing it must not parse it")
		})
	}
}

// bigGo is a .go file of size bytes that deflates to almost nothing.
func bigGo(size int) []byte {
	return append([]byte("package pad\n"), bytes.Repeat([]byte("/"), size-12)...)
}

// TestZipReadsOnlyTheLessonFiles: a 330 KB zip of a workspace and 250 Go
// files of 1 MiB each (each under the file limit). Only the lesson files
// are read; the others are never decompressed.
func TestZipReadsOnlyTheLessonFiles(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	workspace(t, ws, nil)
	entries := dirEntries(t, ws, "")
	pad := bigGo(1 << 20)
	for i := range 250 {
		entries = append(entries, archived{name: fmt.Sprintf("pad/file%03d.go", i), data: pad})
	}
	file := filepath.Join(dir, "padded.zip")
	writeZip(t, file, entries)
	fi, err := os.Stat(file)
	require.NoError(t, err)

	var s *Submission
	alloc, took := measure(func() { s = finder().fromArchive(file, false) })
	t.Logf("a %d KB zip of 250 × 1 MiB .go: %.1f MB allocated in %s", fi.Size()>>10, float64(alloc)/1e6, took.Round(time.Millisecond))
	require.Empty(t, s.Problem)
	for _, f := range allFiles() {
		data, problem := s.File(f)
		require.Empty(t, problem, f)
		assert.True(t, bytes.Equal(ref(t, f), data), f)
	}
	assert.Less(t, alloc, uint64(16<<20), "the 250 MiB of padding must not be read")
}

// TestTarReadsOnlyTheLessonFiles: the same in a .tar.gz, which can only be
// read in order: what is not a lesson file is skipped, not kept.
func TestTarReadsOnlyTheLessonFiles(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	workspace(t, ws, nil)
	var entries []archived
	pad := bigGo(1 << 20)
	for i := range 120 {
		entries = append(entries, archived{name: fmt.Sprintf("pad/file%03d.go", i), data: pad})
	}
	entries = append(entries, dirEntries(t, ws, "")...)
	file := filepath.Join(dir, "padded.tar.gz")
	writeTarGz(t, file, entries)

	var s *Submission
	alloc, took := measure(func() { s = finder().fromArchive(file, false) })
	t.Logf("a .tar.gz of 120 × 1 MiB .go: %.1f MB allocated in %s", float64(alloc)/1e6, took.Round(time.Millisecond))
	require.Empty(t, s.Problem)
	for _, f := range allFiles() {
		data, problem := s.File(f)
		require.Empty(t, problem, f)
		assert.True(t, bytes.Equal(ref(t, f), data), f)
	}
	assert.Less(t, alloc, uint64(16<<20), "the 120 MiB of padding must not be kept")
}

// rawZip writes a zip whose entries' headers say what the test wants,
// whatever the data: sizes that lie.
type rawEntry struct {
	name         string
	data         []byte // as stored (deflated already, or garbage)
	uncompressed uint64 // the size the headers declare
	crc          uint32
}

func writeRawZip(t testing.TB, file string, files map[string][]byte, raws ...rawEntry) {
	t.Helper()
	f, err := os.Create(file)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for name, data := range files {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write(data)
		require.NoError(t, err)
	}
	for _, r := range raws {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: r.name, Method: zip.Deflate, CRC32: r.crc,
			CompressedSize64: uint64(len(r.data)), UncompressedSize64: r.uncompressed})
		require.NoError(t, err)
		_, err = w.Write(r.data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
}

func deflated(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	require.NoError(t, err)
	_, err = w.Write(data)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return b.Bytes()
}

// TestZipSizesThatLie: a lesson file whose header declares more than the
// limit is refused without being read (its data is garbage: reading it
// would fail otherwise), and one that declares little but inflates to
// much is cut at the limit and refused.
func TestZipSizesThatLie(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	workspace(t, ws, nil)
	files := map[string][]byte{}
	for _, e := range dirEntries(t, ws, "") {
		if e.name != "runq.go" && e.name != "park.go" {
			files[e.name] = e.data
		}
	}
	huge := bigGo(16 << 20)
	file := filepath.Join(dir, "liar.zip")
	writeRawZip(t, file, files,
		rawEntry{name: "runq.go", data: []byte("not deflate at all"), uncompressed: 2 << 20},
		rawEntry{name: "park.go", data: deflated(t, huge), uncompressed: 1000, crc: crc32.ChecksumIEEE(huge)},
	)
	var s *Submission
	alloc, took := measure(func() { s = finder().fromArchive(file, false) })
	t.Logf("%.1f MB allocated in %s", float64(alloc)/1e6, took.Round(time.Millisecond))
	require.Empty(t, s.Problem)
	_, problem := s.File("runq.go")
	assert.Equal(t, "runq.go is larger than 1024 KiB (2097152 bytes): not a lesson file", problem)
	_, problem = s.File("park.go")
	assert.Contains(t, problem, "park.go could not be read")
	data, problem := s.File("sysmon.go")
	assert.Empty(t, problem)
	assert.True(t, bytes.Equal(ref(t, "sysmon.go"), data))
	assert.Less(t, alloc, uint64(16<<20), "the 16 MiB park.go must not be inflated past the limit")
}

// TestZipWithAPrefix: a zip behind other data (a self-extracting archive)
// is read as Go's reader reads it; the directory check finds its
// directory where the reader will.
func TestZipWithAPrefix(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	workspace(t, ws, nil)
	plain := filepath.Join(dir, "plain.zip")
	writeZip(t, plain, dirEntries(t, ws, ""))
	data, err := os.ReadFile(plain)
	require.NoError(t, err)
	prefixed := filepath.Join(dir, "prefixed.zip")
	require.NoError(t, os.WriteFile(prefixed, append(bytes.Repeat([]byte("#!/bin/sh\n"), 300), data...), 0o644))
	s := finder().fromArchive(prefixed, false)
	require.Empty(t, s.Problem)
	got, problem := s.File("runq.go")
	require.Empty(t, problem)
	assert.True(t, bytes.Equal(ref(t, "runq.go"), got))
}
