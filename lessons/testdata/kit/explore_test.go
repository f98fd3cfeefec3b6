//go:build kata_interleave

package sched

// A bounded exhaustive explorer for the hidden tests: where kitInterleave
// runs the orders PCT picks by seed, kitExplore runs EVERY order of a few
// small threads, one atomic operation at a time, up to a bound on the
// preemptions (iterative context bounding, as Microsoft's CHESS does:
// Musuvathi and Qadeer, "Iterative context bounding for systematic
// testing of multithreaded programs", PLDI 2007). Most concurrency bugs
// need only one or two preemptions, and the schedules with at most b
// preemptions of n threads taking k steps number about (n·k)^b, not
// the (n·k)! of all of them.
//
// How: a schedule is the list of the thread chosen at each scheduling
// point. An execution is forced along a prefix of choices, then goes on
// without preempting (the thread that runs keeps running until it ends);
// each step past the prefix where another thread could have gone is a new
// prefix to run (depth-first by re-running from the start). Every
// execution starts from a fresh state built by the same setup, so the
// schedule alone decides what happens. Schedules are run in order of
// their preemptions (0, then 1, then 2...), so the first failure found is
// one of the simplest, and the shortest of those is reported.
//
// At every step, with every thread paused between two operations, an
// invariant is checked; at the end, a key for the final state is collected:
// comparing the sets of keys of two implementations from the same start
// (a learner's and the reference's) shows a final state only one reaches.
//
// No partial-order reduction: the lessons' scenarios take 19 to 300
// executions each (measured), and telling which operations commute (two
// loads, or operations on different fields) needs each operation's field,
// which the hook (setInterleaveHook's func()) is not given. The story of a
// failing schedule names the operations from the call stack instead
// (kitOpLabel), which is too slow for every step.

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"
)

// kitThread is one thread of an explored run: a name in the learner's words
// ("the thief") and its body.
type kitThread struct {
	name string
	fn   func()
}

// kitStart is one execution's start state, built fresh by a scenario's setup:
// its threads, an invariant checked at every step (nil: none; it must read
// the state with the scheduling points' operations only, and returns what is
// wrong or ""; it may take a mutex nobody holds, never wait for one a paused
// thread holds: that thread cannot run until the invariant returns), and the
// final state's key and problem, read once all threads have ended.
type kitStart struct {
	threads []kitThread
	check   func() string
	final   func() (key, problem string)
	// slotRuns: a run of one thread's operations of ring slots is one
	// step (see kitExec.point), for a start whose full rings would make a
	// step of each of hundreds of slot operations. A state that lasts
	// only inside such a run (two slots swapped through Load and Store) is
	// then seen by no other thread: a twentieth red team hid a torn
	// shuffle there. Off, every slot operation is a step.
	slotRuns bool
}

// kitExploreResult is what an exploration found.
type kitExploreResult struct {
	runs   int             // executions run
	finals map[string]bool // the keys of the final states reached
	fail   string          // the shortest failure, as a story, or ""
	capped bool            // max executions reached before the bound was covered
}

// kitStep is one decision of an execution: the thread chosen, the threads
// that could have been, the one that ran before, whether that one was
// switched out for spinning (a yield, which costs no preemption), and the
// preemptions made before it.
type kitStep struct {
	chose, prev int
	enabled     []bool
	yield       bool
	preempts    int
}

