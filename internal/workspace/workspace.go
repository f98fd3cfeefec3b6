// Package workspace is the learner's side of the course on disk: the
// directory `kata init` makes, with the skeleton of the scheduler to fill
// in, a go.mod so that it type-checks in an editor on its own, and the
// learner's progress in .kata/progress.json.
package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	gmpkata "github.com/gmp-kata/gmp-kata"
	"github.com/gmp-kata/gmp-kata/lessons"
)

// Files and directories of a workspace.
const (
	StateDir     = ".kata"
	ProgressFile = ".kata/progress.json"
	BackupDir    = ".kata/backup"
	modulePath   = "kata.local/workspace"
)

// EnvVar names the environment variable that points at a workspace.
const EnvVar = "KATA_WORKSPACE"

// A Workspace is a learner's copy of the course.
type Workspace struct {
	Dir      string
	Progress *Progress
}

// ErrNotFound is returned (wrapped) by Find when there is no workspace.
var ErrNotFound = errors.New("no kata workspace")

// Init makes a workspace in dir: the skeleton's files, go.mod, a README
// and a fresh progress file. dir may exist only if it is empty, unless
// force is set; files force overwrites are first copied to .kata/backup.
func Init(dir string, force bool) (*Workspace, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if entries, err := os.ReadDir(abs); err == nil && len(entries) > 0 && !force {
		if _, err := os.Stat(filepath.Join(abs, ProgressFile)); err == nil {
			return nil, fmt.Errorf("workspace: %s is already a kata workspace; to start a lesson over run 'kata reset LESSON' (or 'kata init --force %s' to restore every file, your versions saved in %s)", abs, dir, BackupDir)
		}
		return nil, fmt.Errorf("workspace: %s is not empty; choose a new directory, or run 'kata init --force %s' to add the course's files (any file it replaces is saved in %s first)", abs, dir, BackupDir)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	if err := os.MkdirAll(filepath.Join(abs, StateDir), 0o755); err != nil {
		return nil, fmt.Errorf("workspace: %w", err)
	}
	w := &Workspace{Dir: abs, Progress: newProgress()}
	if old, err := loadProgress(abs); err == nil {
		w.Progress = old // --force on a workspace keeps the learner's progress
	}
	files := map[string][]byte{
		"go.mod":    []byte("module " + modulePath + "\n\ngo 1.26\n"),
		"README.md": []byte(readme),
	}
	names, err := fs.Glob(gmpkata.Sources, "skeleton/*.go")
	if err != nil {
		return nil, err
	}
	for _, name := range names {
		data, err := fs.ReadFile(gmpkata.Sources, name)
		if err != nil {
			return nil, err
		}
		files[path.Base(name)] = data
	}
	stamp := time.Now().Format("20060102-150405")
	for name, data := range files {
		if err := w.write(name, data, stamp); err != nil {
			return nil, err
		}
	}
	return w, w.Save()
}

// write writes name in the workspace, first saving a different existing
// file to the backup directory.
func (w *Workspace) write(name string, data []byte, stamp string) error {
	p := filepath.Join(w.Dir, name)
	if old, err := os.ReadFile(p); err == nil {
		if string(old) == string(data) {
			return nil
		}
		backup := filepath.Join(w.Dir, BackupDir, stamp, name)
		if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(backup, old, 0o644); err != nil {
			return fmt.Errorf("workspace: saving %s before replacing it: %w", name, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("workspace: %w", err)
	}
	return os.WriteFile(p, data, 0o644)
}

// Find returns the workspace at dir, or, if dir is "", the one named by
// $KATA_WORKSPACE, or the current directory or the nearest of its parents
// that is one.
func Find(dir string) (*Workspace, error) {
	if dir == "" {
		dir = os.Getenv(EnvVar)
	}
	if dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, err
		}
		p, err := loadProgress(abs)
		if err != nil {
			return nil, fmt.Errorf("workspace: %s: %w (make one with 'kata init %s')", abs, err, dir)
		}
		return &Workspace{Dir: abs, Progress: p}, nil
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	for d := cwd; ; d = filepath.Dir(d) {
		if p, err := loadProgress(d); err == nil {
			return &Workspace{Dir: d, Progress: p}, nil
		} else if !errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("workspace: %s: %w", d, err)
		}
		if filepath.Dir(d) == d {
			return nil, fmt.Errorf("workspace: %w in %s or any directory above it (make one with 'kata init DIR', or pass --workspace DIR)", ErrNotFound, cwd)
		}
	}
}

// LessonFiles returns where the workspace keeps l's files: base name →
// path.
func (w *Workspace) LessonFiles(l *lessons.Lesson) map[string]string {
	files := map[string]string{}
	for _, f := range l.Files {
		files[f] = filepath.Join(w.Dir, f)
	}
	return files
}

// Strangers returns the .go files (not tests) of the workspace that the
// course did not put there: the learner's own helper files, which no
// lesson grades (kata takes only each lesson's own files).
func (w *Workspace) Strangers() []string {
	entries, err := os.ReadDir(w.Dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		if _, err := fs.Stat(gmpkata.Sources, "skeleton/"+name); err != nil {
			out = append(out, name)
		}
	}
	return out
}

// Skeleton returns the pristine starting version of a lesson file.
func Skeleton(file string) ([]byte, error) {
	return fs.ReadFile(gmpkata.Sources, "skeleton/"+file)
}

// Reference returns the reference version of a file of solutions/.
func Reference(file string) ([]byte, error) {
	return fs.ReadFile(gmpkata.Sources, "solutions/"+file)
}

// Reset restores l's files to the skeleton, saving the learner's versions
// in the backup directory first. It returns where they were saved ("" if
// nothing differed).
func (w *Workspace) Reset(l *lessons.Lesson) (string, error) {
	stamp := time.Now().Format("20060102-150405")
	saved := ""
	for _, f := range l.Files {
		data, err := Skeleton(f)
		if err != nil {
			return "", err
		}
		if old, err := os.ReadFile(filepath.Join(w.Dir, f)); err == nil && string(old) != string(data) {
			saved = filepath.Join(w.Dir, BackupDir, stamp)
		}
		if err := w.write(f, data, stamp); err != nil {
			return "", err
		}
	}
	w.Progress.Lesson(l.ID).Reset()
	return saved, w.Save()
}

// Touched reports whether the learner has changed any of l's files from
// the skeleton.
func (w *Workspace) Touched(l *lessons.Lesson) bool {
	for _, f := range l.Files {
		skel, err := Skeleton(f)
		if err != nil {
			return false
		}
		mine, err := os.ReadFile(filepath.Join(w.Dir, f))
		if err != nil || string(mine) != string(skel) {
			return true
		}
	}
	return false
}

const readme = `# Your gmp-kata workspace

This directory is the Go scheduler of the gmp-kata course, with the parts you will
write left as stubs: each lesson owns whole files (runq.go, runnext.go, ...), and
their functions panic("not implemented") until you write them. Everything else is
the reference scheduler, there to read.

- ` + "`kata`" + `: where you are, and what to do next.
- ` + "`kata list`" + `: the lessons and your progress.
- ` + "`kata task 01`" + `: what lesson 01 asks; then edit its file here.
- ` + "`kata check 01`" + `: grade it (your file, inside the reference scheduler).
- ` + "`kata hint 01`" + `: a hint; again for the next one.
- ` + "`kata watch`" + `: re-check on every save.
- ` + "`kata reset 01`" + `: start lesson 01 over (your version is saved in .kata/backup).

It is an ordinary Go module: your editor (gopls) type-checks it as it is.
` + "`.kata/progress.json`" + ` records your progress; don't delete it.
`
