// Package vet refuses, before it is compiled, a lesson file that could
// reach past the functions the lesson asks for: into the process's
// environment and files, into the runtime, or into kata's test harness.
//
// A learner's file is compiled into the graded package, beside the hidden
// tests and the harness that records their verdicts (checker/harness.go).
// Its code runs in the test binary, and without rules it could read the
// harness's environment from an init function and write the report the
// harness writes, link to the runtime's variables, read /proc/self/environ,
// or set the harness's verdicts itself (it is the same package). The
// vetter takes the file apart with go/parser and go/types and refuses it,
// with the file, line and column of each problem and the rule it breaks,
// if it does any of the following.
//
//  1. Imports a package that is not on its lesson's allowlist: the
//     packages the reference's own file for the lesson imports, and Safe.
//     Some packages are never allowed, whatever the reference's file
//     imports: os, syscall, net, runtime, reflect, testing, plugin, embed,
//     io/fs, io/ioutil, log, path/filepath, go, debug, internal and vendor,
//     each with the packages under it, and "C" (cgo). unsafe is allowed only where the
//     reference's file imports it (lesson 06's park.go, whose signatures
//     take unsafe.Pointer), and never as a dot import.
//  2. Declares an init function (a method named init is fine).
//  3. Has a comment the compiler or the go command reads: //go: directives
//     (go:linkname, go:embed, go:build, ...), //line and /*line
//     directives, // +build constraints, //export and //extern.
//  4. Initialises a package-level variable with a call: the call would run
//     before any test. Conversions, built-ins (len, make, new, ...),
//     constants, composite literals and function literals that are not
//     called are fine. go/types tells a conversion from a call.
//  5. Uses a name that only kata's tests declare: the hidden tests, their
//     kit, a private test pack, the harness (kataVerdicts, TestMain). The
//     file is type-checked with the reference's other files, which do not
//     declare them, and a name that resolves to nothing and is one the
//     tests declare (or starts with kata) is refused; so is a method the
//     tests declare on a reference type, and a built-in a test declares
//     again (in the graded package the name is the test's); and an
//     interface method named as a method the tests declare (a type
//     assertion would call the test's: a red team called the hidden
//     tests' copies of the reference's functions that way).
//  6. Declares a name that starts with "kata" followed by anything but a
//     lower-case letter (kataVerdicts, kataTest_TestL01FIFO): those are
//     the harness's. Or declares at package level a name Go predeclares
//     (len, true, nil, error, ...): it would mean the file's own in the
//     whole graded package, and a len that returns 0 makes every
//     "len(problems) > 0" of a test false. (As a local, or a method, such
//     a name is fine.)
//  7. Uses anything of package unsafe but the type unsafe.Pointer, or
//     converts a value to or from unsafe.Pointer (a type parameter that
//     may be one included), whether or not it imports unsafe: such a
//     conversion reads and writes any memory, the harness's included.
//     Passing an unsafe.Pointer on, as gopark does, is fine.
//  8. Uses, of the reference package, a name its lesson's API does not
//     list (Config.API: lessons/NN-slug/api.txt). The API is what a
//     correct file of the lesson needs: every package-level name, field
//     and method the reference's own file for the lesson, the corpus's
//     alternates and its mutants use (generated, with
//     go test ./lessons/all -run TestAPI -update), and a reviewed section
//     a human keeps. The file's own declarations are always allowed. A
//     use is an identifier that refers to the name, an embedded field a
//     selector goes through to reach a promoted field or method, and each
//     field an unkeyed composite literal sets. Also refused, for the same
//     reason: a conversion between two struct types one of which has a
//     field outside the API (a struct type of the file's own with the
//     reference's fields converts to the reference's, and its field names
//     reach them all); a struct type of the file's with the field names
//     of one of the reference's that has a field outside the API, even
//     with no conversion in sight (a value of the reference's assigns to
//     it where one of the two is unnamed, and passes to a generic function
//     whose parameter it is, every field type inferred: a red team read a
//     G's sudog that way); a generic function or type instantiated with a
//     type of the reference's outside the API, written or inferred (it
//     would copy or zero a value of that type whole: a red team zeroed
//     schedt.cfg, of type config); a whole value of a struct type of the
//     reference's outside the API, copied, compared or assigned rather
//     than used in place (a field selected, its address taken: a red team
//     kept a scheduler's config to write it over another's); and an interface method of the file's named as a
//     method of the reference's outside the API (a type assertion would
//     call it). So a lesson file cannot touch the tests' controls
//     (interleaveHook: the red team stored nil in it, and the interleaving
//     tests ran threads one after another), nor the channel's sudogs, whose
//     elem reads and writes any memory.
//  9. Declares a method on a type it does not declare (a String method
//     on WaitingG made two printed values equal), unless the reference's
//     own file for the lesson declares that method on that type: a lesson
//     file declares a function instead.
//  10. Declares at package level a name kata's tests declare (any lesson's
//     hidden tests, their kit, the harness): the compiler would say only
//     that it is redeclared.
//  11. Converts one of the course's atomics or its lock (a type the
//     reference defines on a sync/atomic or sync type, such as
//     atomicUint32 and mutex) to another type, such as its sync/atomic
//     type or *sync.Mutex (RuleAtomic): in the hidden tests' build every
//     operation of the course's atomics is a scheduling point of their
//     controlled scheduler, and every Lock of the lock tells it who waits,
//     and an operation on the converted value would be one the scheduler
//     cannot see, so a race there would not be found. Nor may a value that
//     holds one (a P, a scheduler) be copied, compared or assigned whole:
//     plain reads and writes, no scheduling point (a red team's snap :=
//     pp.runqhead made a check-then-store look like a CAS).
//  12. Spells more than 1 MiB of data in all (RuleLarge): composite
//     literals (slices' by their highest index), constant strings where
//     they are spelled or used, and any value, type argument or array
//     type over 1 MiB by itself. The compiler writes a literal out whole,
//     into the grader's build cache, which no run's limit bounds.
//  13. Runs code on a goroutine or coroutine of its own (RuleGoroutine):
//     a go statement, or a use of time.AfterFunc, iter.Pull, iter.Pull2 or
//     sync.WaitGroup's Go, the only functions of the packages a lesson
//     file may import that start one (read from their sources at Go
//     1.26). The hidden tests' controlled scheduler runs the threads it
//     knows and lets any other goroutine's operations through: a sixth
//     red team did a lesson function's work on a goroutine of its own and
//     waited for it, so that each call was one indivisible step to the
//     interleaving tests, and a racy ring scored as a correct one. An
//     interface method named as a spawner method (Go) is refused too: an
//     assertion on a WaitGroup would call it.
//  14. Reads the clock (RuleClock): time.Now, Since, Until, Sleep, After,
//     Tick, NewTimer, NewTicker (and AfterFunc, by rule 13). In the hidden tests' build the
//     course's atomics are scheduling points, microseconds each where a
//     plain one is nanoseconds: a seventeenth red team timed one Load and
//     ran the reference's order only while the interleaving tests
//     watched (96 for a ring that earns 78). Where a lesson needs the
//     time it reads sched.cfg.nanotime, which the tests control.
//  15. Stores a func in a field of the reference's (RuleFuncField), or
//     takes the address of one, except where the reference's own file of
//     that name does (gopark's mp.waitunlockf): a closure kept in
//     sched.cfg.usleep carried state of a nineteenth red team's file from
//     call to call, a package-level variable by another name. Where the
//     reference's file does store one, the file may store there only what
//     it does: nil, a parameter of the function storing it (never
//     assigned there), a package-level function, or a func literal whose
//     only free variables are such parameters; a thirty-third red team's
//     gopark kept in mp.waitunlockf a closure with a counter of its own,
//     which ready read back to take its mistake only on an M that had
//     parked a sleeper before.
//  16. Gives fmt anything but numbers, strings and booleans (and slices,
//     arrays and maps of them), or keeps one of fmt's functions as a func
//     value (RuleFmtArgs). fmt prints any other value whole, by
//     reflection, fields the lesson does not list too: a twenty-first red
//     team's file printed &pp.sched.cfg (the P count, the seed, which
//     Usleep the tests installed) and so told a controlled run from a
//     real one. fmt is the one reader by reflection a lesson file may
//     import; an interface value is refused as it may hold anything.
//     Fprint's writer is not printed: a *strings.Builder or *bytes.Buffer
//     of the file's own may take the text; a type parameter is as plain
//     as every type its constraint allows; a struct whose fields the file
//     declares, each plain, holds only the file's data and passes (a
//     span{head, tail uint32} with a String method); and so does one of
//     the file's sentinel errors, wrapped with %w as Go code does.
//  17. Uses sync/atomic's functions (atomic.AddInt64(&gp.goid, 1)), or
//     writes with a sync/atomic method (Store, Add, And, Or, Swap,
//     CompareAndSwap) a field of the reference's that the lesson's API
//     does not list as written ("T.f.write"), or memory
//     the file cannot show it made itself (RulePlainAtomic). sync/atomic
//     is no scheduling point of the hidden tests: a twenty-second red
//     team's files met other threads there only on real CPUs, and so
//     told the controlled runs from real ones (plainatomic.go).
//
// The vetter fails closed: a file it cannot read whole is not let through.
//
//   - A lesson file larger than MaxFileSize (256 KiB) is refused unread
//     (RuleSize); Files and ReadFile read no more of it than that.
//   - A file go/parser cannot parse (RuleSyntax), or in which go/types
//     finds errors and no rule broken (RuleTypes), is unchecked
//     (Problem.Unchecked): it must not run. Its imports are vetted all the
//     same, if they parse. Almost always it does not compile either, and
//     the compiler says what is wrong in the words a learner knows, so
//     the checker compiles it (and runs nothing) to show that; if it does
//     compile, the compiler read what the vetter could not (go/parser
//     stops at a nesting depth of 100,000; the compiler does not), and
//     the checker refuses it with this problem.
//   - A Remote vets in a child process, within a deadline and a memory
//     limit: a file that makes the type checker exhaust either (types that
//     double at each level of nesting, through generic calls, aliases or
//     constants) is refused (RuleGaveUp), and costs the grader's own
//     process nothing. A Vetter, in the caller's process, has no bound:
//     use it only for files you trust.
//
// The safe imports, none of which reaches the environment, files, the
// network, other processes or memory outside Go's types:
//
//   - sync/atomic: lock-free code is the course's subject (lesson 01's
//     ring, lesson 05's counters).
//   - sync: a mutex or a sync.Once for a helper of the learner's own.
//   - fmt: messages for panics, as the reference's park.go builds them.
//     What it prints goes to the test binary's output, which grades
//     nothing (see the harness).
//   - errors: an error value for a panic.
//   - strconv, strings, bytes, unicode, unicode/utf8: building and
//     reading strings for messages (issue 19: a park.go that imported
//     strconv for a throw message scored 0). bytes and strings read and
//     write only the io.Readers and io.Writers they are given.
//   - math, math/bits: constants and bit tricks (masks, lengths) for
//     rings and counters.
//   - math/rand/v2: a learner's own shuffle or random victim; it draws
//     from the runtime's generator or a seeded source, and reaches
//     nothing else.
//   - slices, maps, sort, cmp, iter: searching, sorting and iterating the
//     learner's own collections.
//   - container/list, container/heap, container/ring: the learner's own
//     queues and heaps (a timer heap, a FIFO of Gs).
//   - time: durations; and a learner who reads the real clock where the
//     scheduler's injected one is meant makes a mistake the tests must
//     catch (lesson 04 has that mutant), not one the vetter should hide.
//     It reaches nothing of the harness.
//
// What the vetter does not do:
//
//   - Report ordinary mistakes. A file that does not parse or does not
//     type-check is unchecked, and the compiler, which refuses it too,
//     says what is wrong as it always has.
//   - Make untrusted code safe. It closes the ways to the harness named
//     above; it does not stop a file from spinning, allocating, printing,
//     deadlocking or crashing (the run's limits do), nor from tricks that
//     break memory safety without package unsafe, such as tearing an
//     interface value with a data race, nor from calling the reference's
//     own functions that convert unsafe.Pointer with a pointer of the
//     wrong kind. Grade code you do not trust in a sandbox (Appendix D of
//     the book).
//   - Stop a lesson file from calling, through an interface of the
//     standard library (fmt.Stringer, error, sync.Locker), a method of a
//     reference value it holds that its API does not list: fmt calls
//     String methods by itself. Such methods print or lock; none reaches
//     the tests' controls.
//   - Stop a lesson file from copying a whole value of a reference type it
//     may name (*gp = g{}): what it can copy it can already reach.
//   - See what a lesson file can reach at run time by a type assertion to
//     an interface: a method a test file declares on a reference type (no
//     hidden test declares one) could be called that way.
//   - Vet the code kata bench and kata trace run: they run the learner's
//     files for the learner, with no harness to fool.
//
// The vetter type-checks the standard packages a lesson file may import,
// and those the reference imports, from their sources but without their
// own dependencies or function bodies (package runtime is not loaded: no
// lesson file may import it, and the reference's declarations do not
// expose its types; New checks that). Loading takes a tenth of a second or
// two, once per Vetter (once per child of a Remote, which keeps its child
// for the next call); vetting a file about 20 ms.
package vet