// kitExplore runs every schedule of setup's threads with at most bound
// preemptions (and at most maxRuns executions, 0: no cap), checking each.
func kitExplore(bound, maxRuns int, setup func() kitStart) kitExploreResult {
	res := kitExploreResult{finals: map[string]bool{}}
	pool := kitNewPool()
	defer pool.close()
	layers := make([][][]int, bound+1)
	layers[0] = [][]int{nil}
	type failure struct {
		prefix []int
		msg    string
		length int
	}
	var best *failure
	for k := 0; k <= bound && best == nil; k++ {
		for i := 0; i < len(layers[k]); i++ {
			if maxRuns > 0 && res.runs >= maxRuns {
				res.capped = true
				break
			}
			prefix := layers[k][i]
			e := pool.run(setup(), prefix, false)
			res.runs++
			if pool.broken {
				res.fail = e.problem
				return res
			}
			if res.runs == 1 && len(e.trace) <= e.n+1 && e.problem == "" {
				// Decisions only at the start and at each end, and no
				// thread went wrong before its first operation (a stub
				// that panics "not implemented" does): no point reached
				// the controller, so nothing was explored.
				res.fail = "the explorer saw none of the threads' atomic operations (a bug of the test kit, not of your code: kitSelf did not tell its workers apart; please report it)"
				return res
			}
			if e.problem == "" {
				res.finals[e.key] = true
			} else if best == nil || len(e.trace) < best.length {
				best = &failure{prefix: e.choices(), msg: e.problem, length: len(e.trace)}
			}
			for _, alt := range e.alternatives(len(prefix), bound) {
				layers[alt.preempts] = append(layers[alt.preempts], alt.prefix)
			}
		}
	}
	if best != nil {
		res.fail = best.msg
		e := pool.run(setup(), best.prefix, true)
		if !pool.broken {
			res.fail += "\n" + e.story()
		}
	}
	return res
}

// kitAlt is a schedule still to run: a prefix of choices and its preemptions.
type kitAlt struct {
	prefix   []int
	preempts int
}

// alternatives returns the schedules that differ from e's first at a step
// past its forced prefix, within bound preemptions.
func (e *kitExec) alternatives(from, bound int) []kitAlt {
	var alts []kitAlt
	choices := e.choices()
	for i := from; i < len(e.trace); i++ {
		st := e.trace[i]
		for t, ok := range st.enabled {
			if !ok || t == st.chose {
				continue
			}
			cost := 0
			if st.prev >= 0 && st.enabled[st.prev] && t != st.prev && !st.yield {
				cost = 1
			}
			if st.preempts+cost > bound {
				continue
			}
			prefix := append(append([]int(nil), choices[:i]...), t)
			alts = append(alts, kitAlt{prefix, st.preempts + cost})
		}
	}
	return alts
}

// kitExec is the controller of one execution.
type kitExec struct {
	mu       sync.Mutex
	workers  []*kitExWorker
	n        int // threads of this run
	names    []string
	done     []bool
	run      []int // steps in a row of each thread without a switch
	slotRuns bool  // kitStart.slotRuns
	slotRun  []int // each thread's operations of ring slots in a row, without a switch (see point)
	inRuns   int   // the operations inside such runs that were no step
	prefix   []int
	trace    []kitStep
	cur      int // the thread running, -1 before the first
	check    func() string
	problem  string
	quiet    bool // the invariant is being read: points pass through
	end      chan struct{}

	waits    []*mutex   // the lock each thread waits for, or nil
	waitAt   []kitWhere // where, for a deadlock's message
	deadlock bool       // every thread left waits: each ends (kitDeadlock) when it runs

	labels  bool     // name each operation (for the story)
	pending []string // each thread's operation it is paused before
	ops     []string // the story: each operation in the order made
}

// kitSpinLimit is how many points in a row a thread makes before it is
// switched out as spinning (waiting for another thread: only a switch lets
// it progress); kitSlotRunLimit the same for the operations of a run of
// ring slots (more than any right code makes: a drain reads 256 slots, a
// steal copies 128 with two operations each, a shuffle swaps), which are
// one point; kitStepLimit ends an execution that never ends.
const (
	kitSpinLimit    = 200
	kitSlotRunLimit = 1024
	kitStepLimit    = 20000
)

// spins reports whether thread t has run so long without a switch that it
// must be waiting for another thread.
func (e *kitExec) spins(t int) bool {
	return e.run[t] >= kitSpinLimit || e.slotRun[t] >= kitSlotRunLimit
}

func (e *kitExec) choices() []int {
	c := make([]int, len(e.trace))
	for i, st := range e.trace {
		c[i] = st.chose
	}
	return c
}

