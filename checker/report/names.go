package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	uts39 "github.com/mtibben/confusables"
	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/runenames"
)

// Students' names come from file names they chose (a directory's, an
// archive's), so a student can choose one that reads as another's. Three
// functions keep names apart: Name shows a name so that nothing in it is
// invisible; Lookalike says which names a reader could still take for one
// another, so that package grade flags them for the instructor (a
// student's name is never changed: an honest "dana" renamed "dana-2"
// because of a "Dana" no longer matches her row in the roster); FileName
// makes a name a file name that no other student's can overwrite.

// Name cleans a name that must stay on one line (a student's, taken from a
// file name they chose) as Clean does, newline and tab escaped too (\n,
// \t), and so that nothing in it goes unseen: a leading or trailing space
// is written \x20, and a combining mark
// that follows no character shown as itself (one at the start, after a
// space or after an escape) as its escape (\u0301). Cleaning twice changes
// nothing.
//
// Name does not make names that look alike look different ("José"
// precomposed and decomposed, "Bob" and "bob", a Cyrillic "с" for a Latin
// "c"): two names may clean to the same text, or to texts a reader cannot
// tell apart. Lookalike finds them (package grade flags them as "looks
// like" in every report).
func Name(s string) string {
	return escape(s, false)
}

// Lookalike returns the form of name (as Name shows it) that two names a
// reader could take for one another share: compatibility forms replaced
// by what they stand for (Unicode NFKD: fullwidth "ｂｏｂ", mathematical
// letters, ligatures), accents and other combining marks dropped, letters
// of other scripts that look like Latin ones (Cyrillic "а", "с", "о",
// Greek "Α", "ο"...) taken for them, case folded, runs of spaces taken
// for one (HTML shows them so), and the ASCII look-alikes
// of common fonts merged (l, I, 1 and |; o and 0; "rn" and "m"; "vv" and
// "w"). It errs on the side of merging: two names that merely resemble
// each other share it too, and are then only flagged for a look.
//
// It starts from Unicode's own confusables (UTS #39's skeleton, whose
// table maps the look-alikes of every script, Lisu's and Coptic's
// included: a seventh red team's "ꓓana" and "bⲟb"), then adds what that
// table leaves out: case, the Latin letters whose names say which ASCII
// letter they are a form of (small capitals, dotless letters: not in
// UTS #39), and the merges above. It is a key, not a display.
func Lookalike(name string) string {
	var b strings.Builder
	for _, r := range norm.NFKD.String(uts39.Skeleton(name)) {
		if unicode.Is(unicode.M, r) || hiddenRune(r) {
			continue
		}
		r = unicode.ToLower(lookalikeRune(r))
		switch r {
		case 'i', '1', '|', 'ı':
			r = 'l'
		case '0':
			r = 'o'
		}
		b.WriteRune(r)
	}
	// Runs of spaces as one, in one pass.
	var key strings.Builder
	space := false
	for _, r := range b.String() {
		if r == ' ' && space {
			continue
		}
		space = r == ' '
		key.WriteRune(r)
	}
	return strings.NewReplacer("rn", "m", "vv", "w").Replace(key.String())
}

// lookalikeRune returns the Latin letter r passes for, or r: by the table
// of other scripts' letters (confusables), in either case (a Cherokee
// small letter is its capital's look-alike too: the table has only the
// capitals), and, for a Latin letter beyond ASCII, by its Unicode name:
// a small capital, a dotless or script form, or a letter with a hook,
// stroke or other mark the letter keeps ("LATIN LETTER SMALL CAPITAL N",
// "LATIN SMALL LETTER DOTLESS J"), a sixth red team's names.
func lookalikeRune(r rune) rune {
	for _, c := range [...]rune{r, unicode.ToUpper(r), unicode.ToLower(r)} {
		if l, ok := confusables[c]; ok {
			return l
		}
	}
	if r >= utf8.RuneSelf && unicode.Is(unicode.Latin, r) {
		if l, ok := latinBase(runenames.Name(r)); ok {
			return l
		}
	}
	return r
}

