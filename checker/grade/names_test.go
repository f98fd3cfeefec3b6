package grade

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hostileNames are submission names a student can choose (a directory's
// or an archive's name): a newline and terminal escapes that forge a
// progress line, bidi controls that reorder what a reader sees, invisible
// format characters, and two names that differ only in what cleaning
// replaces.
var hostileNames = []string{
	"eve\x1b[2K\rgraded mallory: 824∕824\ngraded mallory",
	"\x1b]0;pwned\x07oscar\ttab",
	"bob\u202e\u2066gpj.exe\u2069",
	`bob\u202e`,
	"bob\u202e",
	"dan\u200f\u200e\u061c\ufeff\u00ad\u2028",
	"carol\u200b",
	"carol\u2060",
}

// displayable reports what in s a terminal or a reader would not show as
// it is: a control or format character, or a line or paragraph separator.
func displayable(t *testing.T, what, s string) {
	t.Helper()
	for _, r := range s {
		if r == '\n' || r == '\t' {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			t.Errorf("%s holds %U: %q", what, r, s)
			return
		}
	}
}

// TestHostileNamesAreCleanedEverywhere grades a class of submissions with
// hostile names (each has no lesson file, so nothing runs) and reads every
// format and the progress lines: no control or format character of a name
// gets through, every name stays on its line, and two students whose names
// show the same (`bob\u202e` typed, and bob with a real U+202E) keep them
// and are flagged as looking like each other.
func TestHostileNamesAreCleanedEverywhere(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot hold control characters")
	}
	class := filepath.Join(t.TempDir(), "class")
	for _, name := range hostileNames {
		ws := filepath.Join(class, name)
		require.NoError(t, os.MkdirAll(filepath.Join(ws, ".kata"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, ".kata", "progress.json"), []byte("{}"), 0o644))
	}
	g, err := New(Options{CacheDir: cacheDir(t), Lessons: []string{"01-ringbuffer"}})
	require.NoError(t, err)
	subs, err := (&Finder{LessonFiles: g.LessonFiles()}).Find([]string{class})
	require.NoError(t, err)
	require.Len(t, subs, len(hostileNames))
	var progress bytes.Buffer
	printer := NewPrinter(&progress, false)
	rep, stats, err := g.Grade(context.Background(), subs, printer)
	require.NoError(t, err)
	assert.Equal(t, 0, stats.Runs)

	seen := map[string]int{}
	for _, s := range rep.Students {
		displayable(t, "a student's name", s.Name)
		displayable(t, "a student's source", s.Source)
		assert.NotContains(t, s.Name, "\n")
		seen[s.Name]++
		if s.Name == `bob\u202e` {
			assert.Equal(t, []string{`bob\u202e`}, s.LooksLike, "a name that cleans to another's is flagged, not renamed")
		}
	}
	assert.Contains(t, seen, `bob\u202e\u2066gpj.exe\u2069`, "a bidi control shows as its escape")
	assert.Equal(t, 2, seen[`bob\u202e`], "both keep the name")
	assert.Contains(t, seen, `eve\x1b[2K\rgraded mallory: 824∕824\ngraded mallory`)

	lines := strings.Split(strings.TrimSuffix(progress.String(), "\n"), "\n")
	assert.Len(t, lines, len(hostileNames), "one progress line per student:\n%s", progress.String())
	for _, line := range lines {
		assert.True(t, strings.HasPrefix(line, "graded "), "a line that kata did not write: %q", line)
		assert.False(t, strings.HasPrefix(line, "graded mallory"), "a name forged a line: %q", line)
		displayable(t, "a progress line", line)
	}

	for _, format := range report.Formats {
		r := rep
		if format == "gradescope" {
			r = &report.Report{Kata: rep.Kata, Course: rep.Course, Lessons: rep.Lessons, Students: rep.Students[:1]}
		}
		var out bytes.Buffer
		require.NoError(t, report.Write(&out, format, r))
		displayable(t, format, out.String())
		for _, s := range r.Students {
			if format != "json" && format != "gradescope" { // JSON escapes a backslash
				assert.Contains(t, out.String(), htmlish(format, s.Name), "%s names %q", format, s.Name)
			}
		}
	}
}

