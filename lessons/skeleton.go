package lessons

import (
	"fmt"
	"io/fs"
	"strings"
)

// SkeletonFiles computes the learner's starting point from the reference
// package in solutions (a directory of .go files): every non-test file,
// with the files the registry's lessons own stubbed (see Stub). It is what
// skeleton/ must hold.
func SkeletonFiles(solutions fs.FS, reg *Registry) (map[string][]byte, error) {
	names, err := fs.Glob(solutions, "*.go")
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := fs.ReadFile(solutions, name)
		if err != nil {
			return nil, err
		}
		if l := reg.Owner(name); l != nil {
			if src, err = Stub(name, src, l.ID); err != nil {
				return nil, err
			}
		}
		out[name] = src
	}
	for _, l := range reg.All() {
		for _, f := range l.Files {
			if _, ok := out[f]; !ok {
				return nil, fmt.Errorf("lesson: %s owns %s, which is not in solutions/", l.ID, f)
			}
		}
	}
	return out, nil
}
