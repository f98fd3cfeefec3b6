package grade

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func finder() *Finder {
	return &Finder{LessonFiles: allFiles(), Limits: DefaultLimits}
}

// find runs a Finder on args and indexes what it found by name.
func find(t *testing.T, f *Finder, args ...string) map[string]*Submission {
	t.Helper()
	subs, err := f.Find(args)
	require.NoError(t, err)
	out := map[string]*Submission{}
	for _, s := range subs {
		out[s.Name] = s
	}
	return out
}

func TestFindWorkspaceAndClass(t *testing.T) {
	dir := t.TempDir()
	mine := edit(t, ref(t, "runq.go"), "func runqputtail(", "// mine\nfunc runqputtail(")
	workspace(t, filepath.Join(dir, "class", "alice"), map[string][]byte{"runq.go": mine})
	workspace(t, filepath.Join(dir, "class", "bob"), nil)
	// Carol's workspace is one level down in her folder, without .kata.
	workspace(t, filepath.Join(dir, "carol-src", "gmp-kata"), nil)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "carol-src", "gmp-kata", ".kata")))
	writeZip(t, filepath.Join(dir, "class", "carol.zip"), dirEntries(t, filepath.Join(dir, "carol-src"), ""))
	writeTarGz(t, filepath.Join(dir, "class", "dave.tar.gz"), dirEntries(t, filepath.Join(dir, "class", "bob"), "dave/"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "class", "notes.txt"), []byte("not a submission"), 0o644))

	var notes []string
	f := finder()
	f.Notes = func(n string) { notes = append(notes, n) }
	subs := find(t, f, filepath.Join(dir, "class"))
	assert.Len(t, subs, 4)
	for name, s := range subs {
		assert.Empty(t, s.Problem, name)
		data, problem := s.File("runq.go")
		assert.Empty(t, problem, name)
		if name == "alice" {
			assert.Equal(t, string(mine), string(data))
		} else {
			assert.Equal(t, string(ref(t, "runq.go")), string(data), name)
		}
	}
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "notes.txt")

	// A workspace given directly is one submission, named after it.
	one := find(t, finder(), filepath.Join(dir, "class", "alice"))
	assert.Contains(t, one, "alice")
	assert.Len(t, one, 1)
}