// htmlish is how name appears in format: escaped for markup.
func htmlish(format, name string) string {
	switch format {
	case "html", "junit":
		return strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;").Replace(name)
	case "markdown":
		var b strings.Builder
		for _, r := range name {
			if strings.ContainsRune("\\`*_{}[]()#+-!|~", r) {
				b.WriteRune('\\')
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	return name
}

// TestLookalikeNamesReadApart (A24): submissions named to read as the
// honest "correct": a trailing space or no-break space, characters
// Unicode shows as nothing (U+034F, U+3164, U+FE0F), a name that differs
// only by case, one with a Cyrillic letter, "José" written two ways, and
// names that would be live in a spreadsheet or in Markdown. Every name is
// kept as handed in: the ones that hid something show it escaped (and so
// read as someone else), and names that look alike with nothing hidden
// (case, script, normalization) keep theirs and are flagged as looking
// like each other, with a note for the instructor; the honest name is
// never renamed (the red team's "Dana" beside "dana" had both renamed,
// and "dana" no longer matched the roster).
func TestLookalikeNamesReadApart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot end in a space")
	}
	class := filepath.Join(t.TempDir(), "class")
	names := []string{"correct", "correct ", "correct\u00a0", "correct\u034f", "correct\u3164", "correct\ufe0f",
		"Bob", "bob", "сarol", "carol", "José", "Jose\u0301", "www.evil.example", " =1+1", "Dana", "dana"}
	for _, name := range names {
		ws := filepath.Join(class, name)
		require.NoError(t, os.MkdirAll(filepath.Join(ws, ".kata"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, ".kata", "progress.json"), []byte("{}"), 0o644))
	}
	f := finder()
	var notes []string
	f.Notes = func(n string) { notes = append(notes, n) }
	subs, err := f.Find([]string{class})
	require.NoError(t, err)
	require.Len(t, subs, len(names))
	shown := map[string]string{}
	like := map[string][]string{}
	for _, s := range subs {
		raw := filepath.Base(s.Source)
		shown[raw], like[raw] = s.Name, s.LooksLike
	}
	assert.Equal(t, "correct", shown["correct"], "the honest name keeps its own")
	assert.Empty(t, like["correct"], "nothing reads as it: what hid something shows it")
	for raw, want := range map[string]string{"correct ": `correct\x20`, "correct\u00a0": `correct\u00a0`, "correct\u034f": `correct\u034f`,
		"correct\u3164": `correct\u3164`, "correct\ufe0f": `correct\ufe0f`, " =1+1": `\x20=1+1`, "www.evil.example": "www.evil.example"} {
		assert.Equal(t, want, shown[raw], "%q", raw)
	}
	for _, pair := range [][2]string{{"Bob", "bob"}, {"сarol", "carol"}, {"José", "Jose\u0301"}, {"Dana", "dana"}} {
		assert.Equal(t, pair[0], shown[pair[0]], "kept as handed in")
		assert.Equal(t, pair[1], shown[pair[1]], "kept as handed in")
		assert.Equal(t, []string{pair[1]}, like[pair[0]], "%q is flagged as looking like %q", pair[0], pair[1])
		assert.Equal(t, []string{pair[0]}, like[pair[1]], "%q is flagged as looking like %q", pair[1], pair[0])
	}
	all := strings.Join(notes, "\n")
	assert.Contains(t, all, `names that look alike, kept as handed in: "Dana" (`+filepath.Join(class, "Dana")+`), "dana" (`+filepath.Join(class, "dana")+`); check them against your roster`)
	assert.Equal(t, 4, strings.Count(all, "names that look alike"), "one note per group:\n%s", all)
}

// TestLookalikesAreBounded: a class of many names alike flags each with a
// few of the others and how many more, not with all (n² names).
func TestLookalikesAreBounded(t *testing.T) {
	var subs []*Submission
	for i := range 2000 {
		name := "dana"
		if i%2 == 1 {
			name = "Dana"
		}
		subs = append(subs, &Submission{Name: name, Source: fmt.Sprintf("c%d/%s", i, name)})
	}
	var notes []string
	(&Finder{Notes: func(n string) { notes = append(notes, n) }}).flagLookalikes(subs)
	for _, s := range subs {
		require.Len(t, s.LooksLike, 6)
		assert.Equal(t, "and 1994 more", s.LooksLike[5])
	}
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "and 1990 more")
}
