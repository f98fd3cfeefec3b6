package workspace

import (
	_ "embed"
	"strings"
	"time"
)

// GitHub Classroom. An instructor makes a workspace with
// 'kata init --classroom', pushes it as the assignment's template
// repository, and every student's copy is graded by GitHub Actions on each
// push: the workflow installs kata, runs 'kata check --all --format
// classroom' (every lesson, then all the student's files together), and
// hands the result to GitHub Classroom's reporter
// (education/autograding-grading-reporter), which records the points in
// Classroom. The layout follows the workflow Classroom itself generates:
// a workflow named "Autograding Tests" in .github/workflows/classroom.yml,
// a job run-autograding-tests, one grading step whose id names the
// <ID>_RESULTS variable the reporter reads.

// Files written by AddClassroom.
const (
	ClassroomWorkflow = ".github/workflows/classroom.yml"
	GitIgnore         = ".gitignore"
)

// ClassroomCommand is what the workflow runs to grade.
const ClassroomCommand = "kata check --all --format classroom"

// classroomYAML is the workflow; KATA_VERSION is replaced by the version
// of kata to install. The book (appendix D) shows it as it is.
//
//go:embed classroom.yml
var classroomYAML string

const classroomGitIgnore = `# kata's backups of files it replaced (kata reset, kata init --force)
.kata/backup/
# kata trace's pages
traces/
`

// Classroom returns the files AddClassroom writes, for kata version (a
// module version like v1.2.0; "" or "(devel)" installs the latest).
func Classroom(version string) map[string][]byte {
	if version == "" || version == "(devel)" {
		version = "latest"
	}
	return map[string][]byte{
		ClassroomWorkflow: []byte(strings.ReplaceAll(classroomYAML, "KATA_VERSION", version)),
		GitIgnore:         []byte(classroomGitIgnore),
	}
}

// AddClassroom writes the GitHub Classroom workflow into the workspace. A
// different file already there is saved in the backup directory first.
func (w *Workspace) AddClassroom(version string) error {
	stamp := time.Now().Format("20060102-150405")
	for name, data := range Classroom(version) {
		if err := w.write(name, data, stamp); err != nil {
			return err
		}
	}
	return nil
}