// latinBase reads the ASCII letter a Latin letter's Unicode name says it
// is a form of: "LATIN [SMALL |CAPITAL ]LETTER [SMALL CAPITAL |DOTLESS |
// SCRIPT ]X[ WITH ...]". Other forms (turned, reversed, open, long...)
// look like other letters, or like none.
func latinBase(name string) (rune, bool) {
	rest, ok := strings.CutPrefix(name, "LATIN ")
	if !ok {
		return 0, false
	}
	for _, p := range []string{"SMALL ", "CAPITAL "} {
		rest = strings.TrimPrefix(rest, p)
	}
	if rest, ok = strings.CutPrefix(rest, "LETTER "); !ok {
		return 0, false
	}
	for _, p := range []string{"SMALL CAPITAL ", "DOTLESS ", "SCRIPT "} {
		rest = strings.TrimPrefix(rest, p)
	}
	if len(rest) == 0 || rest[0] < 'A' || rest[0] > 'Z' || len(rest) > 1 && !strings.HasPrefix(rest[1:], " WITH ") {
		return 0, false
	}
	return rune(rest[0]) + 'a' - 'A', true
}

// confusables maps letters of Greek and Cyrillic (and a few others) to
// the Latin letters they look like, in the fonts reports are read in.
var confusables = map[rune]rune{
	// Greek.
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ζ': 'Z', 'Η': 'H', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O',
	'Ρ': 'P', 'Τ': 'T', 'Υ': 'Y', 'Χ': 'X', 'Ϲ': 'C', 'Ϳ': 'J',
	'α': 'a', 'β': 'b', 'γ': 'y', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p', 'σ': 'o', 'τ': 't',
	'υ': 'u', 'χ': 'x', 'ω': 'w', 'η': 'n', 'μ': 'u', 'ϲ': 'c', 'ϳ': 'j',
	// Cyrillic.
	'А': 'A', 'В': 'B', 'Е': 'E', 'З': '3', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C',
	'Т': 'T', 'У': 'Y', 'Х': 'X', 'Ѕ': 'S', 'І': 'I', 'Ј': 'J', 'Ԁ': 'D', 'Ԛ': 'Q', 'Ԝ': 'W', 'Ү': 'Y',
	'Һ': 'H', 'Ӏ': 'I', 'Ь': 'b',
	'а': 'a', 'в': 'b', 'е': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'п': 'n', 'р': 'p', 'с': 'c',
	'т': 't', 'у': 'y', 'х': 'x', 'ѕ': 's', 'і': 'i', 'ј': 'j', 'ԁ': 'd', 'ԛ': 'q', 'ԝ': 'w', 'ү': 'y',
	'һ': 'h', 'ӏ': 'l', 'г': 'r', 'ь': 'b', 'ѵ': 'v', 'ԍ': 'g',
	// Armenian, Cherokee and Latin letters that pass for others.
	'օ': 'o', 'ո': 'n', 'ս': 'u', 'հ': 'h', 'ց': 'g', 'ք': 'p',
	'Ꭺ': 'A', 'Ᏼ': 'B', 'Ꮯ': 'C', 'Ꭼ': 'E', 'Ꮋ': 'H', 'Ꭻ': 'J', 'Ꮶ': 'K', 'Ꮇ': 'M', 'Ꮲ': 'P', 'Ꭲ': 'T',
	'ɑ': 'a', 'ɡ': 'g', 'ɩ': 'i', 'ʀ': 'r', 'ᴄ': 'c', 'ᴏ': 'o', 'ᴠ': 'v', 'ᴡ': 'w', 'ᴢ': 'z', 'ꜱ': 's',
	'ĸ': 'k', 'ǀ': 'l', 'ǃ': '!',
}