// decide records a step, before an operation of a ring's slot if slot is
// set, and returns the thread to run next (-1: none left); e.mu is held
// and no thread runs.
func (e *kitExec) decide(slot bool) int {
	i := len(e.trace)
	if e.problem == "" && e.check != nil && i > 0 {
		e.quiet = true
		e.problem = e.check()
		e.quiet = false
	}
	st := kitStep{prev: e.cur, chose: -1, enabled: make([]bool, e.n)}
	if i > 0 {
		last := e.trace[i-1]
		st.preempts = last.preempts
		if last.prev >= 0 && last.enabled[last.prev] && last.chose != last.prev && !last.yield {
			st.preempts++
		}
	}
	any, waiting := false, -1
	for t := range e.n {
		st.enabled[t] = !e.done[t] && e.waits[t] == nil
		any = any || st.enabled[t]
		if !e.done[t] && e.waits[t] != nil {
			waiting = t
		}
	}
	switch {
	case !any && waiting < 0:
		return -1
	case !any:
		// Every thread left waits for a lock: a deadlock. Each is run
		// once more, to end.
		e.fail(kitDeadlockMsg(e.names, e.waitAt, e.done))
		e.deadlock = true
		st.chose = waiting
		if e.labels {
			e.pending[waiting] = "still waits for the lock, for ever"
		}
	case i < len(e.prefix) && st.enabled[e.prefix[i]]:
		st.chose = e.prefix[i]
	case i < len(e.prefix):
		e.fail(fmt.Sprintf("the schedule could not be replayed: %s had ended, or waited for a lock, at step %d where it ran before; does the code depend on something other than the atomics (time, randomness)?", e.names[e.prefix[i]], i))
		st.chose = e.nextAfter(e.cur)
	case e.cur >= 0 && st.enabled[e.cur] && !e.spins(e.cur):
		st.chose = e.cur
	default:
		st.chose = e.nextAfter(e.cur)
	}
	st.yield = e.cur >= 0 && st.enabled[e.cur] && e.spins(e.cur)
	if i+e.inRuns >= kitStepLimit {
		e.fail(fmt.Sprintf("the threads made %d atomic operations and had not ended: one loops waiting for something that never comes", i+e.inRuns))
	}
	e.trace = append(e.trace, st)
	if st.chose == e.cur {
		e.run[e.cur]++
		e.slotRun[e.cur] = 0
		if slot {
			e.slotRun[e.cur] = 1
		}
	} else if e.cur >= 0 {
		e.run[e.cur], e.slotRun[e.cur] = 0, 0
	}
	if e.labels && e.pending[st.chose] != "" {
		e.ops = append(e.ops, fmt.Sprintf("%s: %s", e.names[st.chose], e.pending[st.chose]))
		e.pending[st.chose] = ""
	}
	e.cur = st.chose
	return st.chose
}

// nextAfter returns the first thread after t (round robin) not ended and
// not waiting for a lock (there is one: decide checked).
func (e *kitExec) nextAfter(t int) int {
	for d := 1; d <= e.n; d++ {
		if u := (t + d + e.n) % e.n; !e.done[u] && e.waits[u] == nil {
			return u
		}
	}
	return -1
}

func (e *kitExec) fail(msg string) {
	if e.problem == "" {
		e.problem = msg
	}
}

// point is a scheduling point of thread t: before one of its operations,
// an operation of a ring's slot if slot is set.
func (e *kitExec) point(t int, slot bool) {
	if e.quiet { // only the thread that holds the turn reads or sets it
		return
	}
	var label string
	if e.labels {
		label = kitOpLabel()
	}
	e.mu.Lock()
	if slot && e.slotRuns && e.slotRun[t] > 0 && e.slotRun[t] < kitSlotRunLimit && e.problem == "" {
		// An operation of a ring's slot right after another of t's, with
		// no switch between (atomicRingSlot): a steal copies up to 128
		// slots, and a switch inside the copy would show the others
		// nothing a switch before it or after it does not, while it would
		// multiply the schedules by the copy's length. It is no step, but
		// counts toward the run's limit (a loop over slots is switched
		// out as spinning) and the operations' limit.
		e.slotRun[t]++
		e.inRuns++
		e.mu.Unlock()
		return
	}
	if e.labels {
		e.pending[t] = label
	}
	next := e.decide(slot)
	e.mu.Unlock()
	if next == t {
		return
	}
	e.workers[next].turn <- struct{}{}
	<-e.workers[t].turn
}

