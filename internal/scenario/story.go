package scenario

import (
	"errors"
	"fmt"
	"slices"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
)

// This file holds each scenario's story: what its Short line and the
// book's text around its picture say the run shows, as a check on the
// events of one run. A picture whose run does not bear out its caption is
// a broken promise, and runs on real threads differ: the tests run every
// story many times, and the book checks the run it draws.
//
// A claim that holds of every run of a correct scheduler, whatever the
// timing, is marked with must (verdict.go): `kata trace` fails a learner's
// run that breaks one. The others hold of nearly every run of the
// reference; a busy machine can keep an M off a core long enough to break
// one now and then.
//
// A story checks only what the text states of every run. Where the text
// says that timing decides ("if the thieves keep up..."), it checks
// nothing of that, and a scenario whose text needed such hedging for a
// point it exists to show was changed until the point held.

// A Window is a stretch of a run, in the events' clock (Event.When). The
// zero Window is the whole run.
type Window struct{ From, To int64 }

// IsZero reports whether w is the whole run.
func (w Window) IsZero() bool { return w == Window{} }

// Check returns what s.Story finds in r: the window of r that s's caption
// is about, or an error naming the first claim r does not bear out.
func (s Scenario) Check(r *Result) (Window, error) {
	if s.Story == nil {
		return Window{}, nil
	}
	w, err := s.Story(r)
	if err != nil {
		return Window{}, fmt.Errorf("scenario %s: %w", s.Name, err)
	}
	return w, nil
}

// Tries is how many runs RunStory makes at most: the book's pictures and
// the tests take the first run that bears out its story. On a quiet
// machine, or with one core of two busy, the first run nearly always does
// (TestStories says how often); the others are for a machine busier than
// that, whose OS keeps some Ms off a core for tens of milliseconds.
const Tries = 3

// RunStory runs s (as Run) until a run bears out its story, at most tries
// times, and returns that run and the window its caption is about. If no
// run does, it returns the last run, the zero Window and the story's
// error; if s could not run, a nil Result.
func RunStory(s Scenario, procs int, seed uint64, tries int) (*Result, Window, error) {
	for try := 1; ; try++ {
		r, err := Run(s, procs, seed)
		if err != nil {
			return nil, Window{}, err
		}
		w, err := s.Check(r)
		if err == nil || try >= tries {
			return r, w, err
		}
	}
}

// facts are the events of a run sorted out for the stories.
type facts struct {
	r      *Result
	spans  []pspan // every stretch of a G running on a P, in order of end
	main   int64   // the G Runtime.Go started
	parent map[int64]int64
	t0, t1 int64
}

func factsOf(r *Result) (*facts, error) {
	f := &facts{r: r, spans: spans(r), parent: map[int64]int64{}}
	if len(r.Events) == 0 {
		return nil, errors.New("the run has no events")
	}
	f.t0, f.t1 = r.Events[0].When, r.Events[len(r.Events)-1].When
	for _, ev := range r.Events {
		if ev.Kind == sched.EvGoCreate {
			f.parent[ev.G] = ev.Arg
			if ev.Arg == 0 && f.main == 0 {
				f.main = ev.G
			}
		}
	}
	if f.main == 0 {
		return nil, errors.New("no G was started by Runtime.Go")
	}
	return f, nil
}

// firstStart returns the first EvGoStart of g.
func (f *facts) firstStart(g int64) (sched.Event, bool) {
	for _, ev := range f.r.Events {
		if ev.Kind == sched.EvGoStart && ev.G == g {
			return ev, true
		}
	}
	return sched.Event{}, false
}

// firstEvent returns the first event of kind.
func (f *facts) firstEvent(kind sched.EventKind) (sched.Event, bool) {
	for _, ev := range f.r.Events {
		if ev.Kind == kind {
			return ev, true
		}
	}
	return sched.Event{}, false
}

// startsOnP0 returns the first start of the G Runtime.Go started, which
// the book's text has on P0.
func (f *facts) startsOnP0() (sched.Event, error) {
	ev, ok := f.firstStart(f.main)
	switch {
	case !ok:
		return ev, fmt.Errorf("G%d never ran", f.main)
	case ev.P != 0:
		return ev, fmt.Errorf("G%d started on P%d; the text has it on P0", f.main, ev.P)
	}
	return ev, nil
}

