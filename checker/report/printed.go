package report

import (
	"regexp"
	"strings"
)

// What a failed test's message holds, and who wrote it.
//
// The checker makes a failed test's message out of what the test binary
// printed while the test ran (the hidden test's own t.Error lines and
// whatever the code under test printed, which no one can tell apart: the
// code can print a line shaped like any other), the panic the runtime
// printed, and words of kata's own around them: "crashed: ", "did not
// finish within 30s: ...", "failed in 2 of 5 runs: ". A student who
// controls what the code prints would otherwise write the one-line reason
// of the report word for word ("kata: grade: all tests passed; ignore the
// failures below").
//
// So a reason, as every format shows it, keeps kata's words as they are
// and shows what the program printed quoted, after the word "printed":
//
//	printed “runqget returned G3, want G1”
//	crashed: printed “panic: boom on an M”
//	did not finish within 30s: runqgethead (runq.go:132) was still running: stuck in a loop, or deadlocked? printed “tick”
//
// Inside the quotes, “ and ” are written as their escapes (\u201c, \u201d),
// so the printed text cannot end the quotation early: the ” that closes
// it is kata's. Which words are kata's is known from where the message
// came from (compile errors and the vetter's refusals are kata's when the
// checker says the lesson was not compiled) and from the shapes of the
// checker's own messages, one of which a program can print as its first
// line: it then reads as kata's reason for a failure (that the test used
// too much memory, say), never as a pass.

// printedPrefixes start a message with words of kata's that are followed
// by something kata composed again (a crash's description, a run's
// message): what follows is shown as Printed shows a message.
var printedPrefixes = regexp.MustCompile(`^(?:` + strings.Join([]string{
	`failed in \d+ of \d+ runs: `,
	`failed in run \d+ of \d+ \(it passed the \d+ before\): `,
	`\d+ of \d+ tests failed; Test\w*: `,
}, "|") + `)`)

// crashPrefixes start a message with words of kata's followed by what the
// crashed binary printed, or by kata's own account of how it ended.
var crashPrefixes = regexp.MustCompile(`^(?:` + strings.Join([]string{
	`crashed: `,
	`the test binary stopped before running this test: `,
	`the test binary exited before its tests ended \(os\.Exit\? a crash\?\), so the passes it printed prove nothing: `,
	`did not finish within \S+:.*? stuck in a loop, or deadlocked\? ?`,
	`the test binary exited in the middle of this test \(os\.Exit\?\): `,
}, "|") + `)`)

// kataReasons are reasons of kata's that quote nothing a program printed.
var kataReasons = regexp.MustCompile(`^(?:` + strings.Join([]string{
	`used more than \d+ MiB of memory`,
	`printed more than \d+ MiB`,
	`printed more than the \d+ MiB a lesson's runs may print together \(its earlier runs had printed \d+ KiB of it\); stopped$`,
	`not run: `,
	`did not run$`,
	`failed$`,
	`skipped$`,
	`the code under test interfered with the test harness`,
	`building the tests took more than `,
	`the test binary ran past its time limit before any test started`,
	`the test binary exited before running any test`,
	`the test binary exited before its tests ended \(os\.Exit\? a crash\?\), so the passes it printed prove nothing$`,
	`the test binary exited in the middle of this test \(does your code call os\.Exit\?\)$`,
	`changed the grader's files while its tests ran`,
	`data race: `,
}, "|") + `)`)

// Printed returns msg's first line as a reason shows it: kata's words as
// they are, what the program printed quoted after "printed". compiled
// says whether the lesson compiled: only a lesson that did not has a
// reason of the compiler's or the vetter's ("does not compile: ...",
// "breaks a rule of lesson files: ..."), which are kata's.
func Printed(msg string, compiled bool) string {
	line := OneLine(msg)
	if !compiled && (strings.HasPrefix(line, "does not compile: ") || strings.HasPrefix(line, "breaks a rule of lesson files: ")) {
		return line
	}
	return OneLine(printed(line, 0))
}

func printed(line string, depth int) string {
	if line == "" {
		return ""
	}
	if depth < 4 {
		if m := printedPrefixes.FindString(line); m != "" {
			return m + printed(line[len(m):], depth+1)
		}
		if m := crashPrefixes.FindString(line); m != "" {
			rest := line[len(m):]
			if rest == "" {
				return strings.TrimSpace(m)
			}
			if crashPrefixes.MatchString(rest) || kataReasons.MatchString(rest) {
				return m + printed(rest, depth+1)
			}
			return m + quote(rest)
		}
	}
	if kataReasons.MatchString(line) {
		return line
	}
	return quote(line)
}

// quote shows text a program printed: after "printed", between “ and ”,
// with any “ or ” in it written as its escape.
func quote(text string) string {
	return "printed “" + strings.NewReplacer("“", `\u201c`, "”", `\u201d`).Replace(text) + "”"
}
