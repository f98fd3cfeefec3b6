package main

import (
	"archive/zip"
	"encoding/json"
	"errors"
	"github.com/gmp-kata/gmp-kata/lessons"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/checker/report/reporttest"
	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

var (
	gradeCacheOnce sync.Once
	gradeCache     string
)

// useGradeCache points kata's cache at one temporary directory for this
// package's grading tests (not the user's cache).
func useGradeCache(t *testing.T) {
	t.Helper()
	gradeCacheOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kata-cmd-test-")
		require.NoError(t, err)
		gradeCache = dir
	})
	t.Setenv("KATA_CACHE", gradeCache)
}

func TestMain(m *testing.M) {
	code := m.Run()
	if gradeCache != "" {
		os.RemoveAll(gradeCache)
	}
	os.Exit(code)
}

// smallClass makes a class of two for lesson 01: alice's workspace holds
// the reference, bob's zip the skeleton.
func smallClass(t *testing.T) string {
	t.Helper()
	class := filepath.Join(t.TempDir(), "class")
	alice := filepath.Join(class, "alice")
	_, errOut, code := kata(t, "", "init", alice)
	require.Equal(t, exitOK, code, errOut)
	refs, err := fs.Glob(gmpkata.Sources, "solutions/*.go")
	require.NoError(t, err)
	for _, name := range refs {
		base := filepath.Base(name)
		if _, err := os.Stat(filepath.Join(alice, base)); err == nil {
			data, err := fs.ReadFile(gmpkata.Sources, name)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(alice, base), data, 0o644))
		}
	}
	bob := filepath.Join(t.TempDir(), "bob")
	_, errOut, code = kata(t, "", "init", bob)
	require.Equal(t, exitOK, code, errOut)
	f, err := os.Create(filepath.Join(class, "bob.zip"))
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	require.NoError(t, filepath.WalkDir(bob, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(bob, p)
		w, err := zw.Create("bob/" + filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	}))
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return class
}

