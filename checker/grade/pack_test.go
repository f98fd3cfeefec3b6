package grade

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The example pack of the book (appendix D): one private test of lesson
// 01, which the reference passes and the mutant grab-takes-all fails.
var (
	examplePack    = filepath.Join("testdata", "pack")
	goodTestsJSON  = mustRead(filepath.Join(examplePack, "01-ringbuffer", "tests.json"))
	packTestSource = mustRead(filepath.Join(examplePack, "01-ringbuffer", "steal_test.go"))
)

func mustRead(p string) string {
	data, err := os.ReadFile(p)
	if err != nil {
		panic(err)
	}
	return string(data)
}

func writePack(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

func TestPackLoadsAndJoinsTheLesson(t *testing.T) {
	own := len(lesson(t, "01-ringbuffer").Tests)
	p, err := LoadPack(examplePack, lessons.Default)
	require.NoError(t, err)
	require.Len(t, p.Tests["01-ringbuffer"], 1)
	assert.Equal(t, "after_published", p.Visibility["TestPackL01StealHalf"])
	reg, err := p.Registry(lessons.Default)
	require.NoError(t, err)
	l, err := reg.Lookup("01")
	require.NoError(t, err)
	base := lesson(t, "01-ringbuffer")
	assert.Len(t, l.Tests, len(base.Tests)+1)
	assert.Equal(t, base.MaxScore()+10, l.MaxScore())
	assert.Len(t, base.Tests, own, "the course's own lesson is left alone")
	data, err := readFS(l, "pack_steal_test.go")
	require.NoError(t, err)
	assert.Equal(t, packTestSource, data)
}

func readFS(l *lessons.Lesson, name string) (string, error) {
	f, err := l.Hidden.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := f.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String(), nil
}

func TestPackErrorsSayWhatToFix(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"unknown lesson", map[string]string{"99-nope/tests.json": goodTestsJSON}, `99-nope/: no such lesson; name the directory after one of 01-ringbuffer`},
		{"prefix is not enough", map[string]string{"01/tests.json": goodTestsJSON}, `01/: no such lesson`},
		{"no tests.json", map[string]string{"01-ringbuffer/steal_test.go": packTestSource}, "each lesson's directory needs a tests.json"},
		{"undeclared test", map[string]string{"01-ringbuffer/tests.json": strings.ReplaceAll(goodTestsJSON, "StealHalf", "Other"), "01-ringbuffer/steal_test.go": packTestSource}, "TestPackL01Other: no _test.go file of 01-ringbuffer declares it"},
		{"name taken", map[string]string{"01-ringbuffer/tests.json": strings.ReplaceAll(goodTestsJSON, "TestPackL01StealHalf", "TestL01FIFO"), "01-ringbuffer/steal_test.go": strings.ReplaceAll(packTestSource, "TestPackL01StealHalf", "TestL01FIFO")}, "the name is taken by lesson 01-ringbuffer"},
		{"TestMain", map[string]string{"01-ringbuffer/tests.json": goodTestsJSON, "01-ringbuffer/steal_test.go": packTestSource + "\nfunc TestMain(m *testing.M) {}\n"}, "declares TestMain"},
		{"bad kind", map[string]string{"01-ringbuffer/tests.json": strings.ReplaceAll(goodTestsJSON, `"kind": "exact"`, `"kind": "fuzzy"`), "01-ringbuffer/steal_test.go": packTestSource}, `kind "fuzzy": want exact, stress or timing`},
		{"bad timeout", map[string]string{"01-ringbuffer/tests.json": strings.ReplaceAll(goodTestsJSON, `"10s"`, `"ten"`), "01-ringbuffer/steal_test.go": packTestSource}, `timeout "ten": want a duration`},
		{"bad visibility", map[string]string{"01-ringbuffer/tests.json": strings.ReplaceAll(goodTestsJSON, `"after_published"`, `"later"`), "01-ringbuffer/steal_test.go": packTestSource}, `visibility "later"`},
		{"unknown field", map[string]string{"01-ringbuffer/tests.json": strings.ReplaceAll(goodTestsJSON, `"points"`, `"pts": 1, "points"`), "01-ringbuffer/steal_test.go": packTestSource}, `unknown field "pts"`},
		{"wrong package", map[string]string{"01-ringbuffer/tests.json": goodTestsJSON, "01-ringbuffer/steal_test.go": strings.Replace(packTestSource, "package sched", "package sched_test", 1)}, "test pack files are in package sched"},
		{"stray file", map[string]string{"01-ringbuffer/tests.json": goodTestsJSON, "01-ringbuffer/steal_test.go": packTestSource, "01-ringbuffer/helper.go": "package sched"}, "holds tests.json and *_test.go files only"},
		{"empty", map[string]string{"README": "nothing"}, "want one directory per lesson"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadPack(writePack(t, t.TempDir(), c.files), lessons.Default)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.True(t, strings.HasPrefix(err.Error(), "grade: test pack "), err.Error())
		})
	}
}

