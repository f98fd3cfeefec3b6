package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// lookalikes are names chosen to read as "correct" (A24): a trailing
// space, a trailing no-break space, a leading space, characters Unicode
// shows as nothing (U+034F, U+3164 HANGUL FILLER, U+FE0F, U+115F, U+2800
// BRAILLE PATTERN BLANK, a variation selector beyond the BMP, a tag,
// U+1D159), private-use and unassigned code points, other spaces, and a
// combining mark with nothing under it. Each is shown so
// that it reads as something else than "correct".
var lookalikes = map[string]string{
	"correct ":            `correct\x20`,
	"correct\u00a0":       `correct\u00a0`,
	" correct":            `\x20correct`,
	"correct\u034f":       `correct\u034f`,
	"correct\u3164":       `correct\u3164`,
	"correct\ufe0f":       `correct\ufe0f`,
	"correct\u115f":       `correct\u115f`,
	"correct\u2800":       `correct\u2800`,
	"correct\U000e0100":   `correct\U000e0100`,
	"correct\U000e0041":   `correct\U000e0041`,
	"corr\u2009ect":       `corr\u2009ect`,
	"correct\u3000":       `correct\u3000`,
	"\u0301correct":       `\u0301correct`,
	"correct \u0301":      `correct \u0301`,
	"correct\u200b\u0301": `correct\u200b\u0301`,
	// A twenty-ninth red team's: private-use characters, an unassigned
	// code point and a musical symbol that shows as nothing.
	"corr\ue000ect":     `corr\ue000ect`,
	"correct\U000f0000": `correct\U000f0000`,
	"corr\u0378ect":     `corr\u0378ect`,
	"correct\U0001d159": `correct\U0001d159`,
}

func TestNameShowsWhatIsInvisible(t *testing.T) {
	for raw, want := range lookalikes {
		got := report.Name(raw)
		assert.Equal(t, want, got, "%q", raw)
		assert.NotEqual(t, "correct", got)
		assert.Equal(t, got, report.Name(got), "cleaning twice changes nothing: %q", raw)
		assert.NotEqual(t, report.Lookalike("correct"), report.Lookalike(got), "%q reads as correct", raw)
	}
	// What a reader sees as itself stays: a space between words, an
	// accent on its letter (precomposed or not), other scripts.
	for _, name := range []string{"Ada Lovelace", "José", "Jose\u0301", "Zoë", "李雷", "Ольга", "ʻOhana", "a\u0308\u0301"} {
		assert.Equal(t, name, report.Name(name))
	}
}

// TestLookalike: names a reader could take for one another share a
// Lookalike (so package grade numbers them apart); different names do not.
func TestLookalike(t *testing.T) {
	alike := [][2]string{
		{"Bob", "bob"},
		{"José", "Jose\u0301"},  // precomposed, and decomposed as macOS writes it
		{"сorrect", "correct"},  // a Cyrillic с
		{"correct", "соггесt"},  // Cyrillic о, г, е, с
		{"ΑΙΚΟ", "aiko"},        // Greek capitals
		{"ｃｏｒｒｅｃｔ", "correct"},  // fullwidth
		{"𝐜𝐨𝐫𝐫𝐞𝐜𝐭", "correct"},  // mathematical bold
		{"AIice", "Alice"},      // capital i for l
		{"rnallory", "mallory"}, // rn for m
		{"b0b", "bob"},          // zero for o
		{"ali  ce", "ali ce"},   // HTML shows two spaces as one
		{"ﬁona", "fiona"},       // a ligature
		{"\u212Aate", "kate"},   // KELVIN SIGN
		// A sixth red team's, unflagged before: Latin letters beyond the
		// table (found by their Unicode names), and a Cherokee small
		// letter whose capital the table has.
		{"ȷohn", "john"},   // LATIN SMALL LETTER DOTLESS J
		{"keviɴ", "kevin"}, // LATIN LETTER SMALL CAPITAL N
		{"ʟee", "lee"},     // LATIN LETTER SMALL CAPITAL L
		{"ꮯarl", "carl"},   // CHEROKEE SMALL LETTER TLI
		{"ɗan", "dan"},     // LATIN SMALL LETTER D WITH HOOK
		// A seventh red team's: scripts beyond the hand-made table.
		{"ꓓana", "dana"}, // LISU LETTER DA
		{"bⲟb", "bob"},   // COPTIC SMALL LETTER O
	}
	for _, p := range alike {
		assert.Equal(t, report.Lookalike(p[0]), report.Lookalike(p[1]), "%q and %q", p[0], p[1])
	}
	unlike := [][2]string{{"alice", "bob"}, {"李雷", "王芳"}, {"ann", "anne"}, {"correct", `correct\x20`}, {"Zoë", "Zoe-2"}, {"ɐnn", "ann"}, {"Øyvind", "Eyvind"}}
	for _, p := range unlike {
		assert.NotEqual(t, report.Lookalike(p[0]), report.Lookalike(p[1]), "%q and %q", p[0], p[1])
	}
}