// FileName returns name (as Name shows it) as a file name that means the
// same on every system kata runs on: one path element, which no system
// takes for another. Letters, digits and "-_.+@,=" of ASCII and every
// letter and digit beyond it are kept; anything else (a space, "/" and
// "\", ":" and the other characters Windows refuses, the backslash of an
// escape) becomes %XX per byte of its UTF-8, as does a "%" itself, a
// trailing "." and the first character of a name Windows reserves for a
// device (CON, NUL, COM1...). A result longer than maxFileName bytes is
// cut, and ends with a hash of the whole name instead. Two names give two
// file names; whether a file system tells them apart (case, Unicode
// normalization) is StudentDirs' business.
func FileName(name string) string {
	var b strings.Builder
	for i, r := range name {
		keep := r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.+@,=", r)) ||
			r >= utf8.RuneSelf && r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) && i > 0)
		if r == '.' && (i == 0 || i == len(name)-1) {
			keep = false // ".", "..", a hidden file, a name Windows cuts
		}
		if keep {
			b.WriteRune(r)
			continue
		}
		var buf [utf8.UTFMax]byte
		for _, c := range buf[:utf8.EncodeRune(buf[:], r)] {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	out := b.String()
	if out == "" {
		return "%00"
	}
	if len(out) > maxFileName {
		out = shortenFileName(out, name)
	}
	base, _, _ := strings.Cut(strings.ToUpper(out), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		return fmt.Sprintf("%%%02X", out[0]) + out[1:]
	}
	return out
}

// maxFileName bounds FileName's result, in bytes: file systems take 255
// (ext4 and APFS bytes, NTFS UTF-16 units), and StudentDirs may add a
// number. A name of 120 colons, 360 bytes escaped, made the directory of
// a whole class's results impossible to write.
const maxFileName = 200

// shortenFileName cuts file, name's FileName, to under maxFileName bytes, neither
// in a character nor in a %XX escape, and ends it with "%~" and a hash of
// name. No name FileName keeps whole has "%~" (its every "%" starts a %XX
// escape): a thirteenth red team's folder named exactly as a classmate's
// cut name (then "-" and the hash) took that classmate's Gradescope
// directory.
func shortenFileName(file, name string) string {
	sum := sha256.Sum256([]byte(name))
	cut := maxFileName - 2 - 16
	for cut > 0 && !utf8.RuneStart(file[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(file[cut-2:cut], '%'); i >= 0 {
		cut = cut - 2 + i
	}
	return file[:cut] + "%~" + hex.EncodeToString(sum[:8])
}

// StudentDirs returns a directory name for each of names (students' names
// as a Report holds them), for a report written as one file per student
// (Gradescope's DIR/STUDENT/results.json): FileName of each, and, should
// two of them be taken for one directory by a file system that ignores
// case or normalization (those of macOS and Windows do), the later one
// numbered (-2, -3...), so that no student's file is written over
// another's. Only the directory is numbered: the name in the report, and
// in the results.json, stays the student's. Every student whose own name
// is free keeps it, even when it looks like another's numbered one: with
// "Dana", "dana" and "dana-2" handed in, "dana" gets dana-3, not the
// real dana-2's directory (a red team's row swap).
//
// The numbers go on from the last one a base name was given, so numbering
// n clashes of one name is linear, not quadratic (a thirteenth red team's
// 12,000 case variants of one name cost kata 185 s of CPU).
func StudentDirs(names []string) []string {
	dirs := make([]string, len(names))
	taken := map[string]bool{}
	next := map[string]int{} // sameFile(base) → the next number to try
	var clash []int
	for i, name := range names {
		dir := FileName(Name(name))
		if taken[sameFile(dir)] {
			clash = append(clash, i)
			continue
		}
		taken[sameFile(dir)] = true
		dirs[i] = dir
	}
	for _, i := range clash {
		base := FileName(Name(names[i]))
		key := sameFile(base)
		n := max(next[key], 2)
		dir := fmt.Sprintf("%s-%d", base, n)
		for taken[sameFile(dir)] {
			n++
			dir = fmt.Sprintf("%s-%d", base, n)
		}
		next[key] = n + 1
		taken[sameFile(dir)] = true
		dirs[i] = dir
	}
	return dirs
}

// sameFile is the form of a file name that file systems which ignore case
// and Unicode normalization share with every name they take for it.
func sameFile(name string) string {
	return strings.ToLower(strings.ToUpper(norm.NFD.String(name)))
}