// lockWait is thread t's Lock of l, which found it held: t waits, not
// enabled, while the others run, until l is released and its turn comes
// again. A switch away from it costs no preemption (it cannot go on).
func (e *kitExec) lockWait(t int, l *mutex) {
	at := kitCallers()
	e.mu.Lock()
	e.waits[t], e.waitAt[t] = l, at
	if e.labels {
		e.pending[t] = "gets the lock it waited for, " + at.String()
	}
	next := e.decide(false)
	e.mu.Unlock()
	if next != t {
		e.workers[next].turn <- struct{}{}
		<-e.workers[t].turn
	}
	e.mu.Lock()
	deadlock := e.deadlock
	e.mu.Unlock()
	if deadlock {
		panic(kitDeadlock{})
	}
}

// lockReleased lets the threads waiting for l go on. The invariant (read
// with e.mu held, quiet) may lock and unlock a mutex nobody holds: nobody
// waits for it then.
func (e *kitExec) lockReleased(l *mutex) {
	if e.quiet {
		return
	}
	e.mu.Lock()
	for t, w := range e.waits {
		if w == l {
			e.waits[t] = nil
		}
	}
	e.mu.Unlock()
}

// exit ends thread t and hands the turn on.
func (e *kitExec) exit(t int) {
	e.mu.Lock()
	e.done[t] = true
	next := e.decide(false)
	e.mu.Unlock()
	if next < 0 {
		close(e.end)
		return
	}
	e.workers[next].turn <- struct{}{}
}

// story tells the schedule, one line per run of operations of a thread.
func (e *kitExec) story() string {
	var b strings.Builder
	b.WriteString("the shortest failing order of operations (each runs when its thread's turn comes):")
	last := ""
	for _, op := range e.ops {
		who, what, _ := strings.Cut(op, ": ")
		if who != last {
			fmt.Fprintf(&b, "\n  %s:", who)
			last = who
		} else {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s", what)
	}
	return b.String()
}

// kitOpLabel names the operation a scheduling point comes before, from
// the call stack: the atomic's method, the field it is on as the caller's
// source line spells it, and the caller ("pp.runqhead.Load() in runqgrab,
// runq.go:185"). Only used to tell a failing schedule.
func kitOpLabel() string {
	pcs := make([]uintptr, 16)
	return kitWhere(pcs[:runtime.Callers(3, pcs)]).String()
}

// kitWhere is the call stack of a thread at an operation, kept to be named
// (String) only if a failure's message needs it: waiting for a lock is
// frequent, a deadlock rare.
type kitWhere []uintptr

// kitCallers returns its caller's caller's stack (from its caller's
// caller on).
func kitCallers() kitWhere {
	pcs := make([]uintptr, 16)
	return pcs[:runtime.Callers(3, pcs)]
}

// String names the operation as kitOpLabel does.
func (w kitWhere) String() string {
	frames := runtime.CallersFrames(w)
	method := ""
	for {
		f, more := frames.Next()
		if strings.Contains(f.Function, ".(*atomic") || strings.Contains(f.Function, ".(*mutex)") {
			method = f.Function[strings.LastIndex(f.Function, ".")+1:]
		} else if method != "" {
			if strings.HasSuffix(f.Function, ".kitAtomically") {
				caller, _ := frames.Next()
				if label, ok := kitAtomicLabels.Load(fmt.Sprintf("%s:%d", caller.File, caller.Line)); ok {
					return label.(string)
				}
			}
			fn := f.Function[strings.LastIndex(f.Function, ".")+1:]
			file := f.File[strings.LastIndex(f.File, "/")+1:]
			return fmt.Sprintf("%s in %s (%s:%d)", kitSourceCall(f.File, f.Line, method), fn, file, f.Line)
		}
		if !more {
			return "an atomic operation"
		}
	}
}

var kitSources sync.Map // file name -> []string of its lines

// kitAtomically is one step of an explored thread that does all of f at
// once, as if f were one atomic operation: a scheduling point named label,
// then f on a goroutine the explorer does not control (kitThreads knows
// only its threads), while the thread waits; f's panic is the thread's.
// A thread of whole operations explores the orders of another thread's
// steps among them, with few schedules: what a third thread asks while
// two others change the state (lesson 02's runqempty), the steps of those
// two being explored elsewhere.
func kitAtomically(label string, f func()) {
	_, file, line, _ := runtime.Caller(1)
	kitAtomicLabels.Store(fmt.Sprintf("%s:%d", file, line), label)
	kitAtomicStep.Load()
	done := make(chan any)
	go func() {
		defer func() { done <- recover() }()
		f()
	}()
	if p := <-done; p != nil {
		panic(p)
	}
}

// kitAtomicLabels names kitAtomically's steps by their call's file:line;
// kitAtomicStep is the atomic each of them loads to be a scheduling point.
var (
	kitAtomicLabels sync.Map
	kitAtomicStep   atomicUint32
)

// kitSourceCall returns the call of method on line of file as written
// there ("pp.runqhead.CompareAndSwap(h, h+n)"), or ".method()" if the
// source cannot be read or its line does not make that call.
func kitSourceCall(file string, line int, method string) string {
	v, ok := kitSources.Load(file)
	if !ok {
		// A file graded in place of the reference's is compiled under the
		// reference's path (go test -overlay), where the file on disk is
		// the reference's: kata gives its source in kataGradedSources
		// (its zz_kata_sources_test.go).
		src, graded := kataGradedSources[filepath.Base(file)]
		if !graded {
			b, _ := os.ReadFile(file)
			src = string(b)
		}
		v, _ = kitSources.LoadOrStore(file, strings.Split(src, "\n"))
	}
	lines := v.([]string)
	if line < 1 || line > len(lines) {
		return "." + method + "()"
	}
	src := lines[line-1]
	i := strings.Index(src, "."+method+"(")
	if i < 0 {
		// Not the file compiled (a file kata did not give in kitGraded):
		// quote nothing rather than another line.
		return "." + method + "()"
	}
	start := i
	for start > 0 && strings.ContainsRune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.[]", rune(src[start-1])) {
		start--
	}
	end, depth := i+len(method)+1, 0
	for ; end < len(src); end++ {
		if src[end] == '(' {
			depth++
		} else if src[end] == ')' {
			if depth--; depth == 0 {
				end++
				break
			}
		}
	}
	return src[start:end]
}

