package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/gmp-kata/gmp-kata/checker/grade"
	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

var gradeCommand = &cli.Command{
	Name:      "grade",
	Usage:     "grade a class: each submission's lesson files, run inside the reference with the hidden tests, in isolation",
	ArgsUsage: "SUBMISSION...",
	Description: `A SUBMISSION is a workspace directory, a .zip, .tar.gz, .tgz or .tar of one,
a git repository at a commit (REPO@REF), or a directory holding many of those
(DIR, or DIR@REF for a directory of repositories). Only each lesson's own files
are taken from a submission; everything else is the reference.

Grades are cached by the content of the lesson files, the tests and kata
itself: identical files grade once, and a grading that was stopped resumes
where it stopped when run again. The report is written to stdout, or to
--out (never over an existing file without --force).

Exit status: 0 if every submission scored full marks, 1 if some lost points
(the report is complete either way), 2 for a wrong command line, 3 if kata
could not grade something (the report says what).

See the book's appendix D (book/src/grading.md) for the formats, private
test packs, the threat model and GitHub Classroom.`,
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "lessons", Usage: "grade only these `LESSONS`, like 01,02 (default: all)"},
		&cli.IntFlag{Name: "jobs", Value: grade.DefaultJobs(), Usage: "lessons graded at once"},
		&cli.StringFlag{Name: "tests", Usage: "add the private test pack in `DIR` (see the book's appendix D)"},
		&cli.StringFlag{Name: "format", Value: "table", Usage: "the report's format: " + strings.Join(report.Formats, ", ")},
		&cli.StringFlag{Name: "out", Usage: "write the report to `PATH` (gradescope with several submissions: a directory, one results.json per student)"},
		&cli.BoolFlag{Name: "force", Usage: "replace an existing --out"},
		&cli.BoolFlag{Name: "no-race", Usage: "grade without the race detector (faster; misses data races)"},
		&cli.IntFlag{Name: "runs", Value: 1, Usage: "grade each lesson `N` times; a test scores only if it passes every time (a race that passes once by luck rarely passes N times)"},
		&cli.IntFlag{Name: "max-memory", Value: grade.DefaultMaxMemory >> 20, Usage: "memory one run may use, in `MIB` (not enforced on Windows)"},
	},
	Action: runGrade,
}

func runGrade(c *cli.Context) error {
	format := c.String("format")
	if !slices.Contains(report.Formats, format) {
		return usageError(fmt.Sprintf("grade: --format %q: want one of %s", format, strings.Join(report.Formats, ", ")))
	}
	if c.NArg() == 0 {
		return usageError("grade: name the submissions: workspace directories, archives, REPO@REF, or a directory of them (like 'kata grade submissions/')")
	}
	if err := flagsFromGlob(c); err != nil {
		return err
	}
	if c.Int("jobs") < 1 {
		return usageError("grade: --jobs must be at least 1")
	}
	if c.Int("runs") < 1 {
		return usageError("grade: --runs must be at least 1")
	}
	if c.Int("max-memory") < 64 {
		return usageError("grade: --max-memory must be at least 64 (MiB): a run of the course needs a few hundred")
	}
	var ids []string
	for _, name := range strings.FieldsFunc(c.String("lessons"), func(r rune) bool { return r == ',' || r == ' ' }) {
		l, err := lessons.Default.Lookup(name)
		if err != nil {
			return usageError(err.Error())
		}
		if !slices.Contains(ids, l.ID) {
			ids = append(ids, l.ID)
		}
	}
	var pack *grade.Pack
	if dir := c.String("tests"); dir != "" {
		var err error
		if pack, err = grade.LoadPack(dir, lessons.Default); err != nil {
			return usageError(err.Error())
		}
	}

	g, err := grade.New(grade.Options{Lessons: ids, Pack: pack, Jobs: c.Int("jobs"), NoRace: c.Bool("no-race"),
		MaxMemory: int64(c.Int("max-memory")) << 20, Runs: c.Int("runs")})
	if err != nil {
		return couldNot(err)
	}
	errw := c.App.ErrWriter
	finder := &grade.Finder{LessonFiles: g.LessonFiles(), Notes: func(msg string) { fmt.Fprintln(errw, "kata: grade: "+msg) }}
	subs, err := finder.Find(c.Args().Slice())
	if err != nil {
		return usageError(err.Error())
	}
	out, force := c.String("out"), c.Bool("force")
	perStudent := format == "gradescope" && len(subs) > 1
	if perStudent && out == "" {
		return usageError(fmt.Sprintf("grade: Gradescope's results.json holds one submission; for %d, name a directory with --out DIR (one DIR/STUDENT/results.json each)", len(subs)))
	}
	if err := checkOut(out, force, perStudent, subs); err != nil {
		return err
	}
	if !checker.MemoryLimitEnforced {
		fmt.Fprintln(errw, "kata: grade: the memory limit is not enforced on Windows; here a run may use all the memory there is (grade on Linux or macOS to have it)")
	}

	printer := grade.NewPrinter(errw, isTerminal(errw))
	defer printer.Close()
	rep, stats, err := g.Grade(c.Context, subs, printer)
	if err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return cli.Exit(fmt.Sprintf("grade: interrupted after %d of %d lesson runs; the grades finished are kept: run the same command again to finish", stats.Runs, stats.Planned), exitCouldNot)
		}
		return couldNot(err)
	}

	if perStudent {
		var names []string
		for _, s := range rep.Students {
			names = append(names, s.Name)
		}
		dirs := report.StudentDirs(names)
		for i := range rep.Students {
			s := &rep.Students[i]
			p := filepath.Join(out, dirs[i], "results.json")
			if err := writeFile(p, force, func(w io.Writer) error { return report.WriteGradescope(w, rep, s) }); err != nil {
				return couldNot(err)
			}
		}
	} else if out != "" {
		if err := writeFile(out, force, func(w io.Writer) error { return report.Write(w, format, rep) }); err != nil {
			return couldNot(err)
		}
	} else if err := report.Write(c.App.Writer, format, rep); err != nil {
		return couldNot(err)
	}
	where := ""
	if out != "" {
		where = "; report in " + out
	}
	fmt.Fprintf(errw, "kata: graded %s%s\n", stats, where)
	return gradeExit(rep)
}