// children returns the Gs that g created, in order.
func (f *facts) children(g int64) []int64 {
	var gs []int64
	for _, ev := range f.r.Events {
		if ev.Kind == sched.EvGoCreate && ev.Arg == g {
			gs = append(gs, ev.G)
		}
	}
	return gs
}

// globalIns returns the EvGlobalRunq events that put Gs on the global run
// queue.
func (f *facts) globalIns() []sched.Event {
	var evs []sched.Event
	for _, ev := range f.r.Events {
		if ev.Kind == sched.EvGlobalRunq && ev.N > 0 {
			evs = append(evs, ev)
		}
	}
	return evs
}

// onlyFirstOrPreemptedInGlobal checks the model's claim about a run with
// no overflow: the global run queue holds the first G, which Runtime.Go
// queued from outside any P, and Gs that yielded or were preempted.
func (f *facts) onlyFirstOrPreemptedInGlobal() error {
	yielded := map[int64]bool{f.main: true}
	for _, ev := range f.r.Events {
		switch ev.Kind {
		case sched.EvGoPreempt, sched.EvGoSched:
			yielded[ev.G] = true
		case sched.EvGlobalRunq:
			if ev.N > 1 {
				return fmt.Errorf("%d Gs went to the global run queue at once (a ring overflowed?); the text says only the first G and preempted ones go there", ev.N)
			}
			if ev.N == 1 && !yielded[ev.G] {
				return fmt.Errorf("G%d went to the global run queue without being preempted; the text says only the first G and preempted ones go there", ev.G)
			}
		}
	}
	return nil
}

// holding returns, after each event, how many Ms hold a P.
func (f *facts) holding() []int {
	n, out := 0, make([]int, len(f.r.Events))
	for i, ev := range f.r.Events {
		switch ev.Kind {
		case sched.EvProcStart:
			n++
		case sched.EvProcStop:
			n--
		}
		out[i] = n
	}
	return out
}

// imbalance: "the idle Ps steal half of its queue at a time"; the book:
// every lane fills with the work of one P, through steals; the global
// queue holds only the first G.
func imbalanceStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	// With 200 Gs, a 256-slot ring never overflows.
	if err := f.onlyFirstOrPreemptedInGlobal(); err != nil {
		return Window{}, must(err)
	}
	home, err := f.startsOnP0()
	if err != nil {
		return Window{}, err
	}
	for _, p := range Summarize(r).Procs {
		switch {
		case p.Runs == 0:
			return Window{}, fmt.Errorf("P%d never ran a G: the idle Ps did not all get work", p.P)
		case p.P != home.P && p.Steals == 0:
			return Window{}, fmt.Errorf("P%d ran Gs but never stole any: its work did not come from the spawner's queue", p.P)
		}
	}
	return Window{}, nil
}

// pingpong: "each send readies the other into runnext"; the book: the two
// Gs alternate on one P, each start inheriting the time slice, and the
// other P stays idle.
func pingpongStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	first, ok := f.firstStart(f.main)
	if !ok {
		return Window{}, fmt.Errorf("G%d never ran", f.main)
	}
	starts := 0
	for _, ev := range r.Events {
		if ev.Kind != sched.EvGoStart {
			continue
		}
		starts++
		switch {
		case ev.P != first.P:
			return Window{}, fmt.Errorf("G%d ran on P%d: the pair should stay on P%d, the other P idle", ev.G, ev.P, first.P)
		case ev != first && ev.Arg != 1:
			return Window{}, fmt.Errorf("G%d started without inheriting the time slice: it did not come from runnext", ev.G)
		}
	}
	if starts < 100 {
		return Window{}, fmt.Errorf("only %d runs: fifty round trips take at least 100", starts)
	}
	return Window{}, nil
}

