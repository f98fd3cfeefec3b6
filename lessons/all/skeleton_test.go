package all

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/lessons"
)

var update = flag.Bool("update", false, "rewrite skeleton/ (-run Skeleton) or the lessons' copies of the reference (-run Oracle) from solutions/")

// TestSkeletonIsFresh fails when skeleton/ is not what the lessons make of
// solutions/. Run `go test ./lessons/all -run Skeleton -update` to
// regenerate it after changing the reference or a lesson.
func TestSkeletonIsFresh(t *testing.T) {
	want, err := lessons.SkeletonFiles(os.DirFS("../../solutions"), lessons.Default)
	if err != nil {
		t.Fatal(err)
	}
	dir := "../../skeleton"
	if *update {
		old, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range old {
			os.Remove(f)
		}
		for name, data := range want {
			if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	have, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, f := range have {
		if _, ok := want[filepath.Base(f)]; !ok {
			t.Errorf("skeleton/%s has no counterpart in solutions/ (run: go test ./lessons/all -run Skeleton -update)", filepath.Base(f))
		}
	}
	for name, data := range want {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(got, data) {
			t.Errorf("skeleton/%s is stale (run: go test ./lessons/all -run Skeleton -update)", name)
		}
	}
}

// TestSkeletonStubsEveryLessonFunction checks the stubs themselves: each
// lesson file in skeleton/ panics with "not implemented" and keeps no
// reference body.
func TestSkeletonStubsEveryLessonFunction(t *testing.T) {
	for _, l := range lessons.Default.All() {
		for _, f := range l.Files {
			data, err := os.ReadFile(filepath.Join("../../skeleton", f))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `panic("not implemented: `) || !strings.Contains(string(data), "TODO("+l.ID+")") {
				t.Errorf("skeleton/%s (lesson %s) has no stubs", f, l.ID)
			}
		}
	}
}
