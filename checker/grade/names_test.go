package grade

import (
	"bytes"
	"context"
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
// gets through, every name stays on its line, and no two students share a
// name.
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

	seen := map[string]bool{}
	for _, s := range rep.Students {
		displayable(t, "a student's name", s.Name)
		displayable(t, "a student's source", s.Source)
		assert.NotContains(t, s.Name, "\n")
		assert.False(t, seen[s.Name], "two students are named %q", s.Name)
		seen[s.Name] = true
	}
	assert.Contains(t, seen, `bob\u202e\u2066gpj.exe\u2069`, "a bidi control shows as its escape")
	assert.Contains(t, seen, `bob\u202e`)
	assert.Contains(t, seen, `bob\u202e-2`, "a name that cleans to another's is numbered")
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
// names that would be live in a spreadsheet or in Markdown. Every one
// reads as someone else in every format: the ones that hid something
// show it escaped, and the honest name keeps its own; names that look
// alike with nothing hidden (case, script, normalization) are all
// numbered, so none passes for another.
func TestLookalikeNamesReadApart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Windows file names cannot end in a space")
	}
	class := filepath.Join(t.TempDir(), "class")
	names := []string{"correct", "correct ", "correct\u00a0", "correct\u034f", "correct\u3164", "correct\ufe0f",
		"Bob", "bob", "сarol", "carol", "José", "Jose\u0301", "www.evil.example", " =1+1"}
	for _, name := range names {
		ws := filepath.Join(class, name)
		require.NoError(t, os.MkdirAll(filepath.Join(ws, ".kata"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(ws, ".kata", "progress.json"), []byte("{}"), 0o644))
	}
	subs, err := finder().Find([]string{class})
	require.NoError(t, err)
	require.Len(t, subs, len(names))
	shown := map[string]string{}
	seen := map[string]string{}
	for _, s := range subs {
		raw := filepath.Base(s.Source)
		shown[raw] = s.Name
		k := report.Lookalike(s.Name)
		assert.Empty(t, seen[k], "%q and %q read alike: %q", raw, seen[k], s.Name)
		seen[k] = raw
	}
	assert.Equal(t, "correct", shown["correct"], "the honest name keeps its own")
	for raw, want := range map[string]string{"correct ": `correct\x20`, "correct\u00a0": `correct\u00a0`, "correct\u034f": `correct\u034f`,
		"correct\u3164": `correct\u3164`, "correct\ufe0f": `correct\ufe0f`, " =1+1": `\x20=1+1`, "www.evil.example": "www.evil.example"} {
		assert.Equal(t, want, shown[raw], "%q", raw)
	}
	for _, pair := range [][2]string{{"Bob", "bob"}, {"сarol", "carol"}, {"José", "Jose\u0301"}} {
		for _, raw := range pair {
			assert.Regexp(t, `-\d$`, shown[raw], "%q looks like %q: neither may keep the name", raw, pair)
		}
	}
}