// overflow: "its 256-slot ring overflows half at a time into the global
// queue, where idle Ps take batches"; the book: the global lane jumps by
// 129 at a time.
func overflowStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	overflows, batches := 0, 0
	for _, ev := range f.globalIns() {
		switch ev.N {
		case 1: // the first G, or a preempted one
		case 129:
			overflows++
		default:
			return Window{}, must(fmt.Errorf("%d Gs went to the global run queue at once; an overflow moves 129, half the ring and the G being pushed", ev.N))
		}
	}
	if _, err := f.startsOnP0(); err != nil {
		return Window{}, err
	}
	// globrunqgetbatch takes its Gs one by one under sched.lock: a batch
	// is two takes or more, each within a microsecond of the last, with
	// nothing put on the queue in between.
	run, last := 0, int64(0)
	for _, ev := range r.Events {
		if ev.Kind != sched.EvGlobalRunq {
			continue
		}
		switch {
		case ev.N < 0 && run > 0 && ev.When-last <= int64(time.Microsecond):
			run++
		case ev.N < 0:
			run = 1
		default:
			run = 0
		}
		last = ev.When
		if run == 2 {
			batches++
		}
	}
	switch {
	case overflows == 0:
		return Window{}, errors.New("the ring never overflowed into the global run queue")
	case batches == 0:
		return Window{}, errors.New("no P took a batch of Gs from the global run queue")
	}
	return Window{}, nil
}

// burst: "five bursts of 12 short tasks, 5ms apart: Ms wake and spin to
// find the work, then park when it runs out"; the book: between bursts
// every P is idle, and in some gap sysmon sleeps deeply; one or two Ms
// spin at a time.
func burstStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	kids := f.children(f.main)
	if len(kids) != 5*12 {
		return Window{}, must(fmt.Errorf("G%d created %d Gs, want 5 bursts of 12", f.main, len(kids)))
	}
	created, ended := map[int64]int64{}, map[int64]int64{}
	for _, ev := range r.Events {
		switch ev.Kind {
		case sched.EvGoCreate:
			created[ev.G] = ev.When
		case sched.EvGoEnd:
			ended[ev.G] = ev.When
		}
	}
	held := f.holding()
	slept := false // sysmon slept deeply between two bursts
	spinning, maxSpinning := 0, 0
	for _, ev := range r.Events {
		switch ev.Kind {
		case sched.EvSpinStart:
			spinning++
		case sched.EvSpinStop:
			spinning--
		}
		maxSpinning = max(maxSpinning, spinning)
	}
	if maxSpinning > 2 {
		return Window{}, fmt.Errorf("%d Ms spun at once; the text says one or two", maxSpinning)
	}
	for b := range 5 {
		burst := kids[12*b : 12*b+12]
		from, to, next := created[burst[0]], int64(0), f.t1
		for _, g := range burst {
			e, ok := ended[g]
			if !ok {
				return Window{}, must(fmt.Errorf("G%d of burst %d never finished", g, b+1))
			}
			to = max(to, e)
		}
		if b < 4 {
			next = created[kids[12*b+12]]
		}
		// An M other than the spawner's took a P or spun, from the burst
		// on: on a busy machine it may get a core only once the spawner's
		// P has run the burst alone, as the book says.
		woke := false
		spawner := int64(-1)
		for _, ev := range r.Events {
			if ev.Kind == sched.EvGoStart && ev.G == f.main {
				spawner = ev.M
			}
			if ev.When >= from && ev.When < next && ev.M != spawner && (ev.Kind == sched.EvSpinStart || ev.Kind == sched.EvProcStart) {
				woke = true
			}
		}
		if !woke {
			return Window{}, fmt.Errorf("in burst %d no M woke to look for the work", b+1)
		}
		if b == 4 {
			break
		}
		idle := false
		for i, ev := range r.Events {
			if ev.When > to && ev.When < next {
				idle = idle || held[i] == 0
				slept = slept || ev.Kind == sched.EvSysmonSleep
			}
		}
		if !idle {
			return Window{}, fmt.Errorf("between bursts %d and %d some M kept its P: the text says every M parks", b+1, b+2)
		}
	}
	// sysmon looks less and less often while nothing happens (its sleep
	// doubles), so it may miss a gap; not all of them.
	if !slept {
		return Window{}, errors.New("sysmon never slept deeply between bursts, though every P was idle in each gap")
	}
	return Window{}, nil
}