// checkOut refuses, before any grading, to write over what is there.
func checkOut(out string, force, perStudent bool, subs []*grade.Submission) error {
	if out == "" {
		return nil
	}
	fi, statErr := os.Stat(out)
	if statErr == nil && perStudent && !fi.IsDir() {
		return usageError(fmt.Sprintf("grade: --out %s is a file; for several submissions in Gradescope's format, name a directory", out))
	}
	if statErr != nil && perStudent && strings.EqualFold(filepath.Ext(out), ".json") {
		// Named like the one results.json of a single submission: a
		// directory of that name would surprise whoever uploads it.
		return usageError(fmt.Sprintf("grade: --out %s names a file, but Gradescope's format writes one results.json per student for %d submissions: name a directory (--out DIR writes DIR/STUDENT/results.json)", out, len(subs)))
	}
	if force {
		return nil
	}
	if perStudent {
		var names []string
		for _, s := range subs {
			names = append(names, s.Name)
		}
		for _, dir := range report.StudentDirs(names) {
			p := filepath.Join(out, dir, "results.json")
			if _, err := os.Stat(p); err == nil {
				return usageError(fmt.Sprintf("grade: %s exists; choose another --out, or add --force to replace the results there", p))
			}
		}
		return nil
	}
	if fi, err := os.Stat(out); err == nil {
		if fi.IsDir() {
			return usageError(fmt.Sprintf("grade: --out %s is a directory; name the report file", out))
		}
		return usageError(fmt.Sprintf("grade: %s exists; choose another --out, or add --force to replace it", out))
	}
	return nil
}

// writeFile writes a report to path all at once: to a temporary file
// beside it, renamed into place, so that an interrupted kata never leaves
// half a gradebook, and an existing file is only replaced with force.
func writeFile(path string, force bool, write func(io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("grade: %s appeared while grading; the report was not written (run again with --force to replace it)", path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kata-report-*")
	if err != nil {
		return fmt.Errorf("grade: %w", err)
	}
	if err := write(tmp); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("grade: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("grade: %w", err)
	}
	return nil
}

// gradeExit is grade's exit status: 3 if a grade could not be run, 1 if a
// submission lost points, else 0.
func gradeExit(rep *report.Report) error {
	code := exitOK
	for _, s := range rep.Students {
		for _, l := range s.Lessons {
			if l.Status == report.StatusError {
				return cli.Exit(fmt.Sprintf("grade: %s %s could not be graded: %s", s.Name, l.ID, l.Reason), exitCouldNot)
			}
		}
		if s.Score < s.MaxScore {
			code = exitFailed
		}
	}
	if code != exitOK {
		return cli.Exit("", code)
	}
	return nil
}

// isTerminal reports whether w is a terminal that can redraw a line.
func isTerminal(w io.Writer) bool {
	if os.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// flagsFromGlob refuses a flag that is also the name of a file or
// directory in the current directory: a shell glob (kata grade ... *)
// hands a submission named "--tests=mine" or "--no-race" to kata as that
// flag, since names that start with "-" sort first. A fifth red team's
// folder made its own code every classmate's private test pack that way;
// another turned the race detector off for the whole class.
func flagsFromGlob(c *cli.Context) error {
	for _, name := range c.FlagNames() {
		if !c.IsSet(name) {
			continue
		}
		forms := []string{"-" + name, "--" + name}
		if v := c.Value(name); v != nil {
			forms = append(forms, "-"+name+"="+fmt.Sprint(v), "--"+name+"="+fmt.Sprint(v))
		}
		for _, f := range forms {
			if _, err := os.Lstat(f); err == nil {
				return usageError(fmt.Sprintf("grade: %q is a flag, and the name of a file or directory here: a submission named like a flag, passed by a shell glob (*)? "+
					"Name the submissions' directory instead (kata grade DIR), or put -- before the submissions", f))
			}
		}
	}
	return nil
}
