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
// task.md, chapter.md, hints/*.md and
// testdata/{hidden,bench,mutants,alternates} — and
// returns l. A lesson's init function embeds those and registers:
//
//	//go:embed task.md chapter.md hints testdata
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
	if data, err := fs.ReadFile(fsys, "testdata/mutation.txt"); err == nil {
		l.Mutation = string(data)
	}
	return l
}