// TestFindRefusesAClassWithAMarker: a file that makes a directory one
// workspace (.kata/progress.json, go.mod, a lesson file), put at the top
// of a class directory (a student's upload can put it there), made kata
// grade the whole class as one workspace, and every honest classmate
// vanish from the gradebook (red team round 12). Now the grading stops,
// naming the marker and what else the directory holds.
func TestFindRefusesAClassWithAMarker(t *testing.T) {
	for _, marker := range []string{".kata/progress.json", "go.mod", "runq.go"} {
		t.Run(strings.ReplaceAll(marker, "/", "_"), func(t *testing.T) {
			class := filepath.Join(t.TempDir(), "class")
			workspace(t, filepath.Join(class, "alice"), nil)
			writeTarGz(t, filepath.Join(class, "bob.tar.gz"), dirEntries(t, filepath.Join(class, "alice"), ""))
			if subs, err := finder().Find([]string{class}); assert.NoError(t, err) {
				assert.Len(t, subs, 2, "the class before the marker")
			}
			p := filepath.Join(class, filepath.FromSlash(marker))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
			_, err := finder().Find([]string{class})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "has "+marker+" at its top, as one submission has, but also holds submissions (alice, bob.tar.gz)")
			assert.Contains(t, err.Error(), "remove "+p)
		})
	}
	// A thirteenth red team's: the workspaces one level down in each
	// student's folder, where the class listing finds them too; and the
	// classmates behind 4,100 files that the directory lists first.
	t.Run("nested", func(t *testing.T) {
		class := filepath.Join(t.TempDir(), "class")
		workspace(t, filepath.Join(class, "alice", "kata-workspace"), nil)
		// A fourteenth red team's: deeper still, where kata looks all the
		// same, and deeper than it looks.
		workspace(t, filepath.Join(class, "bob", "a", "b", "c", "kata"), nil)
		require.NoError(t, os.MkdirAll(filepath.Join(class, "carol", "1", "2", "3", "4", "5", "6", "7"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(class, "notes"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(class, "notes", "todo.md"), []byte("not a submission"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(class, "runq.go"), ref(t, "runq.go"), 0o644))
		_, err := finder().Find([]string{class})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "but also holds submissions (alice, bob, carol)")
	})
	t.Run("behind-many-files", func(t *testing.T) {
		class := filepath.Join(t.TempDir(), "class")
		workspace(t, filepath.Join(class, "zz-alice"), nil)
		for i := range 4100 {
			require.NoError(t, os.WriteFile(filepath.Join(class, fmt.Sprintf("a%05d", i)), nil, 0o644))
		}
		require.NoError(t, os.WriteFile(filepath.Join(class, "go.mod"), []byte("module x\n"), 0o644))
		_, err := finder().Find([]string{class})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "but also holds submissions (zz-alice)")
	})
	// A workspace given on its own, with a folder of notes: one submission.
	t.Run("workspace-with-notes", func(t *testing.T) {
		ws := filepath.Join(t.TempDir(), "alice")
		workspace(t, ws, nil)
		require.NoError(t, os.MkdirAll(filepath.Join(ws, "notes"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, "notes", "todo.md"), []byte("mine"), 0o644))
		subs, err := finder().Find([]string{ws})
		require.NoError(t, err)
		assert.Len(t, subs, 1)
	})
	t.Run("git", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		class := filepath.Join(t.TempDir(), "class")
		for _, dir := range []string{class, filepath.Join(class, "zz-erin")} {
			require.NoError(t, os.MkdirAll(dir, 0o755))
			out, err := exec.Command("git", "init", "-q", dir).CombinedOutput()
			require.NoError(t, err, "%s", out)
		}
		for i := range 4100 {
			require.NoError(t, os.WriteFile(filepath.Join(class, fmt.Sprintf("a%05d", i)), nil, 0o644))
		}
		_, err := finder().Find([]string{class + "@main"})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "has .git at its top, as one submission has, but also holds submissions (zz-erin)")
	})
}

func TestFindRefusesUnsafeArchives(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	workspace(t, ws, nil)
	good := dirEntries(t, ws, "")
	outside := filepath.Join(dir, "evil.go")

	cases := []struct {
		name    string
		write   func(file string)
		problem string // of the submission
	}{
		{"slip.zip", func(f string) {
			writeZip(t, f, append(good, archived{name: "../../evil.go", data: []byte("package evil")}))
		}, "zip-slip"},
		{"slip.tar.gz", func(f string) {
			writeTarGz(t, f, append(good, archived{name: "a/../../evil.go", data: []byte("package evil")}))
		}, "zip-slip"},
		{"abs.zip", func(f string) {
			writeZip(t, f, append(good, archived{name: "/tmp/evil.go", data: []byte("package evil")}))
		}, "absolute path"},
		{"windows.zip", func(f string) {
			writeZip(t, f, append(good, archived{name: `..\..\evil.go`, data: []byte("package evil")}))
		}, "zip-slip"},
		{"bomb.tar.gz", func(f string) {
			writeTarGz(t, f, append(good, archived{name: "big.bin", data: bytes.Repeat([]byte{0}, 3<<20)}))
		}, "unpacks to more than 2 MiB"},
		{"bomb.zip", func(f string) {
			writeZip(t, f, append(good, archived{name: "big.bin", data: bytes.Repeat([]byte{0}, 3<<20)}))
		}, "unpacks to more than 2 MiB"},
		{"garbage.zip", func(f string) {
			require.NoError(t, os.WriteFile(f, []byte("PK\x03\x04 not really"), 0o644))
		}, "not a readable zip"},
		{"two.zip", func(f string) {
			writeZip(t, f, append(dirEntries(t, ws, "a/"), dirEntries(t, ws, "b/")...))
		}, "holds 2 workspaces"},
		{"empty.tar.gz", func(f string) {
			writeTarGz(t, f, []archived{{name: "README", data: []byte("hi")}})
		}, "holds none of the lesson files"},
	}
	f := finder()
	f.Limits = DefaultLimits
	f.Limits.UnpackedBytes = 2 << 20
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, c.name)
			c.write(file)
			subs := find(t, f, file)
			s := subs[baseName(file)]
			require.NotNil(t, s)
			assert.Contains(t, s.Problem, c.problem)
			_, problem := s.File("runq.go")
			assert.Equal(t, s.Problem, problem, "every lesson file carries the archive's problem")
			assert.NoFileExists(t, outside, "reading an archive wrote outside it")
			assert.NoFileExists(t, "/tmp/evil.go")
		})
	}
}

func TestFindLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	secret := filepath.Join(dir, "someone-else", "runq.go")
	require.NoError(t, os.MkdirAll(filepath.Dir(secret), 0o755))
	require.NoError(t, os.WriteFile(secret, ref(t, "runq.go"), 0o644))

	ws := filepath.Join(dir, "class", "linker")
	workspace(t, ws, nil)
	require.NoError(t, os.Remove(filepath.Join(ws, "runq.go")))
	require.NoError(t, os.Symlink(secret, filepath.Join(ws, "runq.go")))
	// A link inside the workspace is fine.
	require.NoError(t, os.Rename(filepath.Join(ws, "park.go"), filepath.Join(ws, "mine-park.go")))
	require.NoError(t, os.Symlink("mine-park.go", filepath.Join(ws, "park.go")))

	tarEntries := dirEntries(t, filepath.Join(dir, "class", "linker"), "")
	var kept []archived
	for _, e := range tarEntries {
		if e.name != "runq.go" && e.name != "park.go" && e.name != "mine-park.go" {
			kept = append(kept, e)
		}
	}
	kept = append(kept,
		archived{name: "runq.go", link: "../../someone-else/runq.go"},
		archived{name: "park.go", link: "/etc/passwd"},
		archived{name: "sub/real.go", data: ref(t, "sysmon.go")},
		archived{name: "sysmon.go", link: "sub/real.go"},
	)
	var withoutSysmon []archived
	for _, e := range kept {
		if e.name != "sysmon.go" || e.link != "" {
			withoutSysmon = append(withoutSysmon, e)
		}
	}
	writeTarGz(t, filepath.Join(dir, "tarlinks.tar.gz"), withoutSysmon)
	writeZip(t, filepath.Join(dir, "ziplinks.zip"), withoutSysmon)

	subs := find(t, finder(), filepath.Join(dir, "class"), filepath.Join(dir, "tarlinks.tar.gz"), filepath.Join(dir, "ziplinks.zip"))
	s := subs["linker"]
	require.NotNil(t, s)
	_, problem := s.File("runq.go")
	assert.Regexp(t, `^runq\.go is a link to ".*someone-else/runq\.go", outside the submission: submit the file itself$`, problem)
	data, problem := s.File("park.go")
	assert.Empty(t, problem)
	assert.Equal(t, string(ref(t, "park.go")), string(data))

	for _, name := range []string{"tarlinks", "ziplinks"} {
		s := subs[name]
		require.NotNil(t, s, name)
		_, problem := s.File("runq.go")
		assert.Contains(t, problem, `runq.go is a link to "../../someone-else/runq.go", outside the submission`, name)
		_, problem = s.File("park.go")
		assert.Contains(t, problem, `park.go is a link to "/etc/passwd", outside the submission`, name)
		data, problem := s.File("sysmon.go")
		assert.Empty(t, problem, name)
		assert.Equal(t, string(ref(t, "sysmon.go")), string(data), "a link inside the archive is followed")
	}
}

