package lessons

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
)

// MustRead returns the text of name in fsys; a lesson's embedded text
// that cannot be read is a bug in the course, found at start-up.
func MustRead(fsys fs.FS, name string) string {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		panic(fmt.Sprintf("lesson: reading %s: %v", name, err))
	}
	return string(data)
}

// MustReadHints returns the hints in fsys's hints/ directory, in the order
// of their file names (1.md, 2.md, ...).
func MustReadHints(fsys fs.FS) []string {
	names, err := fs.Glob(fsys, "hints/*.md")
	if err != nil || len(names) == 0 {
		panic("lesson: no hints/*.md")
	}
	slices.Sort(names)
	hints := make([]string, len(names))
	for i, name := range names {
		hints[i] = strings.TrimSpace(MustRead(fsys, name))
	}
	return hints
}

// MustSub returns the subdirectory dir of fsys.
func MustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(fmt.Sprintf("lesson: %s: %v", dir, err))
	}
	return sub
}

// Content fills in l's task, chapter, hints, hidden tests, benchmarks,
// mutants and alternates from its lesson directory's embedded files —
// task.md, chapter.md, hints/*.md, api.txt and
// testdata/{hidden,bench,mutants,alternates} — and
// returns l. A lesson's init function embeds those and registers:
//
//	//go:embed task.md chapter.md hints api.txt testdata
//	var content embed.FS
//
//	func init() { lessons.Register(lessons.Content(content, &lessons.Lesson{...})) }
func Content(fsys fs.FS, l *Lesson) *Lesson {
	l.Task = MustRead(fsys, "task.md")
	l.Chapter = MustRead(fsys, "chapter.md")
	l.Hints = MustReadHints(fsys)
	l.Hidden = MustSub(fsys, "testdata/hidden")
	l.Bench = MustSub(fsys, "testdata/bench")
	l.Mutants = MustSub(fsys, "testdata/mutants")
	l.Alternates = MustSub(fsys, "testdata/alternates")
	l.API = ParseAPI(MustRead(fsys, "api.txt"))
	if data, err := fs.ReadFile(fsys, "testdata/mutation.txt"); err == nil {
		l.Mutation = string(data)
	}
	return l
}

// The sections of a lesson's api.txt.
const (
	APIGenerated = "[generated]"
	APIReviewed  = "[reviewed]"
)

// ParseAPI reads a lesson's api.txt: one name a line (runqget, g.goid),
// in a section generated from the course (APIGenerated) or one a human
// keeps (APIReviewed); "#" starts a comment, to the end of the line. It
// returns the names of both sections, sorted, each once.
func ParseAPI(text string) []string {
	var names []string
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		if line == "" || line == APIGenerated || line == APIReviewed {
			continue
		}
		names = append(names, line)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// APISection returns the names of one section of an api.txt, in their
// order in the file.
func APISection(text, section string) []string {
	var names []string
	in := false
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		line = strings.TrimSpace(line)
		switch {
		case line == APIGenerated || line == APIReviewed:
			in = line == section
		case in && line != "":
			names = append(names, line)
		}
	}
	return names
}
