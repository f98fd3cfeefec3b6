package lessons

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// A Mutant is a plausible wrong implementation of a lesson, kept as edits
// to the reference rather than as a copy of it: it stays one mistake even
// when the reference around it changes, and a reference change that moves
// the edited lines out from under it is caught (Apply fails).
//
// On disk a mutant is a text file, testdata/mutants/NAME.txt:
//
//	# runqgethead moves the head with a plain Store: two takers can take one slot
//	=== runq.go
//	<<<<<<<
//			if pp.runqhead.CompareAndSwap(h, h+1) {
//				return gp
//			}
//	=======
//			pp.runqhead.Store(h + 1)
//			return gp
//	>>>>>>>
//
// The first lines starting with # say what the mistake is, but for one
// that reads "# caught by: TestName": the hidden test that caught the mutant
// last time (its first failure), which kata verify runs first, alone (see
// checker.Verify), and which go test ./checker -run TestVerify
// -update-hints rewrites. "=== FILE" names
// the file the following edits apply to; each edit replaces the text
// between <<<<<<< and ======= (which must occur exactly once in the file)
// with the text between ======= and >>>>>>>.
type Mutant struct {
	Name  string
	Why   string
	Edits []Edit
	// CaughtBy is the "# caught by:" line's test, or "".
	CaughtBy string
}

// caughtByPrefix starts the line of a mutant file that names the test
// that caught it last time.
const caughtByPrefix = "# caught by:"

// An Edit replaces Old with New in File.
type Edit struct {
	File     string
	Old, New string
}

// Mutants reads the lesson's mutants, sorted by name.
func (l *Lesson) ReadMutants() ([]Mutant, error) {
	if l.Mutants == nil {
		return nil, nil
	}
	names, err := fs.Glob(l.Mutants, "*.txt")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []Mutant
	for _, name := range names {
		data, err := fs.ReadFile(l.Mutants, name)
		if err != nil {
			return nil, err
		}
		m, err := ParseMutant(strings.TrimSuffix(name, ".txt"), data)
		if err != nil {
			return nil, fmt.Errorf("lesson %s: %w", l.ID, err)
		}
		if m.CaughtBy != "" && !slices.ContainsFunc(l.Tests, func(t Test) bool { return t.Name == m.CaughtBy }) {
			return nil, fmt.Errorf("lesson %s: mutant %s says it is caught by %s, which is not one of the lesson's tests", l.ID, m.Name, m.CaughtBy)
		}
		for _, e := range m.Edits {
			if !slices.Contains(l.Files, e.File) {
				return nil, fmt.Errorf("lesson %s: mutant %s edits %s, which the lesson does not own", l.ID, m.Name, e.File)
			}
		}
		out = append(out, m)
	}
	return out, nil
}

// ParseMutant reads a mutant file (see Mutant).
func ParseMutant(name string, data []byte) (Mutant, error) {
	m := Mutant{Name: name}
	var why []string
	file := ""
	state := "head" // head, old, new
	var old, cur []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	lineNo := 0
	bad := func(format string, args ...any) (Mutant, error) {
		return Mutant{}, fmt.Errorf("mutant %s, line %d: %s", name, lineNo, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		switch {
		case state == "head" && strings.HasPrefix(line, caughtByPrefix):
			m.CaughtBy = strings.TrimSpace(strings.TrimPrefix(line, caughtByPrefix))
		case state == "head" && strings.HasPrefix(line, "#"):
			if file == "" {
				why = append(why, strings.TrimSpace(strings.TrimPrefix(line, "#")))
			}
		case state == "head" && strings.HasPrefix(line, "=== "):
			file = strings.TrimSpace(strings.TrimPrefix(line, "=== "))
		case state == "head" && line == "<<<<<<<":
			if file == "" {
				return bad("an edit before any === FILE line")
			}
			state, cur = "old", nil
		case state == "head" && strings.TrimSpace(line) == "":
		case state == "head":
			return bad("expected # comment, === FILE or <<<<<<<, got %q", line)
		case state == "old" && line == "=======":
			old, cur, state = cur, nil, "new"
		case state == "new" && line == ">>>>>>>":
			if len(old) == 0 {
				return bad("an edit with nothing to replace")
			}
			m.Edits = append(m.Edits, Edit{File: file, Old: strings.Join(old, "\n") + "\n", New: joinLines(cur)})
			state = "head"
		default:
			cur = append(cur, line)
		}
	}
	if state != "head" {
		return bad("unterminated edit (want ======= and >>>>>>>)")
	}
	if len(m.Edits) == 0 {
		return bad("no edits")
	}
	m.Why = strings.Join(why, " ")
	if m.Why == "" {
		return bad("no # line saying what the mistake is")
	}
	return m, sc.Err()
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// Apply returns the files of the mutant: each edited file of ref (base name
// → content) with its edits made. An edit whose old text is not in the file
// exactly once is an error: the reference has moved on and the mutant must
// be brought up to date.
func (m Mutant) Apply(ref map[string][]byte) (map[string][]byte, error) {
	out := map[string][]byte{}
	for _, e := range m.Edits {
		src, ok := out[e.File]
		if !ok {
			if src, ok = ref[e.File]; !ok {
				return nil, fmt.Errorf("mutant %s: no file %s", m.Name, e.File)
			}
		}
		switch n := bytes.Count(src, []byte(e.Old)); n {
		case 1:
		case 0:
			return nil, fmt.Errorf("mutant %s: its edit of %s no longer matches the reference (update testdata/mutants/%s.txt):\n%s", m.Name, e.File, m.Name, e.Old)
		default:
			return nil, fmt.Errorf("mutant %s: its edit of %s matches %d places; make the old text longer", m.Name, e.File, n)
		}
		out[e.File] = bytes.Replace(src, []byte(e.Old), []byte(e.New), 1)
	}
	return out, nil
}

// FormatMutant writes m in the file format ParseMutant reads.
func FormatMutant(m Mutant) []byte {
	var b strings.Builder
	for _, line := range strings.Split(m.Why, "\n") {
		b.WriteString("# " + line + "\n")
	}
	file := ""
	for _, e := range m.Edits {
		if e.File != file {
			file = e.File
			b.WriteString("=== " + path.Base(file) + "\n")
		}
		b.WriteString("<<<<<<<\n" + e.Old + "=======\n" + e.New + ">>>>>>>\n")
	}
	return []byte(b.String())
}

// SetCaughtBy returns the mutant file data with its "# caught by:" line
// naming test: the old line replaced, or a new one after the comment lines
// that open the file.
func SetCaughtBy(data []byte, test string) []byte {
	lines := strings.SplitAfter(string(data), "\n")
	line := caughtByPrefix + " " + test + "\n"
	var out strings.Builder
	done := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, caughtByPrefix):
			continue // dropped: the new line goes where the comments end
		case !done && !strings.HasPrefix(l, "#"):
			out.WriteString(line)
			done = true
		}
		out.WriteString(l)
	}
	if !done {
		out.WriteString(line)
	}
	return []byte(out.String())
}