func TestFindLimitsFileSize(t *testing.T) {
	dir := t.TempDir()
	ws := filepath.Join(dir, "big")
	workspace(t, ws, map[string][]byte{"runq.go": bytes.Repeat([]byte("// padding\n"), 200000)})
	subs := find(t, finder(), ws)
	_, problem := subs["big"].File("runq.go")
	assert.Contains(t, problem, "runq.go is larger than 1024 KiB")
	_, problem = subs["big"].File("park.go")
	assert.Empty(t, problem, "one oversized file does not sink the others")
}

// TestFindLimitsDirectoryEntries: a workspace is read only up to the entry
// limit, and refused past it with the reason; one just under it is read.
// (The walk reads a directory a batch at a time and stops at the limit: a
// red team's directory of 300,000 files took 137 MB of kata's memory when
// each directory was read whole before the count.)
func TestFindLimitsDirectoryEntries(t *testing.T) {
	dir := t.TempDir()
	f := finder()
	f.Limits.Entries = 300
	for name, extra := range map[string]int{"under": 250, "over": 1000} {
		ws := filepath.Join(dir, name)
		workspace(t, ws, nil)
		junk := filepath.Join(ws, "junk")
		require.NoError(t, os.Mkdir(junk, 0o755))
		for i := range extra {
			require.NoError(t, os.WriteFile(filepath.Join(junk, fmt.Sprintf("f%d", i)), nil, 0o644))
		}
	}
	subs := find(t, f, filepath.Join(dir, "under"), filepath.Join(dir, "over"))
	_, problem := subs["under"].File("runq.go")
	assert.Empty(t, problem)
	_, problem = subs["over"].File("runq.go")
	assert.Equal(t, "the directory could not be read: the directory holds more than 300 files", problem)
}

// TestFindSkipsToolsDirectories: an honest workspace with a Python
// virtual environment, an editor's or a build tool's directory is graded;
// their files do not count against the submission's limit.
func TestFindSkipsToolsDirectories(t *testing.T) {
	f := finder()
	f.Limits.Entries = 300
	ws := filepath.Join(t.TempDir(), "alice")
	workspace(t, ws, nil)
	for _, dir := range []string{".venv/lib", "__pycache__", ".idea", "target/debug"} {
		require.NoError(t, os.MkdirAll(filepath.Join(ws, dir), 0o755))
		for i := range 200 {
			require.NoError(t, os.WriteFile(filepath.Join(ws, dir, fmt.Sprintf("f%d", i)), nil, 0o644))
		}
	}
	subs := find(t, f, ws)
	_, problem := subs["alice"].File("runq.go")
	assert.Empty(t, problem)
}

// TestFindLooksInTheArchivesFolder: a workspace zipped as the folder it
// was in (zip -r frank.zip target) is graded, whatever that folder's name:
// it is the archive's, not a tools directory of the workspace (a
// twenty-first red team's honest workspaces in target/ and vendor/ were
// graded 0). Beside another folder, vendor/ is still skipped.
func TestFindLooksInTheArchivesFolder(t *testing.T) {
	dir := t.TempDir()
	workspace(t, filepath.Join(dir, "src"), nil)
	class := filepath.Join(dir, "class")
	require.NoError(t, os.MkdirAll(class, 0o755))
	writeZip(t, filepath.Join(class, "frank.zip"), dirEntries(t, filepath.Join(dir, "src"), "target/"))
	writeZip(t, filepath.Join(class, "gina.zip"), append(dirEntries(t, filepath.Join(dir, "src"), "vendor/"), archived{name: "__MACOSX/vendor/._runq.go", data: []byte{0}}))
	writeZip(t, filepath.Join(class, "hana.zip"), append(dirEntries(t, filepath.Join(dir, "src"), "vendor/"), archived{name: "notes.txt", data: []byte("hi")}))
	subs := find(t, finder(), class)
	for _, name := range []string{"frank", "gina"} {
		_, problem := subs[name].File("runq.go")
		assert.Empty(t, problem, name)
	}
	_, problem := subs["hana"].File("runq.go")
	assert.Contains(t, problem, "holds none of the lesson files")
}

func TestFindErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x.txt"), nil, 0o644))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "empty"), 0o755))
	for _, c := range []struct{ arg, want string }{
		{filepath.Join(dir, "nope"), "no file or directory"},
		{filepath.Join(dir, "x.txt"), "neither a directory nor an archive"},
		{filepath.Join(dir, "empty"), "neither a workspace"},
	} {
		_, err := finder().Find([]string{c.arg})
		require.Error(t, err, c.arg)
		assert.Contains(t, err.Error(), c.want)
		assert.True(t, strings.HasPrefix(err.Error(), "grade: "), "errors are prefixed: %v", err)
	}
}

// TestFindNamesAreKeptAndFlagged: the same name twice (alice under two
// directories graded, bob as a directory and a zip) is kept as handed in,
// each flagged as looking like the other; the sources tell them apart.
func TestFindNamesAreKeptAndFlagged(t *testing.T) {
	dir := t.TempDir()
	workspace(t, filepath.Join(dir, "a", "alice"), nil)
	workspace(t, filepath.Join(dir, "b", "alice"), nil)
	writeZip(t, filepath.Join(dir, "a", "bob.zip"), dirEntries(t, filepath.Join(dir, "a", "alice"), ""))
	workspace(t, filepath.Join(dir, "a", "bob"), nil)
	subs, err := finder().Find([]string{filepath.Join(dir, "a"), filepath.Join(dir, "b")})
	require.NoError(t, err)
	var names, sources []string
	for _, s := range subs {
		names = append(names, s.Name)
		sources = append(sources, strings.TrimPrefix(filepath.ToSlash(s.Source), filepath.ToSlash(dir)+"/"))
		assert.Equal(t, []string{s.Name}, s.LooksLike, "%s is flagged", s.Source)
	}
	assert.Equal(t, []string{"alice", "bob", "bob", "alice"}, names)
	assert.Equal(t, []string{"a/alice", "a/bob", "a/bob.zip", "b/alice"}, sources)
}

func TestFindGitRef(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	repo := filepath.Join(dir, "class", "erin")
	workspace(t, repo, nil)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "start")
	git("tag", "deadline")
	late := edit(t, ref(t, "runq.go"), "func runqputtail(", "// after the deadline\nfunc runqputtail(")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "runq.go"), late, 0o644))
	git("commit", "-q", "-am", "late")
	uncommitted := edit(t, late, "// after the deadline", "// not even committed")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "runq.go"), uncommitted, 0o644))

	at := func(arg string) string {
		subs := find(t, finder(), arg)
		require.Len(t, subs, 1)
		s := subs["erin"]
		require.NotNil(t, s)
		require.Empty(t, s.Problem)
		data, problem := s.File("runq.go")
		require.Empty(t, problem)
		return string(data)
	}
	assert.Equal(t, string(ref(t, "runq.go")), at(repo+"@deadline"), "@deadline grades the tagged commit")
	assert.Equal(t, string(late), at(repo+"@HEAD"), "@HEAD grades the last commit, not the working tree")
	assert.Equal(t, string(uncommitted), at(repo), "a plain directory is graded as it is on disk")
	assert.Equal(t, string(ref(t, "runq.go")), at(filepath.Join(dir, "class")+"@deadline"), "DIR@REF grades each repository in DIR at REF")

	subs := find(t, finder(), repo+"@no-such-tag")
	assert.Contains(t, subs["erin"].Problem, `no commit "no-such-tag"`)
	_, err := finder().Find([]string{repo + "@--upload-pack=evil"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not a git ref")
}
