package book

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// modulePath is the course's module: a go.mod declaring it marks the
// repository's root.
const modulePath = "github.com/gmp-kata/gmp-kata"

// FindRepo returns the root of the course's repository that dir is in, or
// "" if it is not in one.
func FindRepo(dir string) string {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "module ") {
					if strings.TrimSpace(strings.TrimPrefix(line, "module")) == modulePath {
						f.Close()
						return dir
					}
					break
				}
			}
			f.Close()
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// RepoFS is the repository at root as a source tree for Build.
func RepoFS(root string) fs.FS { return os.DirFS(root) }
