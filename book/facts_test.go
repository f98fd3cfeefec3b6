package book

import (
	"io/fs"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A fact is a claim of the book that issue #13 found wrong and that can be
// pinned: the sentence that makes it, and what the runtime's source must
// show for it to hold. The book may be reworded as long as the sentence's
// words (said) stay; the source check reads Go 1.26.8's runtime.
type fact struct {
	what  string
	file  string         // the chapter
	said  *regexp.Regexp // the claim, as the chapter makes it
	holds func(src string) bool
}

// inOrder reports whether every pattern matches src, each after the one
// before it.
func inOrder(src string, patterns ...string) bool {
	at := 0
	for _, p := range patterns {
		loc := regexp.MustCompile(p).FindStringIndex(src[at:])
		if loc == nil {
			return false
		}
		at += loc[1]
	}
	return true
}

// funcBody returns the source of the runtime function name, from its
// declaration to the next top-level declaration.
func funcBody(src, name string) string {
	i := strings.Index(src, "\nfunc "+name+"(")
	if i < 0 {
		return ""
	}
	rest := src[i+1:]
	if j := strings.Index(rest[1:], "\nfunc "); j >= 0 {
		return rest[:j+1]
	}
	return rest
}

var facts = []fact{
	{
		what: "Go 1.25 and 1.26's runqputbatch takes a *gQueue, and runqdrain returns one queue",
		file: "lessons/01-ringbuffer/chapter.md",
		said: regexp.MustCompile(`changed in Go 1\.25\.0, not 1\.26: 1\.26 keeps it`),
		holds: func(src string) bool {
			return strings.Contains(src, "\nfunc runqputbatch(pp *p, q *gQueue) {") &&
				strings.Contains(src, "\nfunc runqdrain(pp *p) (drainQ gQueue) {")
		},
	},
	{
		what: "the global queue's get is split in two: globrunqget takes one, globrunqgetbatch a batch",
		file: "lessons/03-globrunqget/chapter.md",
		said: regexp.MustCompile("Go 1\\.25\\.0 split it in two, and Go 1\\.26 keeps the split: `globrunqget\\(\\)` takes exactly one G"),
		holds: func(src string) bool {
			return strings.Contains(src, "\nfunc globrunqget() *g {") &&
				strings.Contains(src, "\nfunc globrunqgetbatch(n int32) (gp *g, q gQueue) {")
		},
	},
	{
		what: "with no timer and no poll waiter, the M blocks in netpoll with no deadline (delay -1)",
		file: "lessons/04-findrunnable/chapter.md",
		said: regexp.MustCompile(`or with no timer for as long as it takes`),
		holds: func(src string) bool {
			return inOrder(funcBody(src, "findRunnable"), `delay := int64\(-1\)`, `if pollUntil != 0 \{`, `delay = pollUntil - now`)
		},
	},
	{
		what: "any wake of sysmon's note resets its back-off, only a timeout does not",
		file: "lessons/07-sysmon/chapter.md",
		said: regexp.MustCompile(`Whoever\s+woke it, a woken sysmon resets its back-off`),
		holds: func(src string) bool {
			return inOrder(funcBody(src, "sysmon"), `syscallWake = notetsleep\(&sched\.sysmonnote, sleep\)`, `if syscallWake \{`, `idle = 0`)
		},
	},
	{
		what: "an expired time slice skips the first-sighting rule (sysretake)",
		file: "lessons/07-sysmon/chapter.md",
		said: regexp.MustCompile(`sysmon skips the first-sighting rule`),
		holds: func(src string) bool {
			return inOrder(funcBody(src, "retake"), `preemptone\(pp\)`, `sysretake = true`, `!sysretake && int64\(pd\.syscalltick\) != syst`)
		},
	},
	{
		what: "a spinner that gives up releases its P before it stops spinning",
		file: "lessons/05-spinning/chapter.md",
		said: regexp.MustCompile(`gives its P back, then stops spinning`),
		holds: func(src string) bool {
			return inOrder(funcBody(src, "findRunnable"), `if releasep\(\) != pp \{`, `wasSpinning := mp\.spinning`, `sched\.nmspinning\.Add\(-1\)`)
		},
	},
	{
		what: "_Gsyscall brackets every system call: entersyscall is the standard entry, entersyscallblock the known-blocking one",
		file: "book/src/model.md",
		said: regexp.MustCompile("`entersyscall` brackets every one, blocking or not"),
		holds: func(src string) bool {
			return strings.Contains(src, "// Standard syscall entry used by the go syscall library and normal cgo calls.") &&
				strings.Contains(src, "// The same as entersyscall(), but with a hint that the syscall is blocking.")
		},
	},
}

// TestBookFacts: each fact issue #13 corrected is still said by its chapter
// and still holds in the runtime's source.
func TestBookFacts(t *testing.T) {
	proc := strings.Join(readRuntime(t, "proc.go"), "\n")
	for _, f := range facts {
		data, err := fs.ReadFile(repo(), f.file)
		require.NoError(t, err)
		// A claim may be broken across lines in the Markdown.
		text := strings.Join(strings.Fields(string(data)), " ")
		said := regexp.MustCompile(strings.ReplaceAll(f.said.String(), `\s+`, ` `))
		if !said.MatchString(text) {
			t.Errorf("%s: no longer says %q (%s): reword the pattern with the chapter, or restore the fact", f.file, f.said, f.what)
		}
		if runtime.Version() != citedGoVersion {
			continue
		}
		if !f.holds(proc) {
			t.Errorf("%s: %s: the runtime's proc.go no longer shows it", f.file, f.what)
		}
	}
}