// TestFileName: a name is one path element, the same on every system,
// and two names give two.
func TestFileName(t *testing.T) {
	for name, want := range map[string]string{
		"alice":        "alice",
		"José":         "José",
		"李雷":           "李雷",
		`bob\u202e`:    `bob%5Cu202e`,
		"a/b":          "a%2Fb",
		`a\b`:          "a%5Cb",
		"..":           "%2E%2E",
		".hidden":      "%2Ehidden",
		"bob.":         "bob%2E",
		"bob.zip":      "bob.zip",
		"CON":          "%43ON",
		"nul.txt":      "%6Eul.txt",
		"100%":         "100%25",
		"a:b*c?\"<>|d": "a%3Ab%2Ac%3F%22%3C%3E%7Cd",
		"Ada Lovelace": "Ada%20Lovelace",
		"":             "%00",
	} {
		assert.Equal(t, want, report.FileName(name), "%q", name)
	}
}

// TestStudentDirs: Gradescope's per-student directories (A24): two names
// that a file system ignoring case or normalization (macOS's, Windows's)
// takes for one directory get two, so no student's results.json is
// written over another's.
func TestStudentDirs(t *testing.T) {
	assert.Equal(t, []string{"Bob", "bob-2", "BOB-3", "alice"}, report.StudentDirs([]string{"Bob", "bob", "BOB", "alice"}))
	dirs := report.StudentDirs([]string{"José", "Jose\u0301", "bob-2", "Bob", "bob"})
	assert.Equal(t, "José", dirs[0])
	assert.NotEqual(t, "Jose\u0301", dirs[1])
	assert.Equal(t, []string{"bob-2", "Bob", "bob-3"}, dirs[2:])
	seen := map[string]bool{}
	for _, d := range dirs {
		k := report.Lookalike(d)
		assert.False(t, seen[k], "%q", d)
		seen[k] = true
	}
}

// TestStudentDirsKeepEveryFreeName: a numbered directory never takes the
// name of another student's own (a red team's swap): "dana", numbered
// after "Dana", skips dana-2, which an honest student handed in.
func TestStudentDirsKeepEveryFreeName(t *testing.T) {
	assert.Equal(t, []string{"Dana", "dana-3", "dana-2"}, report.StudentDirs([]string{"Dana", "dana", "dana-2"}))
	assert.Equal(t, []string{"a-2", "a", "A-3", "a-4"}, report.StudentDirs([]string{"a-2", "a", "A", "a"}))
}

// TestFileNameFitsAFileSystem: a name whose file name would pass 255 bytes
// (120 colons are 360 escaped; a red team's made a class's Gradescope
// directory impossible to write) is cut to maxFileName bytes, never inside
// an escape or a character, and ends with a hash of the name: two long
// names that share their start still get two file names, and a short one
// is unchanged.
func TestFileNameFitsAFileSystem(t *testing.T) {
	long := []string{strings.Repeat(":", 120), strings.Repeat(":", 121), strings.Repeat("é", 300), strings.Repeat("a", 199) + strings.Repeat(":", 50)}
	seen := map[string]bool{}
	for _, name := range long {
		f := report.FileName(name)
		assert.LessOrEqual(t, len(f), 200, "%q", name)
		assert.True(t, utf8.ValidString(f), "%q", f)
		assert.Regexp(t, `^([^%]|%[0-9A-F]{2})*%~[0-9a-f]{16}$`, f)
		assert.False(t, seen[f], "%q: a file name given twice", f)
		seen[f] = true
		dir := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(dir, f), 0o755), "%q", f)
	}
	assert.Equal(t, strings.Repeat("a", 200), report.FileName(strings.Repeat("a", 200)))
}