func TestGradeWritesEveryFormat(t *testing.T) {
	useGradeCache(t)
	class := smallClass(t)
	out := t.TempDir()
	for _, format := range report.Formats {
		t.Run(format, func(t *testing.T) {
			path := filepath.Join(out, "report."+format)
			if format == "gradescope" {
				path = filepath.Join(out, "gradescope")
			}
			stdout, errOut, code := kata(t, "", "grade", "--lessons", "01", "--format", format, "--out", path, class)
			assert.Equal(t, exitFailed, code, "bob lost points: %s", errOut)
			assert.Empty(t, stdout, "the report goes to --out")
			assert.Regexp(t, `kata: graded 2 submissions, 2 lesson grades: .*; report in `, errOut)
			assert.Contains(t, errOut, "graded alice: 100/100")
			assert.Contains(t, errOut, "graded bob: 0/100")
			if format == "gradescope" {
				for _, name := range []string{"alice", "bob"} {
					data, err := os.ReadFile(filepath.Join(path, name, "results.json"))
					require.NoError(t, err)
					require.NoError(t, reporttest.ValidateGradescope(data), name)
				}
				return
			}
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			switch format {
			case "csv":
				rows, err := reporttest.ValidateCSV(data, []string{"01-ringbuffer"}, []string{"alice", "bob"})
				require.NoError(t, err)
				// The last column, looks_like, is empty: alice and bob look like no one.
				assert.Equal(t, []string{"alice", "100", "100", "100", "", ""}, rows[1])
				assert.Equal(t, []string{"bob", "0", "100", "0", "01-ringbuffer: not started: the skeleton's stubs, unchanged", ""}, rows[2])
			case "junit":
				j, err := reporttest.ValidateJUnit(data)
				require.NoError(t, err)
				n := len(lessons.Default.All()[0].Tests) // lesson 01's, for alice and for bob
				assert.Equal(t, 2*n, j.Tests)
				assert.Equal(t, n, j.Failures, "bob's untouched skeleton fails every test")
				if err := reporttest.XMLLint(data); !errors.Is(err, reporttest.ErrNoXMLLint) {
					require.NoError(t, err)
				}
			case "json":
				var rep report.Report
				require.NoError(t, json.Unmarshal(data, &rep))
				require.Len(t, rep.Students, 2)
				assert.Equal(t, 100, rep.Students[0].Score)
				assert.Equal(t, "bob", rep.Students[1].Name)
				assert.True(t, rep.Students[1].Lessons[0].Untouched)
			case "html":
				require.NoError(t, reporttest.ValidateHTML(data))
			case "markdown":
				assert.Contains(t, string(data), "| alice | 100 | **100/100** |")
			case "table":
				assert.Regexp(t, `bob\s+0\s+0/100`, string(data))
			}
		})
	}

	// Nothing a person made is overwritten without --force, and nothing is
	// graded before that is settled.
	existing := filepath.Join(out, "report.csv")
	before, err := os.ReadFile(existing)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(existing, []byte("my gradebook"), 0o644))
	_, errOut, code := kata(t, "", "grade", "--lessons", "01", "--format", "csv", "--out", existing, class)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "exists; choose another --out, or add --force")
	data, _ := os.ReadFile(existing)
	assert.Equal(t, "my gradebook", string(data))
	_, errOut, code = kata(t, "", "grade", "--lessons", "01", "--format", "csv", "--out", existing, "--force", class)
	assert.Equal(t, exitFailed, code, errOut)
	data, _ = os.ReadFile(existing)
	assert.Equal(t, string(before), string(data))
	leftovers, _ := filepath.Glob(filepath.Join(out, ".kata-report-*"))
	assert.Empty(t, leftovers, "the report is written to a temporary file renamed into place")

	// To stdout, the report is all there is on it.
	stdout, _, code := kata(t, "", "grade", "--lessons", "01", "--format", "json", class)
	assert.Equal(t, exitFailed, code)
	var rep report.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &rep))

	// Grading only alice: full marks, exit 0.
	_, errOut, code = kata(t, "", "grade", "--lessons", "ringbuffer", filepath.Join(class, "alice"))
	assert.Equal(t, exitOK, code, errOut)
}

func TestGradeUsageErrors(t *testing.T) {
	useGradeCache(t)
	dir := t.TempDir()
	ws := filepath.Join(dir, "ws")
	_, _, code := kata(t, "", "init", ws)
	require.Equal(t, exitOK, code)
	ws2 := filepath.Join(dir, "ws2")
	_, _, code = kata(t, "", "init", ws2)
	require.Equal(t, exitOK, code)
	exists := filepath.Join(dir, "exists.csv")
	require.NoError(t, os.WriteFile(exists, nil, 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"grade"}, "grade: name the submissions"},
		{[]string{"grade", "--format", "xlsx", ws}, `grade: --format "xlsx": want one of table, csv`},
		{[]string{"grade", "--lessons", "03-runq", ws}, `no lesson "03-runq" (run 'kata list')`},
		{[]string{"grade", "--jobs", "0", ws}, "--jobs must be at least 1"},
		{[]string{"grade", "--runs", "0", ws}, "--runs must be at least 1"},
		{[]string{"grade", "--max-memory", "1", ws}, "--max-memory must be at least 64"},
		{[]string{"grade", filepath.Join(dir, "nope")}, `grade: no file or directory`},
		{[]string{"grade", "--tests", filepath.Join(dir, "nope"), ws}, "grade: test pack"},
		{[]string{"grade", "--format", "gradescope", ws, ws2}, "for 2, name a directory with --out DIR"},
		{[]string{"grade", "--format", "gradescope", "--out", filepath.Join(dir, "results.json"), ws, ws2}, "names a file, but Gradescope's format writes one results.json per student for 2 submissions: name a directory"},
		{[]string{"grade", "--out", exists, ws}, "exists; choose another --out, or add --force"},
		{[]string{"grade", "--out", dir, ws}, "is a directory; name the report file"},
	} {
		_, errOut, code := kata(t, dir, c.args...)
		assert.Equal(t, exitUsage, code, "kata %s: %s", strings.Join(c.args, " "), errOut)
		assert.Contains(t, errOut, c.want, "kata %s", strings.Join(c.args, " "))
		assert.True(t, strings.HasPrefix(errOut, "kata: "), errOut)
	}

	// A fifth red team's submissions named like flags, which "kata grade
	// *" in the class's directory hands to kata as flags: its own code as
	// every classmate's private tests, the race detector off for all.
	class := filepath.Join(dir, "class")
	for _, name := range []string{"--tests=zpack", "--no-race", "zpack"} {
		require.NoError(t, os.MkdirAll(filepath.Join(class, name), 0o755))
	}
	for _, args := range [][]string{
		{"grade", "--tests=zpack", "--no-race", "zpack", ws},
		{"grade", "--no-race", ws},
	} {
		_, errOut, code := kata(t, class, args...)
		assert.Equal(t, exitUsage, code, "kata %s: %s", strings.Join(args, " "), errOut)
		assert.Contains(t, errOut, "is a flag, and the name of a file or directory here", "kata %s", strings.Join(args, " "))
	}
}

