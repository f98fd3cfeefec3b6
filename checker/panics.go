package checker

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// A stack frame of a Go traceback: the function line, then its file line.
var (
	frameFunc = regexp.MustCompile(`^(?:[\w./-]+\.)?([\w.()*\[\]]+)\(.*\)$`)
	frameFile = regexp.MustCompile(`^\s+(\S+\.go):(\d+)`)
)

// summarizePanic shortens a panic's traceback for a learner: the panic
// line, then up to four frames of the scheduler package, each with its file
// shown as the learner knows it (their file, a reference file, or the
// hidden test), leaving out the testing, runtime and harness frames. The
// hidden tests' frames have their names back already (see stream.add).
func (c *Checker) summarizePanic(lines []string, replace map[string]string) []string {
	return c.summarizePanicIn(c.mod, lines, replace)
}

// summarizePanicIn is summarizePanic for a test binary built from mod (the
// shared module or a run's private copy).
func (c *Checker) summarizePanicIn(mod *module, lines []string, replace map[string]string) []string {
	start := -1
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "panic:") || strings.HasPrefix(t, "fatal error:") || strings.HasPrefix(t, "race: limit on") {
			start = i
			break
		}
	}
	if start < 0 {
		return lines
	}
	out := append([]string{}, lines[:start]...)
	head := strings.TrimSpace(lines[start])
	head = strings.TrimSuffix(head, " [recovered, repanicked]")
	head = strings.TrimSuffix(head, " [recovered]")
	out = append(out, head)
	frames := 0
	for i := start + 1; i+1 < len(lines) && frames < 4; i++ {
		fn := strings.TrimSpace(lines[i])
		m := frameFile.FindStringSubmatch(lines[i+1])
		if m == nil || !strings.Contains(fn, "gmpkata.grade/solutions.") {
			continue
		}
		if filepath.Base(m[1]) == harnessFile {
			// The wrapper that runs a hidden test: the test's own frame,
			// just above, says where it was.
			i++
			continue
		}
		name := fn
		if fm := frameFunc.FindStringSubmatch(strings.TrimPrefix(fn, "gmpkata.grade/solutions.")); fm != nil {
			name = fm[1]
		}
		out = append(out, fmt.Sprintf("    at %s (%s:%s)", name, c.showFile(mod, m[1], replace), m[2]))
		frames++
		i++
	}
	return out
}

// showFile names a file of the grading module as the learner knows it.
func (c *Checker) showFile(mod *module, path string, replace map[string]string) string {
	base := filepath.Base(path)
	if !strings.HasPrefix(filepath.Clean(path), mod.pkgDir) {
		return path
	}
	switch {
	case strings.HasPrefix(base, "zz_"):
		return "hidden test"
	case replace[base] != "":
		return base
	default:
		return base + ", reference"
	}
}