// TestStudentDirsOfCutNames: a name that spells another's cut file name
// cannot take its directory (a thirteenth red team's folder named as a
// classmate's cut name took it, and the classmate's results went to
// "-2"): no name FileName keeps whole has a cut name's "%~".
func TestStudentDirsOfCutNames(t *testing.T) {
	long := strings.Repeat("x", 300)
	cut := report.FileName(long)
	spelled := strings.Replace(cut, "%~", "-", 1)
	dirs := report.StudentDirs([]string{spelled, long, cut})
	assert.Equal(t, cut, dirs[1], "the long name's own directory")
	assert.NotEqual(t, cut, dirs[0])
	assert.NotEqual(t, cut, dirs[2], "a name spelling the cut form with %~ is escaped, not taken for it")
}

// TestStudentDirsAreLinear: many clashes of one name are numbered in one
// pass (a thirteenth red team's 12,000 case variants cost 185 s before):
// 20,000 names take a tenth of a second here; numbered as before, they
// ran past a 30 s timeout.
func TestStudentDirsAreLinear(t *testing.T) {
	var names []string
	for i := range 20000 {
		var b strings.Builder
		for j, c := range "abcdefghijklmn" {
			if i>>j&1 == 1 {
				c -= 'a' - 'A'
			}
			b.WriteRune(c)
		}
		names = append(names, b.String())
	}
	start := time.Now()
	dirs := report.StudentDirs(names)
	took := time.Since(start)
	seen := map[string]bool{}
	for _, d := range dirs {
		require.False(t, seen[strings.ToLower(d)], "%q given twice", d)
		seen[strings.ToLower(d)] = true
	}
	t.Logf("%d names, %d distinct only in case: %s", len(names), 1<<14, took)
}

// FuzzNames: any name is shown on one line, cleaning twice changes
// nothing, its Lookalike and FileName are made, and each is linear in the
// name's length (at most 10 bytes of output per byte of input: an escape).
func FuzzNames(f *testing.F) {
	for _, seed := range []string{"Dana", "dana", "José", "Jose\u0301", "bob\u202e", strings.Repeat(" ", 10000), strings.Repeat("rn", 5000),
		"\x1b[2K\rgraded", strings.Repeat("a  ", 3000), "CON", "\xff\xfe"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, name string) {
		shown := report.Name(name)
		if strings.ContainsAny(shown, "\n\r") {
			t.Fatalf("%q shows on more than one line: %q", name, shown)
		}
		if report.Name(shown) != shown {
			t.Fatalf("cleaning %q twice changed it", name)
		}
		key, file := report.Lookalike(shown), report.FileName(shown)
		for what, out := range map[string]string{"Name": shown, "Lookalike": key, "FileName": file} {
			if len(out) > 10*len(name)+16 {
				t.Fatalf("%s of a name of %d bytes is %d bytes", what, len(name), len(out))
			}
		}
		if strings.ContainsAny(file, `/\`) {
			t.Fatalf("FileName(%q) = %q is more than one path element", shown, file)
		}
	})
}

// FuzzPrinted: any message is shown as one line, what the program
// printed quoted, within a bounded length.
func FuzzPrinted(f *testing.F) {
	for _, seed := range []string{"crashed: panic: boom", "failed in 2 of 5 runs: crashed: crashed: crashed: crashed: crashed: x",
		"did not finish within 30s: x was still running: stuck in a loop, or deadlocked? printed “tick”", strings.Repeat("crashed: ", 10000),
		"data race: x", "kata: grade: all tests passed"} {
		f.Add(seed, true)
	}
	f.Fuzz(func(t *testing.T, msg string, compiled bool) {
		out := report.Printed(msg, compiled)
		if strings.Contains(out, "\n") {
			t.Fatalf("Printed(%q) is more than one line: %q", msg, out)
		}
		if utf8.RuneCountInString(out) > 2000 {
			t.Fatalf("Printed of %d bytes is %d characters", len(msg), utf8.RuneCountInString(out))
		}
	})
}
