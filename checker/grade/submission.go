package grade

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/gmp-kata/gmp-kata/checker/report"
)

// A Submission is one student's work, as kata found it.
type Submission struct {
	// Name is the student as the report names them: the directory's or
	// archive's name as handed in, cleaned (report.Name: control, format
	// and invisible characters shown as escapes, on one line). It is never
	// changed to tell two students apart: see LooksLike.
	Name string
	// LooksLike are the names of the other submissions of the same
	// grading that a reader could take this one's for (report.Lookalike:
	// "Dana" and "dana", "José" written two ways, a Cyrillic "а"), the
	// same name from another directory included: the instructor checks
	// them against the roster (flagLookalikes).
	LooksLike []string
	// Source is where it came from, as given: a path, or path@ref.
	Source string
	// Problem says why nothing of it can be graded (an unsafe or
	// unreadable archive, no workspace in it); "" if it can be.
	Problem string
	// files holds each lesson file found: its content or its problem.
	files map[string]file
}

type file struct {
	data    []byte
	problem string
}

// File returns the content of a lesson file (a base name, e.g. "runq.go"),
// or why it cannot be graded.
func (s *Submission) File(name string) ([]byte, string) {
	if s.Problem != "" {
		return nil, s.Problem
	}
	f, ok := s.files[name]
	if !ok {
		return nil, "no " + name + " in the submission"
	}
	return f.data, f.problem
}

// archiveExts are the archive names kata reads, longest first.
var archiveExts = []string{".tar.gz", ".tgz", ".tar", ".zip"}

func archiveExt(name string) string {
	lower := strings.ToLower(name)
	for _, ext := range archiveExts {
		if strings.HasSuffix(lower, ext) {
			return ext
		}
	}
	return ""
}

// A Finder turns command-line arguments into submissions.
type Finder struct {
	// LessonFiles are the base names of every lesson's files: what kata
	// looks for, and the only files it takes from a submission.
	LessonFiles []string
	Limits      Limits
	// Notes, if set, is told about entries of a class directory that are
	// not submissions.
	Notes func(string)
}

// Find returns the submissions args name. An argument is
//
//   - a workspace directory (it holds .kata/progress.json, go.mod or a
//     lesson file at its top), or a directory of several submissions (each
//     entry one: a directory, or an archive);
//   - an archive of a workspace: .zip, .tar.gz, .tgz or .tar;
//   - PATH@REF: the git repository PATH at REF (a branch, tag or commit),
//     or, if PATH is a directory of repositories, each of them at REF.
//
// An argument that names nothing is an error; a submission that cannot be
// read is not (it is graded as a failure, with its Problem).
func (f *Finder) Find(args []string) ([]*Submission, error) {
	if f.Limits == (Limits{}) {
		f.Limits = DefaultLimits
	}
	var subs []*Submission
	for _, arg := range args {
		found, err := f.find(arg)
		if err != nil {
			return nil, err
		}
		subs = append(subs, found...)
	}
	if len(subs) == 0 {
		return nil, errors.New("grade: no submissions found (name workspace directories, archives, or a directory of them)")
	}
	for _, s := range subs {
		s.Name = report.Name(s.Name)
	}
	f.flagLookalikes(subs)
	return subs, nil
}

func (f *Finder) find(arg string) ([]*Submission, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		// PATH@REF: the first @ after which PATH is a directory (a ref
		// may hold @ too: main@{yesterday}).
		for i := 0; i < len(arg); i++ {
			if arg[i] == '@' && i > 0 && dirExists(arg[:i]) {
				return f.findGit(arg[:i], arg[i+1:])
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("grade: no file or directory %q (name a workspace, an archive, REPO@REF, or a directory of them)", arg)
		}
		return nil, fmt.Errorf("grade: %w", err)
	}
	if !fi.IsDir() {
		if archiveExt(arg) == "" {
			return nil, fmt.Errorf("grade: %q is neither a directory nor an archive (.zip, .tar.gz, .tgz, .tar)", arg)
		}
		return []*Submission{f.fromArchive(arg, false)}, nil
	}
	if f.isWorkspace(arg) {
		if held := f.heldSubmissions(arg, f.isWorkspace, true, true); len(held) > 0 {
			return nil, bothWorkspaceAndClass(arg, f.marker(arg), held)
		}
		return []*Submission{f.fromDir(arg, false)}, nil
	}
	entries, err := os.ReadDir(arg)
	if err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	var subs []*Submission
	for _, e := range entries {
		p := filepath.Join(arg, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."):
			if e.IsDir() && e.Name() != ".git" && e.Name() != ".github" || archiveExt(e.Name()) != "" {
				f.note(fmt.Sprintf("skipping %s: its name starts with a dot (kata takes such names for hidden files, not submissions)", p))
			}
		case e.IsDir():
			subs = append(subs, f.fromDir(p, true))
		case e.Type().IsRegular() && archiveExt(e.Name()) != "":
			subs = append(subs, f.fromArchive(p, true))
		case e.Type()&fs.ModeSymlink != 0:
			f.note(fmt.Sprintf("skipping %s: a link (kata grades only what is inside the directory it is given)", p))
		default:
			f.note(fmt.Sprintf("skipping %s: neither a directory nor an archive", p))
		}
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("grade: %s is neither a workspace (no %s, no %s at its top) nor a directory of submissions", arg, progressMarker, listSome(f.LessonFiles, 2))
	}
	return subs, nil
}