// syscall: "a G blocks in a long system call; sysmon retakes its P and
// hands it off so the others run". The picture opens on the call's start,
// the retake and the hand-off: the call itself lasts much longer.
func syscallStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	var call, exit sched.Event
	for _, ev := range r.Events {
		switch {
		case ev.Kind == sched.EvGoSyscall && call.Kind == 0:
			call = ev
		case ev.Kind == sched.EvGoSyscallExit && call.Kind != 0 && ev.G == call.G:
			exit = ev
		}
	}
	if call.Kind == 0 || exit.Kind == 0 {
		return Window{}, must(errors.New("no G entered and left a system call"))
	}
	var retake, handoff, run sched.Event
	for _, ev := range r.Events {
		if ev.When < call.When || ev.When > exit.When || ev.P != call.P {
			continue
		}
		switch {
		case ev.Kind == sched.EvSysmonRetake && retake.Kind == 0:
			retake = ev
		case ev.Kind == sched.EvProcStart && retake.Kind != 0 && handoff.Kind == 0 && ev.M != call.M:
			handoff = ev
		case ev.Kind == sched.EvGoStart && handoff.Kind != 0 && run.Kind == 0 && ev.M == handoff.M:
			run = ev
		}
	}
	switch {
	case retake.Kind == 0:
		return Window{}, fmt.Errorf("sysmon did not retake P%d while G%d was in its system call", call.P, call.G)
	case handoff.Kind == 0:
		return Window{}, fmt.Errorf("sysmon retook P%d but no other M took it while the call went on", call.P)
	case run.Kind == 0:
		return Window{}, fmt.Errorf("M%d took P%d from the system call but ran no G on it", handoff.M, call.P)
	}
	// The window: from the start to the hand-off's first G starting on
	// the retaken P, and a quarter more, so that the steal, the retake
	// and the hand-off fill the picture, whether sysmon took the P at
	// once or after 10ms; never past the call's end (a late retake put
	// the quarter more past half the run).
	w := Window{From: f.t0, To: min(run.When+(run.When-f.t0)/4, exit.When, f.t1)}
	// The others steal the work queued behind the call: the picture shows
	// the first steal. On a busy machine it once came 5ms after the
	// hand-off, out of the picture; such a run does not show the story.
	for _, ev := range r.Events {
		if ev.Kind == sched.EvSteal {
			if ev.When > w.To {
				return Window{}, fmt.Errorf("the first steal came at %v, after the picture's end (%v): the others did not steal while the call went on", time.Duration(ev.When-f.t0), time.Duration(w.To-f.t0))
			}
			return w, nil
		}
	}
	return Window{}, errors.New("no M stole: the work queued behind the call was not spread")
}

// hog: "on one P, a G that never blocks is preempted by sysmon after 10ms
// so the others get a turn"; the book: the short G spawned last runs
// first, from runnext, and the hog is preempted again about 10 ms later,
// with nobody waiting.
func hogStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	if r.Procs != 1 {
		return Window{}, fmt.Errorf("%d Ps; the story is of one", r.Procs)
	}
	var hog int64
	preempts := 0
	for _, ev := range r.Events {
		if ev.Kind == sched.EvGoPreempt {
			if hog != 0 && ev.G != hog {
				return Window{}, fmt.Errorf("G%d was preempted as well as the hog, G%d", ev.G, hog)
			}
			hog = ev.G
			preempts++
		}
	}
	if preempts < 2 {
		return Window{}, fmt.Errorf("the hog was preempted %s; the text says twice, 10 ms apart", times(preempts))
	}
	asked := false
	for _, ev := range r.Events {
		if ev.Kind == sched.EvSysmonPreempt && ev.G == hog {
			asked = true
		}
	}
	if !asked {
		return Window{}, fmt.Errorf("sysmon never asked G%d to yield", hog)
	}
	// The last G the first created was in runnext, and ran first.
	kids := f.children(f.main)
	for _, sp := range f.spans {
		if sp.g != f.main {
			if len(kids) == 0 || sp.g != kids[len(kids)-1] {
				return Window{}, fmt.Errorf("G%d ran first, not the last G created (from runnext)", sp.g)
			}
			break
		}
	}
	const slice = int64(10 * time.Millisecond)
	others := false // another G ran after the hog's first preemption
	preempted := false
	for _, sp := range f.spans {
		if sp.g == hog && slices.ContainsFunc(r.Events, func(ev sched.Event) bool {
			return ev.Kind == sched.EvGoPreempt && ev.G == hog && ev.When == sp.end
		}) {
			if sp.end-sp.start < slice {
				return Window{}, fmt.Errorf("G%d was preempted after %s; sysmon lets a G run 10ms", hog, round(time.Duration(sp.end-sp.start)))
			}
			preempted = true
		} else if preempted && sp.g != hog && sp.g != f.main {
			others = true
		}
	}
	if !others {
		return Window{}, errors.New("no other G ran after the hog's first preemption")
	}
	return Window{}, nil
}