// kitExWorker is a controlled thread of the explorer: a goroutine that
// lives for a whole exploration and runs one thread's body per execution.
type kitExWorker struct {
	idx  int
	turn chan struct{}
	jobs chan kitJob
	exec *kitExec // the execution under way; set by the worker
	pool *kitPool
}

type kitJob struct {
	e  *kitExec
	fn func()
}

func (w *kitExWorker) atPoint()              { w.exec.point(w.idx, false) }
func (w *kitExWorker) atSlotPoint()          { w.exec.point(w.idx, true) }
func (w *kitExWorker) lockWait(l *mutex)     { w.exec.lockWait(w.idx, l) }
func (w *kitExWorker) lockReleased(l *mutex) { w.exec.lockReleased(l) }

// kitPool holds the explorer's workers, made as a run needs them.
type kitPool struct {
	workers []*kitExWorker
	wg      sync.WaitGroup
	broken  bool // an execution never ended: its workers are stuck
}

func kitNewPool() *kitPool {
	kitRunStarts()
	return &kitPool{}
}

func (pl *kitPool) close() {
	if pl.broken {
		kitRunEnds()
		return
	}
	for _, w := range pl.workers {
		close(w.jobs)
	}
	pl.wg.Wait()
	kitRunEnds()
}

func (pl *kitPool) grow(n int) {
	var more []*kitExWorker
	for i := len(pl.workers); i < n; i++ {
		more = append(more, &kitExWorker{idx: i, turn: make(chan struct{}, 1), jobs: make(chan kitJob), pool: pl})
	}
	if len(more) == 0 {
		return
	}
	for _, w := range more {
		pl.workers = append(pl.workers, w)
		pl.wg.Add(1)
		go w.loop()
	}
}

// loop runs the jobs sent to w until its pool closes.
func (w *kitExWorker) loop() {
	defer w.pool.wg.Done()
	defer kitRegister(w)()
	for job := range w.jobs {
		w.exec = job.e
		w.do(job)
	}
}

// do runs one thread's body when its turn first comes.
func (w *kitExWorker) do(job kitJob) {
	<-w.turn
	defer job.e.exit(w.idx)
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(kitDeadlock); ok {
				return // the deadlock is the failure
			}
			job.e.mu.Lock()
			job.e.fail(fmt.Sprintf("%s panicked: %v", job.e.names[w.idx], r))
			job.e.mu.Unlock()
		}
	}()
	job.fn()
}