// note tells Notes about msg, cleaned: it names files a student named.
func (f *Finder) note(msg string) {
	if f.Notes != nil {
		f.Notes(report.Name(msg))
	}
}

// isWorkspace reports whether dir is itself one submission.
func (f *Finder) isWorkspace(dir string) bool {
	return f.marker(dir) != ""
}

// marker is the first of the files that make dir a workspace that it
// holds at its top ("" if none).
func (f *Finder) marker(dir string) string {
	for _, name := range append([]string{progressMarker, modMarker}, f.LessonFiles...) {
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); err == nil {
			return name
		}
	}
	return ""
}

// heldSubmissions lists (up to three) what dir, which looks like one
// submission, holds at its top that the class listing would take as a
// submission of its own: a directory that is one (by is) or, with
// nested, that holds a lesson file or a marker a few levels down (a
// workspace in a student's folder); with archives, an archive. A class
// directory with a marker file at its top (a student's upload can put one
// there) would otherwise be graded as one workspace, and every classmate
// in it vanish from the gradebook (red teams 12 and 13). Every entry is
// read, as the class listing reads them: a thirteenth red team hid the
// classmates behind 4,100 files when only the first 4,096 were.
func (f *Finder) heldSubmissions(dir string, is func(string) bool, nested, archives bool) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var held []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		p := filepath.Join(dir, name)
		switch {
		case e.IsDir() && (is(p) || nested && f.holdsLessonFile(p)),
			archives && e.Type().IsRegular() && archiveExt(name) != "":
			if held = append(held, name); len(held) == 3 {
				return held
			}
		}
	}
	return held
}

// holdsLessonFile reports whether dir holds a lesson file or a marker as
// deep as kata looks for a workspace in a submission (Limits.Depth). A
// directory with folders deeper than that counts as holding one: kata
// cannot tell, and refusing to guess is the safe side (a fourteenth red
// team hid the classmates four levels down, when this looked three deep).
// One with more entries than a submission may have (Limits.Entries) is
// looked at no further: no classmate's would be graded (only a student's
// own folder can be made that large by them).
func (f *Finder) holdsLessonFile(dir string) bool {
	seen := 0
	var walk func(dir string, depth int) bool
	walk = func(dir string, depth int) bool {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return false
		}
		for _, e := range entries {
			if seen++; seen > f.Limits.Entries {
				return false
			}
			name := e.Name()
			switch {
			case e.IsDir() && name == ".kata":
				if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(progressMarker))); err == nil {
					return true
				}
			case e.IsDir() && skipDir(name):
			case e.IsDir():
				if depth >= f.Limits.Depth || walk(filepath.Join(dir, name), depth+1) {
					return true
				}
			case name == modMarker || slices.Contains(f.LessonFiles, name):
				return true
			}
		}
		return false
	}
	return walk(dir, 1)
}

// bothWorkspaceAndClass is the error for a directory that is both one
// submission (it has marker at its top) and a directory of submissions.
func bothWorkspaceAndClass(dir, marker string, held []string) error {
	return fmt.Errorf("grade: %s has %s at its top, as one submission has, but also holds submissions (%s): kata will not guess which it is. "+
		"If it is a class, remove %s from its top (a submission may have put it there); if it is one submission, move the others out of it",
		report.Name(dir), report.Name(marker), report.Name(strings.Join(held, ", ")), report.Name(filepath.Join(dir, marker)))
}

// fromDir reads the submission in dir; listed says dir was found in a
// class listing (and must still be what was listed: see open.go).
func (f *Finder) fromDir(dir string, listed bool) *Submission {
	s := &Submission{Name: baseName(dir), Source: dir}
	t, err := readDir(dir, listed, f.Limits)
	if err != nil {
		s.Problem = "the directory could not be read: " + err.Error()
		return s
	}
	f.extract(s, t)
	return s
}