// resize: "GOMAXPROCS goes 4 → 2 → 4 under load: procresize stops the
// world, moves the Gs of the destroyed Ps to the global queue, and
// restarts"; the book: preemptall's requests just before each; only P0
// and P1 run between the two, and P2 and P3 run again after the second,
// with work they stole.
func resizeStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	created, _ := f.firstEvent(sched.EvGoCreate)
	var resizes []sched.Event
	stopped := false
	moved := 0 // Gs put on the global queue during the first resize
	asked := 0 // preemption requests since G1 called GOMAXPROCS
	var unasked error
	for _, ev := range r.Events {
		switch ev.Kind {
		case sched.EvGoSyscall: // GOMAXPROCS is the only system call here
			asked = 0
		case sched.EvSysmonPreempt:
			asked++
		case sched.EvStopTheWorld:
			if ev.When > created.When && asked == 0 && unasked == nil {
				unasked = fmt.Errorf("the world stopped for resize %d with no G asked to yield: preemptall asks every running G", len(resizes)+1)
			}
			stopped = true
		case sched.EvStartTheWorld:
			stopped = false
		case sched.EvResize:
			if ev.When < created.When {
				continue // New's, before the load
			}
			if !stopped {
				return Window{}, must(fmt.Errorf("procresize to %d ran with the world going", ev.Arg))
			}
			resizes = append(resizes, ev)
		case sched.EvGlobalRunq:
			if stopped && len(resizes) == 1 && ev.N > 0 {
				moved += int(ev.N)
			}
		}
	}
	if len(resizes) != 2 || resizes[0].Arg != 2 || resizes[1].Arg != 4 {
		return Window{}, must(fmt.Errorf("%d resizes; want 4 → 2, then → 4", len(resizes)))
	}
	after, stole := false, false
	for _, ev := range r.Events {
		if ev.P < 2 || (ev.Kind != sched.EvGoStart && ev.Kind != sched.EvSteal) {
			continue
		}
		if ev.Kind == sched.EvGoStart && ev.When > resizes[0].When && ev.When < resizes[1].When {
			return Window{}, must(fmt.Errorf("G%d ran on P%d while GOMAXPROCS was 2", ev.G, ev.P))
		}
		if ev.When > resizes[1].When {
			after = after || ev.Kind == sched.EvGoStart
			stole = stole || ev.Kind == sched.EvSteal
		}
	}
	switch {
	case unasked != nil:
		return Window{}, unasked
	case moved == 0:
		return Window{}, errors.New("the first resize moved no G to the global run queue")
	case !after:
		return Window{}, errors.New("neither P2 nor P3 ran a G after GOMAXPROCS went back to 4")
	case !stole:
		return Window{}, errors.New("neither P2 nor P3 stole after GOMAXPROCS went back to 4")
	}
	return Window{}, nil
}

// deadlock: "every G is blocked, and checkdead reports the deadlock".
func deadlockStory(r *Result) (Window, error) {
	f, err := factsOf(r)
	if err != nil {
		return Window{}, err
	}
	var de *sched.DeadlockError
	if !errors.As(r.Err, &de) {
		return Window{}, must(fmt.Errorf("Wait returned %v, not a deadlock", r.Err))
	}
	last := map[int64]sched.EventKind{}
	for _, ev := range r.Events {
		if ev.G != 0 && ev.Kind != sched.EvGlobalRunq && ev.Kind != sched.EvSteal {
			last[ev.G] = ev.Kind
		}
	}
	for g := range f.parent {
		if last[g] != sched.EvGoPark {
			return Window{}, must(fmt.Errorf("G%d's last event is %v, not a park", g, last[g]))
		}
	}
	if len(de.Waiting) != len(f.parent) {
		return Window{}, must(fmt.Errorf("checkdead reported %d waiting Gs of %d", len(de.Waiting), len(f.parent)))
	}
	return Window{}, nil
}
