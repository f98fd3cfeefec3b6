package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"time"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/urfave/cli/v2"
)

var initCommand = &cli.Command{
	Name:      "init",
	Usage:     "make a workspace: the scheduler with the lessons' parts left for you to write",
	ArgsUsage: "DIR",
	Flags: []cli.Flag{
		&cli.BoolFlag{Name: "force", Usage: "write into a non-empty DIR (files replaced are saved in .kata/backup first)"},
		&cli.BoolFlag{Name: "classroom", Usage: "add a GitHub Classroom workflow that grades each push (on an existing workspace, add only that)"},
	},
	Action: runInit,
}

func runInit(c *cli.Context) error {
	if c.NArg() != 1 {
		return usageError("init: name the directory to make, like 'kata init ~/gmp-kata'")
	}
	dir := c.Args().First()
	w := c.App.Writer
	if c.Bool("classroom") && !c.Bool("force") {
		// On a workspace that exists, add the workflow and nothing else.
		if _, err := os.Stat(filepath.Join(dir, workspace.ProgressFile)); err == nil {
			ws, err := workspace.Find(dir)
			if err != nil {
				return usageError(err.Error())
			}
			if err := ws.AddClassroom(kataVersion()); err != nil {
				return couldNot(err)
			}
			printClassroom(c, ws.Dir)
			return nil
		} else if !errors.Is(err, os.ErrNotExist) {
			return couldNot(err)
		}
	}
	ws, err := workspace.Init(dir, c.Bool("force"))
	if err != nil {
		return usageError(err.Error())
	}
	fmt.Fprintf(w, "Made a workspace in %s.\n\n", ws.Dir)
	if c.Bool("classroom") {
		if err := ws.AddClassroom(kataVersion()); err != nil {
			return couldNot(err)
		}
		printClassroom(c, ws.Dir)
		return nil
	}
	prepareChecks(c)
	fmt.Fprintf(w, "  cd %s\n  kata task 01      # what lesson 01 asks\n  kata check 01     # grade your runq.go\n  kata              # where you are, any time\n", ws.Dir)
	return nil
}

// prepareChecks builds, once per kata and Go installation, what a first
// check would otherwise spend half a minute on, the learner waiting: the
// race detector's build of Go's standard library, of the reference and of
// the hidden tests' kit. It does it by grading the reference's own runq.go
// on one quick test of lesson 01, into Go's build cache, and leaves a stamp
// in kata's cache directory. A failure here is not init's: the first check
// says what is wrong.
func prepareChecks(c *cli.Context) {
	ck, err := checker.New(checker.Options{MaxTimeouts: 1, SerialWithoutRace: true})
	if err != nil {
		return
	}
	stamp := filepath.Join(checker.DefaultCacheDir(), "prepared", ck.Fingerprint()+"-"+runtime.Version())
	if _, err := os.Stat(stamp); err == nil {
		return
	}
	l, err := ck.Registry().Lookup("01")
	if err != nil {
		return
	}
	w := c.App.Writer
	fmt.Fprint(w, "Building the race detector's version of Go's library and of the scheduler, once for this kata and this Go (up to a minute the first time)... ")
	began := time.Now()
	files := map[string]string{}
	for _, f := range l.Files {
		files[f] = filepath.Join(ck.ModuleDirs().Package, f) // the reference's own
	}
	res := ck.LessonWith(c.Context, l, files, checker.CheckOptions{Run: regexp.MustCompile(`^TestL01WrapAround$`)})
	if res.Status != checker.StatusPass {
		fmt.Fprintln(w, "not finished: your first check will do it.")
		return
	}
	fmt.Fprintf(w, "done in %.0fs.\n\n", time.Since(began).Seconds())
	if os.MkdirAll(filepath.Dir(stamp), 0o755) == nil {
		_ = os.WriteFile(stamp, nil, 0o644)
	}
}

// printClassroom says what to do with a workspace made for GitHub
// Classroom.
func printClassroom(c *cli.Context, dir string) {
	fmt.Fprintf(c.App.Writer, "Added GitHub Classroom grading: %s.\n\n"+
		"Push %s to a repository, mark it a template, and make it the starter code of a\n"+
		"Classroom assignment: each student's push is graded with '%s'.\n"+
		"See the book's appendix D for the rest.\n",
		filepath.Join(dir, filepath.FromSlash(workspace.ClassroomWorkflow)), dir, workspace.ClassroomCommand)
}

// kataVersion is the module version of this kata, "" if it was not built
// from a tagged module (go install ...@version gives one).
func kataVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return ""
}