// fromArchive reads the submission in the archive file; listed as for
// fromDir.
func (f *Finder) fromArchive(file string, listed bool) (s *Submission) {
	s = &Submission{Name: baseName(file), Source: file}
	defer func() {
		// The archive readers are Go's own, and fuzzed; should one still
		// panic on a crafted archive, the archive is refused, not kata.
		if r := recover(); r != nil {
			s.Problem, s.files = fmt.Sprintf("unsafe or unreadable archive: reading it failed (%v)", r), nil
		}
	}()
	var t *tree
	var err error
	if archiveExt(file) == ".zip" {
		t, err = readZip(file, listed, f.Limits)
	} else {
		t, err = readTarFile(file, listed, f.Limits)
	}
	if err != nil {
		s.Problem = "unsafe or unreadable archive: " + err.Error()
		return s
	}
	f.extract(s, t)
	return s
}

// extract takes the lesson files out of t: it finds the workspace in t's
// listing, follows each lesson file's links, and reads those files, and
// nothing else, each up to the file limit.
func (f *Finder) extract(s *Submission, t *tree) {
	if t.close != nil {
		defer t.close()
	}
	root, problem := t.root(f.LessonFiles)
	if problem != "" {
		s.Problem = "it " + problem
		return
	}
	s.files = map[string]file{}
	found := map[string]*entry{}
	var need []*entry
	for _, name := range f.LessonFiles {
		e, problem := t.resolve(path.Join(root, name), name)
		if problem != "" {
			s.files[name] = file{problem: problem}
			continue
		}
		found[name] = e
		if !slices.Contains(need, e) {
			need = append(need, e)
		}
	}
	t.fetch(need, f.Limits.FileBytes)
	for name, e := range found {
		if e.problem != "" {
			s.files[name] = file{problem: e.problem}
		} else {
			s.files[name] = file{data: e.data}
		}
	}
}

// findGit returns the repository dir at ref, or, if dir is not a
// repository, each repository in it at ref.
func (f *Finder) findGit(dir, ref string) ([]*Submission, error) {
	if _, err := exec.LookPath("git"); err != nil {
		return nil, fmt.Errorf("grade: reading %s@%s needs git, which is not on PATH", dir, ref)
	}
	if strings.HasPrefix(ref, "-") || ref == "" {
		return nil, fmt.Errorf("grade: %q is not a git ref", ref)
	}
	if isGitRepo(dir) {
		if held := f.heldSubmissions(dir, isGitRepo, false, false); len(held) > 0 {
			return nil, bothWorkspaceAndClass(dir, ".git", held)
		}
		return []*Submission{f.fromGit(dir, ref)}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	var subs []*Submission
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.IsDir() && isGitRepo(p):
			subs = append(subs, f.fromGit(p, ref))
		default:
			f.note(fmt.Sprintf("skipping %s: not a git repository (@%s names a commit of one)", p, ref))
		}
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("grade: %s is neither a git repository nor a directory of them", dir)
	}
	return subs, nil
}

// isGitRepo reports whether dir has a .git, of any kind: one that is a
// file or a link is refused by fromGit, with the reason, not skipped.
func isGitRepo(dir string) bool {
	_, err := os.Lstat(filepath.Join(dir, ".git"))
	return err == nil
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// baseName names a submission after its directory or archive.
func baseName(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	base := filepath.Base(p)
	if ext := archiveExt(base); ext != "" {
		base = base[:len(base)-len(ext)]
	}
	return base
}

// flagLookalikes tells each submission which others' names a reader could
// take its name for (report.Lookalike), and says so once on Notes. Names
// are never changed: the red team's "Dana" beside the honest "dana" had
// both renamed ("Dana-1", "dana-2") and her row no longer matched the
// instructor's roster. Every student keeps the name handed in, and the
// instructor, told which names look alike and where each came from,
// decides who is who.
func (f *Finder) flagLookalikes(subs []*Submission) {
	const maxLookalikes = 5
	groups := map[string][]*Submission{}
	var keys []string
	for _, s := range subs {
		k := report.Lookalike(s.Name)
		if groups[k] == nil {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], s)
	}
	for _, k := range keys {
		members := groups[k]
		if len(members) < 2 {
			continue
		}
		var seen []string
		for _, s := range members {
			// At most maxLookalikes of the others, by name: a class of n
			// names alike would otherwise make n² of them.
			for _, o := range members {
				if o == s {
					continue
				}
				if len(s.LooksLike) == maxLookalikes {
					s.LooksLike = append(s.LooksLike, fmt.Sprintf("and %d more", len(members)-1-maxLookalikes))
					break
				}
				s.LooksLike = append(s.LooksLike, o.Name)
			}
			seen = append(seen, fmt.Sprintf("%q (%s)", s.Name, s.Source))
		}
		f.note("names that look alike, kept as handed in: " + listSome(seen, 2*maxLookalikes) +
			"; check them against your roster (reports flag them as \"looks like\")")
	}
}

// sortedNames returns the keys of m, sorted.
func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