// run executes r along prefix (then without preemptions) and returns the
// execution, its problem and final key set.
func (pl *kitPool) run(r kitStart, prefix []int, labels bool) *kitExecResult {
	n := len(r.threads)
	pl.grow(n)
	e := &kitExec{workers: pl.workers, n: n, done: make([]bool, n), run: make([]int, n), slotRun: make([]int, n), slotRuns: r.slotRuns,
		prefix: prefix, cur: -1, check: r.check, end: make(chan struct{}), labels: labels, pending: make([]string, n),
		waits: make([]*mutex, n), waitAt: make([]kitWhere, n)}
	for _, th := range r.threads {
		e.names = append(e.names, th.name)
	}
	for t, th := range r.threads {
		pl.workers[t].jobs <- kitJob{e, th.fn}
	}
	e.mu.Lock()
	first := e.decide(false)
	e.mu.Unlock()
	pl.workers[first].turn <- struct{}{}
	select {
	case <-e.end:
	case <-time.After(10 * time.Second):
		// The threads are stuck for good: the pool cannot be used again.
		pl.broken = true
		e.mu.Lock()
		defer e.mu.Unlock()
		e.fail("the threads did not finish in 10s: one is blocked on something other than an atomic operation (a lock another thread holds?), or loops forever")
		return &kitExecResult{kitExec: e}
	}
	res := &kitExecResult{kitExec: e}
	if e.problem == "" && r.final != nil {
		res.key, e.problem = r.final()
	}
	return res
}

// kitExecResult is an execution that has ended, with its final state's key.
type kitExecResult struct {
	*kitExec
	key string
}

// kitExploreOracle explores the learner's code (mine) with at most bound
// preemptions and fails it on any final state the reference's code (ref,
// the ref_ copies of the lesson's functions, on the same start) does not
// reach with at most refBound. A right file may take fewer operations than
// the reference to reach a state (a Swap for a Load and a CompareAndSwap),
// so refBound must be where the reference's set stops growing: measured on
// each lesson's scenarios (see the lesson's test), one preemption more
// adds no final state. It returns the failure, as kitExplore tells it, or
// "".
// kitOracleRuns bounds the schedules of the learner's code, as a multiple
// of the reference's (see kitExploreOracle).
const kitOracleRuns = 4

func kitExploreOracle(bound, refBound int, mine, ref func() kitStart, alsoRight ...func() kitStart) string {
	allowed := kitExplore(refBound, 0, ref)
	if allowed.fail != "" {
		return "the reference itself fails this test (a bug of the test, not yours; please report it): " + allowed.fail
	}
	// Where the contract leaves a freedom the reference does not take (a
	// drain that takes its ring one G at a time), alsoRight are the other
	// right answers, built from the reference's functions: the states they
	// end in are right too.
	for _, other := range alsoRight {
		more := kitExplore(refBound, 0, other)
		if more.fail != "" {
			return "another right answer fails this test (a bug of the test, not yours; please report it): " + more.fail
		}
		for key := range more.finals {
			allowed.finals[key] = true
		}
		allowed.runs += more.runs
	}
	// The learner's code is explored for at most kitOracleRuns times as
	// many schedules as the reference needed, and then passes what was
	// explored: a correct file that loads an atomic more often than the
	// reference (a slot read from a head loaded again) has more scheduling
	// points, and so more schedules, and must not run into its time limit
	// for that. The schedules come fewest preemptions first, so the cap
	// cuts only the most preempted ones of such a file.
	res := kitExplore(bound, kitOracleRuns*allowed.runs, func() kitStart {
		s := mine()
		final := s.final
		s.final = func() (string, string) {
			key, problem := final()
			if problem == "" && !allowed.finals[key] {
				problem = fmt.Sprintf("the threads ended in a state the reference never reaches from the same start: %s (the reference ends in one of: %s)", key, kitKeys(allowed.finals))
			}
			return key, problem
		}
		return s
	})
	return res.fail
}

// kitKeys lists a set of final states, sorted, one per line.
func kitKeys(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return "\n    " + strings.Join(keys, "\n    ")
}