// TestPackGradesPrivateTests grades the reference and a mutant with a
// private test: the reference passes it, the mutant (runqgrab takes every
// G) fails it, and the report marks it private.
func TestPackGradesPrivateTests(t *testing.T) {
	p, err := LoadPack(examplePack, lessons.Default)
	require.NoError(t, err)
	class := t.TempDir()
	workspace(t, filepath.Join(class, "ref"), nil)
	workspace(t, filepath.Join(class, "mutant"), mutant(t, "01-ringbuffer", "grab-takes-all"))
	// Without the race detector: the private test's verdicts are the
	// point (TestHostileCorpus grades with it).
	opts := Options{CacheDir: cacheDir(t), Lessons: []string{"01-ringbuffer"}, Pack: p, Jobs: 2, NoRace: true}
	rep, _ := gradeClass(t, opts, class)

	info := rep.Test("01-ringbuffer", "TestPackL01StealHalf")
	require.NotNil(t, info)
	assert.True(t, info.Private)
	assert.Equal(t, "after_published", info.Visibility)
	assert.Equal(t, 110, rep.Lessons[0].MaxScore)
	test := func(s report.Student) report.TestGrade {
		for _, tg := range s.Lessons[0].Tests {
			if tg.Name == "TestPackL01StealHalf" {
				return tg
			}
		}
		t.Fatalf("%s has no grade for the private test", s.Name)
		return report.TestGrade{}
	}
	for _, s := range rep.Students {
		switch s.Name {
		case "ref":
			assert.Equal(t, 110, s.Score)
			assert.Equal(t, report.StatusPass, test(s).Status)
		case "mutant":
			assert.Equal(t, report.StatusFail, test(s).Status)
			assert.Contains(t, test(s).Reason, "left 9 Gs queued on the thief, want 4")
		}
	}
	// A pack changes what a lesson is graded against: the key, and so the
	// cache, differ from grading without it.
	plain, err := New(Options{CacheDir: cacheDir(t), Lessons: []string{"01-ringbuffer"}, NoRace: true}) // as opts, but the pack
	require.NoError(t, err)
	g, err := New(opts)
	require.NoError(t, err)
	files := map[string][]byte{"runq.go": ref(t, "runq.go")}
	assert.NotEqual(t, plain.key(plain.lessons[0], files), g.key(g.lessons[0], files))
}

func TestPackDefaults(t *testing.T) {
	dir := writePack(t, t.TempDir(), map[string]string{
		"01-ringbuffer/tests.json":    `{"tests": [{"name": "TestPackL01StealHalf", "points": 3, "timeout": "5s"}]}`,
		"01-ringbuffer/steal_test.go": packTestSource,
	})
	p, err := LoadPack(dir, lessons.Default)
	require.NoError(t, err)
	assert.Equal(t, "after_published", p.Visibility["TestPackL01StealHalf"], "a private test's result waits for the grades to be published")
	assert.Equal(t, lessons.Exact, p.Tests["01-ringbuffer"][0].Kind)
}