// TestGradescopeDirectoriesNeverOverwrite (A24): "Bob" and "bob", and a
// name no file system takes as it is, each get a results.json of their
// own, even where the file system ignores case (as macOS's and Windows's
// do): the directories differ other than by case, and the names do not
// change.
func TestGradescopeDirectoriesNeverOverwrite(t *testing.T) {
	useGradeCache(t)
	class := filepath.Join(t.TempDir(), "class")
	names := []string{"Bob", "bob", "eve\u202e"}
	for _, name := range names {
		ws := filepath.Join(class, name)
		require.NoError(t, os.MkdirAll(filepath.Join(ws, ".kata"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, ".kata", "progress.json"), []byte("{}"), 0o644))
	}
	out := filepath.Join(t.TempDir(), "results")
	_, errOut, code := kata(t, "", "grade", "--lessons", "01", "--format", "gradescope", "--out", out, class)
	require.Equal(t, exitFailed, code, errOut)
	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	var dirs []string
	folded := map[string]bool{}
	for _, e := range entries {
		dirs = append(dirs, e.Name())
		assert.False(t, folded[strings.ToLower(e.Name())], "two directories differ only by case: %q", e.Name())
		folded[strings.ToLower(e.Name())] = true
		data, err := os.ReadFile(filepath.Join(out, e.Name(), "results.json"))
		require.NoError(t, err)
		require.NoError(t, reporttest.ValidateGradescope(data), e.Name())
	}
	// Only the later directory is numbered: both students keep their
	// names, in the report and on stderr, flagged for the instructor.
	assert.ElementsMatch(t, []string{"Bob", "bob-2", "eve%5Cu202e"}, dirs)
	assert.Contains(t, errOut, `kata: grade: names that look alike, kept as handed in: "Bob" (`)
}

