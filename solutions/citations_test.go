package sched

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// citedGoVersion is the Go release whose runtime sources the comments in
// this package cite by line ("Mirrors runqput (proc.go:7478)").
const citedGoVersion = "go1.26.8"

// TestCitations checks that every "Mirrors NAME (FILE:LINE)" comment points
// at the line where the runtime of citedGoVersion declares NAME, so the book
// can quote them.
func TestCitations(t *testing.T) {
	if runtime.Version() != citedGoVersion {
		t.Skipf("the citations are to %s's runtime; this toolchain is %s, whose line numbers differ", citedGoVersion, runtime.Version())
	}
	// "Mirrors NAME (proc.go:N)" cites NAME's declaration; "Mirrors the
	// gate in NAME (proc.go:N)" cites a line inside NAME's body.
	cite := regexp.MustCompile(`Mirrors (?:\(\*[a-z]+\)\.)?(the [^(]*? )?([A-Za-z_0-9]+) \(((?:proc|time|chan)\.go):(\d+)\)`)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string][]string{}
	checked := 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range cite.FindAllStringSubmatch(string(data), -1) {
			inside, name, src := m[1] != "", m[2], m[3]
			line, _ := strconv.Atoi(m[4])
			lines, ok := sources[src]
			if !ok {
				lines = readLines(t, filepath.Join(runtime.GOROOT(), "src", "runtime", src))
				sources[src] = lines
			}
			if line < 1 || line > len(lines) {
				t.Errorf("%s: %q cites %s:%d, past the end of the file", file, m[0], src, line)
				continue
			}
			decl := regexp.MustCompile(`^(func (\([a-z]+ \*?[A-Za-z]+\) )?|type )` + regexp.QuoteMeta(name) + `\b`)
			at := line - 1
			if inside {
				// The enclosing declaration: the nearest line above that
				// starts one.
				for at > 0 && !strings.HasPrefix(lines[at], "func ") {
					at--
				}
			}
			if !decl.MatchString(lines[at]) {
				t.Errorf("%s: %q: %s:%d is %q, not the declaration of %s", file, m[0], src, line, strings.TrimSpace(lines[line-1]), name)
			}
			checked++
		}
	}
	if checked < 40 {
		t.Errorf("checked only %d citations; the pattern no longer matches the comments", checked)
	}
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("reading the runtime's source: %v", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}
