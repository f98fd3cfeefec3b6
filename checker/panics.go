package checker

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
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

// goroutineHeader starts a goroutine's stack in a dump: its number and
// state ("running", "sync.Mutex.Lock, 2 minutes").
var goroutineHeader = regexp.MustCompile(`^goroutine \d+ \[([^\]]*)\]:`)

// hangLocation reads the goroutine dump the harness printed as a test
// neared its time limit (kataWatch) and says where the learner's code was:
// "runqgethead (runq.go:133) was still running". Goroutines running or
// runnable come first; a learner's frame is the topmost frame of a
// goroutine in one of the learner's files. It returns the output with the
// dump taken out (it names the grading module's paths), and "" if there
// was no dump or no learner's frame in it.
func (c *Checker) hangLocation(mod *module, lines []string, replace map[string]string) (where string, rest []string) {
	start, end := -1, len(lines)
	for i, l := range lines {
		switch strings.TrimSpace(l) {
		case dumpStart:
			if start < 0 {
				start = i
			}
		case dumpEnd:
			if start >= 0 && end == len(lines) {
				end = i
			}
		}
	}
	if start < 0 {
		return "", lines
	}
	rest = append(slices.Clone(lines[:start]), lines[min(end+1, len(lines)):]...)
	var running, waiting []string
	listed := map[string]bool{} // what running and waiting hold: a dump of n goroutines is n look-ups, not n²
	state, found := "", true
	for i := start + 1; i < end; i++ {
		if m := goroutineHeader.FindStringSubmatch(strings.TrimSpace(lines[i])); m != nil {
			state, found = m[1], false
			continue
		}
		if found || i+1 >= end {
			continue
		}
		fn := strings.TrimSpace(lines[i])
		m := frameFile.FindStringSubmatch(lines[i+1])
		if m == nil || !strings.HasPrefix(fn, "gmpkata.grade/solutions.") {
			continue
		}
		path := filepath.Clean(m[1])
		if !strings.HasPrefix(path, mod.pkgDir) || replace[filepath.Base(path)] == "" {
			continue
		}
		found = true
		name := fn
		if fm := frameFunc.FindStringSubmatch(strings.TrimPrefix(fn, "gmpkata.grade/solutions.")); fm != nil {
			name = fm[1]
		}
		at := fmt.Sprintf("%s (%s:%s)", name, filepath.Base(path), m[2])
		kind, _, _ := strings.Cut(state, ",")
		switch kind {
		case "running", "runnable":
			if !listed[at] {
				listed[at] = true
				running = append(running, at)
			}
		default:
			if w := at + " was waiting (" + kind + ")"; !listed[w] {
				listed[w] = true
				waiting = append(waiting, w)
			}
		}
	}
	switch {
	case len(running) == 1:
		return running[0] + " was still running", rest
	case len(running) > 1:
		return listSome(running, 2) + " were still running", rest
	case len(waiting) > 0:
		return listSome(waiting, 2), rest
	}
	return "", rest
}

// raceAccess is an access header of a race report: "Write at 0x... by
// goroutine 9:", "Previous read at 0x... by main goroutine:".
var raceAccess = regexp.MustCompile(`^(previous )?(atomic )?(read|write)\b.* by (?:goroutine \d+|main goroutine):$`)

// maxRaceFrames bounds the frames condenseRaces reads below one access of
// a race report, looking for the learner's (a scheduler's stack in a
// lesson's test is a few dozen frames deep; a learner's frame below the
// 64th is placed by a reference frame, or not at all). It read
// every line down to a blank one, so 120,000 access lines with no blank
// line between them, printed by a test that then crashed, cost kata
// 120,000² / 2 lines and minutes of its own time.
const maxRaceFrames = 64

// condenseRaces replaces each race detector report in a test's output by
// one line that names the two accesses where the learner can find them
// (their first frames in the learner's files, else in the reference's) and
// says what to do. Other lines are kept; "race detected during execution
// of test", which the line explains, is not.
func (c *Checker) condenseRaces(mod *module, lines []string, replace map[string]string) []string {
	out, _ := c.condenseRacesCounting(mod, lines, replace)
	return out
}

// condenseRacesCounting is condenseRaces, saying how many lines it read
// (a line read twice counts twice): what a test holds to the length.
func (c *Checker) condenseRacesCounting(mod *module, lines []string, replace map[string]string) (out []string, read int) {
	seen := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		read++
		t := strings.TrimSpace(lines[i])
		switch {
		case t == "==================":
			continue
		case strings.HasSuffix(t, "race detected during execution of test"):
			continue
		case t != "WARNING: DATA RACE":
			out = append(out, lines[i])
			continue
		}
		var accesses []string
		start := i
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "=================="; i++ {
			read++
			m := raceAccess.FindStringSubmatch(strings.ToLower(strings.TrimSpace(lines[i])))
			if m == nil {
				continue
			}
			verb := map[string]string{"read": "reads", "write": "writes"}[m[3]]
			if m[1] != "" {
				verb = map[string]string{"read": "read", "write": "wrote"}[m[3]]
			}
			where := "code kata cannot place"
			var ref string
			for j, k := i+1, 0; j+1 < len(lines) && k < maxRaceFrames; j, k = j+2, k+1 {
				read += 2
				fn := strings.TrimSpace(lines[j])
				if fn == "" || fn == "==================" || strings.HasSuffix(fn, ":") {
					break // the end of this access's stack: a blank line, the report's end, the next access
				}
				fm := frameFile.FindStringSubmatch(lines[j+1])
				if fm == nil || !strings.HasPrefix(fn, "gmpkata.grade/solutions.") {
					continue
				}
				name := fn
				if f := frameFunc.FindStringSubmatch(strings.TrimPrefix(fn, "gmpkata.grade/solutions.")); f != nil {
					name = f[1]
				}
				at := fmt.Sprintf("%s (%s:%s)", name, c.showFile(mod, fm[1], replace), fm[2])
				if replace[filepath.Base(fm[1])] != "" && strings.HasPrefix(filepath.Clean(fm[1]), mod.pkgDir) {
					where, ref = at, ""
					break
				}
				if ref == "" {
					ref = at
				}
			}
			if ref != "" {
				where = ref
			}
			accesses = append(accesses, where+" "+verb)
		}
		if len(accesses) < 2 {
			out = append(out, lines[start:min(i+1, len(lines))]...) // not a report kata can read: as it is
			continue
		}
		line := fmt.Sprintf("data race: %s memory that %s on another thread, with nothing ordering the two: share it through an atomic (Load, Store, CompareAndSwap), or only under a lock",
			accesses[0], accesses[1])
		if !seen[line] {
			seen[line] = true
			out = append(out, line)
		}
	}
	return out, read
}