// workflow is the part of a GitHub Actions workflow the test reads.
type workflow struct {
	Name        string            `yaml:"name"`
	On          []string          `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Env         map[string]string `yaml:"env"`
	Jobs        map[string]struct {
		RunsOn string `yaml:"runs-on"`
		If     string `yaml:"if"`
		Steps  []struct {
			Name string            `yaml:"name"`
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			Run  string            `yaml:"run"`
			Env  map[string]string `yaml:"env"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

func TestInitClassroomWritesAWorkflowThatGrades(t *testing.T) {
	useGradeCache(t)
	dir := filepath.Join(t.TempDir(), "template")
	out, errOut, code := kata(t, "", "init", "--classroom", dir)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "Added GitHub Classroom grading")

	data, err := os.ReadFile(filepath.Join(dir, workspace.ClassroomWorkflow))
	require.NoError(t, err)
	var wf workflow
	require.NoError(t, yaml.Unmarshal(data, &wf), "the workflow must be YAML")
	assert.Equal(t, "Autograding Tests", wf.Name, "Classroom's reporter looks for this name")
	assert.ElementsMatch(t, []string{"push", "workflow_dispatch", "repository_dispatch"}, wf.On)
	assert.Equal(t, "write", wf.Permissions["checks"])
	assert.Regexp(t, `^github\.com/gmp-kata/gmp-kata/cmd/kata@\S+$`, wf.Env["KATA"])
	job, ok := wf.Jobs["run-autograding-tests"]
	require.True(t, ok)
	assert.Equal(t, "github.actor != 'github-classroom[bot]'", job.If)

	var grader, reporter int = -1, -1
	for i, s := range job.Steps {
		if s.ID == "kata" {
			grader = i
		}
		if strings.HasPrefix(s.Uses, "education/autograding-grading-reporter@") {
			reporter = i
		}
	}
	require.GreaterOrEqual(t, grader, 0, "a step with id kata runs the check")
	require.Greater(t, reporter, grader, "the reporter comes after the check")
	assert.Contains(t, job.Steps[grader].Run, workspace.ClassroomCommand)
	assert.Contains(t, job.Steps[grader].Run, `>> "$GITHUB_OUTPUT"`)
	assert.Equal(t, "kata", job.Steps[reporter].With["runners"])
	assert.Equal(t, "${{ steps.kata.outputs.result }}", job.Steps[reporter].Env["KATA_RESULTS"],
		"the reporter reads <RUNNER>_RESULTS, upper-cased")

	// The command the workflow runs exists and prints what the reporter
	// decodes. (-short checks one lesson; the workflow checks them all.)
	args := strings.Fields(workspace.ClassroomCommand)[1:]
	require.Equal(t, []string{"check", "--all", "--format", "classroom"}, args)
	if testing.Short() {
		args = []string{"check", "01", "--format", "classroom"}
	}
	stdout, errOut, code := kata(t, dir, args...)
	assert.Equal(t, exitFailed, code, "the skeleton fails: %s", errOut)
	if testing.Short() {
		assert.Contains(t, errOut, "FAIL 01-ringbuffer", "the person's report goes to the log")
	} else {
		assert.Contains(t, errOut, "TODO 01-ringbuffer", "the person's report goes to the log (--all: an untouched lesson is one line)")
	}
	res, err := reporttest.ValidateClassroom(stdout)
	require.NoError(t, err, "stdout: %q", stdout)
	assert.Equal(t, "fail", res.Status)
	assert.Positive(t, res.MaxScore)
	assert.Regexp(t, regexp.MustCompile(`^01-ringbuffer: TestL01`), res.Tests[0].Name)

	// On an existing workspace, --classroom adds the workflow and saves a
	// different one that was there.
	require.NoError(t, os.WriteFile(filepath.Join(dir, workspace.ClassroomWorkflow), []byte("mine"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "runq.go"), []byte("package sched // my work\n"), 0o644))
	_, errOut, code = kata(t, "", "init", "--classroom", dir)
	require.Equal(t, exitOK, code, errOut)
	again, _ := os.ReadFile(filepath.Join(dir, workspace.ClassroomWorkflow))
	assert.Equal(t, string(data), string(again))
	mine, _ := os.ReadFile(filepath.Join(dir, "runq.go"))
	assert.Equal(t, "package sched // my work\n", string(mine), "--classroom on a workspace touches nothing else")
	backups, _ := filepath.Glob(filepath.Join(dir, workspace.BackupDir, "*", ".github", "workflows", "classroom.yml"))
	assert.Len(t, backups, 1)
}
