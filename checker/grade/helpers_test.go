package grade

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/lessons"
	_ "github.com/gmp-kata/gmp-kata/lessons/all"
)

// The submissions of these tests are built from the course's own files:
// the reference (solutions/), the skeleton, the lessons' mutants and
// alternates, plus small edits that must apply exactly once. A change to
// the reference that moves an edit's anchor fails the test that uses it,
// instead of leaving a corpus that no longer tests what it says.

var (
	sharedDir string
	sharedErr error
)

// cacheDir is one cache (grading module and results) for the package's
// tests, so that a lesson graded by one test is not graded again by
// another.
func cacheDir(t testing.TB) string {
	t.Helper()
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return sharedDir
}

// TestMain makes the shared cache before any test runs: made by the first
// test that needs it, it went into that test's TMPDIR (the attacks' own,
// in TestHostileCorpus), was removed with it, and came back as an empty
// directory that nothing removed.
func TestMain(m *testing.M) {
	sharedDir, sharedErr = os.MkdirTemp("", "kata-grade-test-")
	code := m.Run()
	if sharedDir != "" {
		os.RemoveAll(sharedDir)
	}
	os.Exit(code)
}

// allFiles are the base names of every lesson's files.
func allFiles() []string {
	var files []string
	for _, l := range lessons.Default.All() {
		files = append(files, l.Files...)
	}
	sort.Strings(files)
	return files
}

func ref(t testing.TB, name string) []byte {
	t.Helper()
	data, err := fs.ReadFile(gmpkata.Sources, "solutions/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func skel(t testing.TB, name string) []byte {
	t.Helper()
	data, err := fs.ReadFile(gmpkata.Sources, "skeleton/"+name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// edit replaces old, which must occur exactly once in src, with new.
func edit(t testing.TB, src []byte, old, new string) []byte {
	t.Helper()
	if n := strings.Count(string(src), old); n != 1 {
		t.Fatalf("edit: %q occurs %d times, want exactly once (did the reference change?)", old, n)
	}
	return []byte(strings.Replace(string(src), old, new, 1))
}

func lesson(t testing.TB, id string) *lessons.Lesson {
	t.Helper()
	l, err := lessons.Default.Lookup(id)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// mutant returns lesson id's files with its mutant name applied.
func mutant(t testing.TB, id, name string) map[string][]byte {
	t.Helper()
	l := lesson(t, id)
	ms, err := l.ReadMutants()
	if err != nil {
		t.Fatal(err)
	}
	src := map[string][]byte{}
	for _, f := range l.Files {
		src[f] = ref(t, f)
	}
	for _, m := range ms {
		if m.Name == name {
			out, err := m.Apply(src)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	t.Fatalf("lesson %s has no mutant %q", id, name)
	return nil
}

// alternate returns the file of lesson id's alternate name.
func alternate(t testing.TB, id, name, file string) []byte {
	t.Helper()
	data, err := fs.ReadFile(lesson(t, id).Alternates, name+"/"+file)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// workspace writes a workspace in dir: go.mod, the progress marker, and
// every lesson file, the reference's unless files has it.
func workspace(t testing.TB, dir string, files map[string][]byte) {
	t.Helper()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", []byte("module kata.local/workspace\n\ngo 1.26\n"))
	write(".kata/progress.json", []byte(`{"version":1,"lessons":{}}`+"\n"))
	for _, f := range allFiles() {
		if data, ok := files[f]; ok {
			write(f, data)
		} else {
			write(f, ref(t, f))
		}
	}
}

// skeletonFrom returns the skeleton's files of the given lessons.
func skeletonFrom(t testing.TB, ids ...string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, id := range ids {
		for _, f := range lesson(t, id).Files {
			out[f] = skel(t, f)
		}
	}
	return out
}

// An archived entry: a file, or a link if link is set.
type archived struct {
	name, link string
	data       []byte
}

// dirEntries lists dir's files as archive entries under prefix.
func dirEntries(t testing.TB, dir, prefix string) []archived {
	t.Helper()
	var out []archived
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out = append(out, archived{name: prefix + filepath.ToSlash(rel), data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func writeZip(t testing.TB, file string, entries []archived) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range entries {
		hdr := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		data := e.data
		if e.link != "" {
			hdr.SetMode(fs.ModeSymlink | 0o777)
			data = []byte(e.link)
		} else {
			hdr.SetMode(0o644)
		}
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeTarGz(t testing.TB, file string, entries []archived) {
	t.Helper()
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	gz := gzip.NewWriter(f)
	writeTarTo(t, gz, entries)
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeTarTo(t testing.TB, w io.Writer, entries []archived) {
	t.Helper()
	tw := tar.NewWriter(w)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.data)), Typeflag: tar.TypeReg}
		if e.link != "" {
			hdr = &tar.Header{Name: e.name, Mode: 0o777, Typeflag: tar.TypeSymlink, Linkname: e.link}
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if e.link == "" {
			if _, err := tw.Write(e.data); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
}

// gradeClass grades every submission in the directory class (and in the
// other arguments, as kata grade takes them) with a Grader made from opts,
// and returns the report and its stats.
func gradeClass(t testing.TB, opts Options, class string, more ...string) (*report.Report, Stats) {
	t.Helper()
	g, err := New(opts)
	require.NoError(t, err)
	subs, err := (&Finder{LessonFiles: g.LessonFiles()}).Find(append([]string{class}, more...))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	rep, stats, err := g.Grade(ctx, subs, nil)
	require.NoError(t, err)
	return rep, stats
}
