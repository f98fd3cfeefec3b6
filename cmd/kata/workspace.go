package main

import (
	"slices"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/gmp-kata/gmp-kata/lessons"
	"github.com/urfave/cli/v2"
)

// findWorkspace finds the learner's workspace from --workspace,
// $KATA_WORKSPACE or the current directory.
func findWorkspace(c *cli.Context) (*workspace.Workspace, error) {
	ws, err := workspace.Find(c.String("workspace"))
	if err != nil {
		return nil, usageError(err.Error())
	}
	return ws, nil
}

// lookupLessons resolves lesson names given on the command line.
func lookupLessons(names []string) ([]*lessons.Lesson, error) {
	var out []*lessons.Lesson
	for _, name := range names {
		l, err := lessons.Default.Lookup(name)
		if err != nil {
			return nil, usageError(err.Error())
		}
		out = append(out, l)
	}
	return out, nil
}

// oneLesson resolves the single LESSON argument of a command.
func oneLesson(c *cli.Context) (*lessons.Lesson, error) {
	if c.NArg() != 1 {
		return nil, usageError("" + c.Command.Name + ": name one lesson, like 'kata " + c.Command.Name + " 01' (run 'kata list')")
	}
	ls, err := lookupLessons(c.Args().Slice())
	if err != nil {
		return nil, err
	}
	return ls[0], nil
}

// lessonInWorkspace resolves the LESSON argument of a command that works on
// that lesson in the learner's workspace.
func lessonInWorkspace(c *cli.Context) (*lessons.Lesson, *workspace.Workspace, error) {
	l, err := oneLesson(c)
	if err != nil {
		return nil, nil, err
	}
	ws, err := findWorkspace(c)
	if err != nil {
		return nil, nil, err
	}
	return l, ws, nil
}

// nextLesson is the first lesson the learner has not passed, or nil.
func nextLesson(ws *workspace.Workspace) *lessons.Lesson {
	for _, l := range lessons.Default.All() {
		if !ws.Progress.Passed(l.ID) {
			return l
		}
	}
	return nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
