package lessons

import (
	"embed"
	"io/fs"
)

//go:embed testdata/kit/*_test.go testdata/kit/*.s
var kitFS embed.FS

// Kit holds the helpers every lesson's hidden tests may use (building a
// scheduler without Ms, running one with a deadline). They are added to
// the graded package beside the hidden tests.
var Kit, _ = fs.Sub(kitFS, "testdata/kit")

// KitFiles lists the files of Kit: Go test files, and the assembly of
// the controlled scheduler's kitGetg (testdata/kit/self_getg_test.go).
func KitFiles() []string {
	names, _ := fs.Glob(Kit, "*_test.go")
	asm, _ := fs.Glob(Kit, "*.s")
	return append(names, asm...)
}
