package sched

// Lesson 07 under the exhaustive explorer (kitExplore): sysmon's way into
// its deep sleep against an M that brings a P back to life, and retake
// against the P's M leaving its syscall, in EVERY order with at most two
// preemptions, sched.lock included (a thread that finds it held waits
// while the others run), not in the orders seeds pick.

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The preemption bound of each scenario, for the learner's code and the
// reference's, the oracle. Measured, bound 1 reaches every final state of
// the reference's that bound 3 does, in each. A lost wake-up of
// sysmon needs one preemption (sysmon paused between its look at the Ps
// and its Store of sysmonwait while the waker runs to its end); a wake-up
// served twice, two (the waker paused too, between its look at sysmonwait
// and its wake-up); the deep sleep takes 167 executions of the
// reference's (bound 3: 932). The retake race is explored with bound 1 (27
// executions), which covers the CAS race and the take of P1 by the M that
// lost P0; its threads wait for sched.lock only from bound 2 on (211
// executions, 7 of them with a wait), which doubled the test's time. The
// hand-off needs one preemption (retake paused between handoffp and its
// next operation): bound 1, 20 executions (bound 3: 195).

// l07Impl is one implementation of sysmon.go: the learner's or the
// reference's (the ref_ copies), run on the same starts.
type l07Impl struct {
	sysmon func(mp *m)
	retake func(sched *schedt, now int64) uint32
}

var (
	l07Mine = l07Impl{sysmon, retake}
	l07Ref  = l07Impl{ref_sysmon, ref_retake}
)

// l07DeepSleepWorld is sysmon, on a fake clock that never moves, setting
// out for its deep sleep (every P idle) while an M leaving a syscall takes
// an idle P under sched.lock and its G enters a syscall at once. sysmon
// runs one round and a half: the usleep of its second round sets closing,
// so it ends at its next look at closing. The next timer is 1ns away: a
// deep sleep nobody wakes ends at once, with sysmonwait still set until
// sysmon takes sched.lock to clear it.
type l07DeepSleepWorld struct {
	sched   *schedt
	mp      *m // the M leaving its syscall
	gp      *g // its G
	got     bool
	rounds  int // sysmon's usleeps
	sleeps  int // its deep sleeps (EvSysmonSleep)
	sysmonM *m
}

func l07NewDeepSleepWorld(im l07Impl) kitStart {
	w := &l07DeepSleepWorld{}
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
	w.sched = sched
	sched.cfg.nanotime = func() int64 { return l07t0 }
	sched.cfg.usleep = func(int64) {
		if w.rounds++; w.rounds >= 2 {
			sched.closing.Store(true)
		}
	}
	sched.trace = func(ev Event) {
		if ev.Kind == EvSysmonSleep {
			w.sleeps++
		}
	}
	sched.timer0When.Store(l07t0 + 1)
	w.sysmonM = kitNewM(sched)
	sched.mWG.Add(1)
	w.mp = kitNewM(sched)
	w.gp = kitG(sched, 900)
	w.gp.atomicstatus.Store(_Gsyscall)
	w.gp.m = w.mp
	w.mp.curg.Store(w.gp)
	return kitStart{
		threads: []kitThread{
			{"sysmon", func() { im.sysmon(w.sysmonM) }},
			{"the M leaving its syscall (then entering another)", w.waker},
		},
		check: w.lostWakeup,
		final: w.final,
	}
}

// waker is M 900: its syscall returns, its old P long gone, so it takes an
// idle P (exitsyscallfast, under sched.lock: it wakes sysmon if sysmonwait
// is set), and its G enters a syscall at once (entersyscall: it wakes
// sysmon if sysmonwait is set).
func (w *l07DeepSleepWorld) waker() {
	if !exitsyscallfast(w.mp, nil) {
		return
	}
	w.got = true
	w.mp.p.syscalltick.Add(1)
	casgstatus(w.gp, _Gsyscall, _Grunning)
	entersyscall(w.gp)
}

// lostWakeup is the invariant of every step: while a P is in a syscall,
// sysmon is not in its deep sleep unwoken (sysmonwait set, no wake-up
// pending on sysmonnote). It reads past the scheduling points.
func (w *l07DeepSleepWorld) lostWakeup() string {
	sched := w.sched
	if !(*atomic.Bool)(&sched.sysmonwait).Load() || len(sched.sysmonnote.c) != 0 {
		return ""
	}
	for _, pp := range sched.allp {
		if (*atomic.Uint32)(&pp.status).Load() == _Psyscall {
			return fmt.Sprintf("sched.sysmonwait is set and nobody woke sysmon, while P %d is in a syscall (the leaving M's G entered it): sysmon sleeps deeply, for up to 60s, with nothing watching that P. "+
				"Every P was idle when sysmon first looked; the M leaving its syscall took one under sched.lock while sysmon was on its way to the deep sleep, and found sysmonwait still false, so it woke nobody. "+
				"sysmon must look at the Ps again with sched.lock held, and set sysmonwait before it releases the lock: then a P taken before shows at that second look (npidle < gomaxprocs), and one taken after finds sysmonwait set", pp.id)
		}
	}
	return ""
}

func (w *l07DeepSleepWorld) final() (key, problem string) {
	if problem = w.lostWakeup(); problem != "" {
		return "", problem
	}
	sched := w.sched
	var ps []string
	for _, pp := range sched.allp {
		ps = append(ps, fmt.Sprintf("P%d %s", pp.id, pStatusString((*atomic.Uint32)(&pp.status).Load())))
	}
	key = fmt.Sprintf("deep sleeps %d, sysmonwait %v, a wake-up pending on sysmonnote: %v, the leaving M got a P: %v; %s",
		w.sleeps, (*atomic.Bool)(&sched.sysmonwait).Load(), len(sched.sysmonnote.c) != 0, w.got, strings.Join(ps, ", "))
	return key, ""
}

// l07RetakeWorld is lesson 07's first PCT race (TestL07RetakeInterleavings)
// under the explorer, with one more P: retake's second sighting of P0's
// syscall (a G queued on P0 makes it worth taking) while its M leaves the
// syscall; P1 is idle, so the M, if it loses P0 to retake's CAS, takes P1
// under sched.lock, which retake takes too, to count the M
// (incidlelocked) and to hand P0 off (handoffp, startm).
type l07RetakeWorld struct {
	sched  *schedt
	pp     *p
	mp     *m
	ms     l07ms
	n      uint32
	events l07exEvents
}

// l07exEvents keeps the trace of an explored world's threads: each event's
// kind and P, compared as a sorted list (which thread's event came first
// is the schedule's, not the code's).
type l07exEvents []string

func (es *l07exEvents) record(ev Event) { *es = append(*es, fmt.Sprintf("%s P%d", ev.Kind, ev.P)) }

func (es l07exEvents) String() string {
	if len(es) == 0 {
		return "no trace events"
	}
	sorted := slices.Clone(es)
	slices.Sort(sorted)
	return "trace events " + strings.Join(sorted, ", ")
}

func l07NewRetakeWorld(im l07Impl) kitStart {
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
	pp := l07idlePToSyscall(sched) // kitSched(2) leaves both Ps idle
	runqputtail(pp, kitG(sched, 7))
	w := &l07RetakeWorld{sched: sched, pp: pp, ms: l07idleMs(sched)}
	w.mp = l07syscallM(sched, pp)
	im.retake(sched, l07t0)       // the first sighting
	sched.trace = w.events.record // from here on: a retake the M wins back emits nothing
	return kitStart{
		threads: []kitThread{
			{"sysmon (retake)", func() { w.n = im.retake(sched, l07t0+l07tick) }},
			{"the M leaving its syscall", func() { l07leaveSyscall(w.mp, pp) }},
		},
		final: w.final,
	}
}

func (w *l07RetakeWorld) final() (key, problem string) {
	sched := w.sched
	sched.lock.Lock()
	idlelocked := sched.nmidlelocked
	sched.lock.Unlock()
	var ps []string
	for _, pp := range sched.allp {
		ps = append(ps, fmt.Sprintf("P%d %s, syscalltick %d, handed to %s", pp.id, pStatusString((*atomic.Uint32)(&pp.status).Load()),
			(*atomic.Uint32)(&pp.syscalltick).Load(), l07mName(w.ms.handed(pp))))
	}
	key = fmt.Sprintf("retake returned %d, the syscall M holds P%d; %s; nmidlelocked %d; %s", w.n, pidOf(w.mp.p), strings.Join(ps, "; "), idlelocked, w.events)
	if w.mp.p == w.pp && w.n != 0 {
		problem = fmt.Sprintf("the M leaving its syscall won P %d back (its CAS _Psyscall → _Pidle) and retake also took it (%s): two owners. Take the P only by CAS of its status from the _Psyscall you saw to _Pidle, and only if the CAS succeeds", w.pp.id, key)
	}
	return key, problem
}

// l07HandoffWorld is lesson 07's last PCT race under the explorer: retake
// takes P0 from its syscall (a G queued on it) and hands it off to an idle
// M, which looks once whether it was handed the P and, if so, reads the
// P's syscalltick, as its G entering a syscall would: retake must have
// bumped the tick before the hand-off (1 → 2).
type l07HandoffWorld struct {
	sched *schedt
	pp    *p
	ms    l07ms
	seen  string
}

func l07NewHandoffWorld(im l07Impl) kitStart {
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
	pp := l07idlePToSyscall(sched) // kitSched(2) leaves both Ps idle
	runqputtail(pp, kitG(sched, 7))
	w := &l07HandoffWorld{sched: sched, pp: pp, ms: l07idleMs(sched), seen: "not yet handed P0"}
	l07syscallM(sched, pp)
	im.retake(sched, l07t0) // the first sighting
	return kitStart{
		threads: []kitThread{
			{"sysmon (retake)", func() { im.retake(sched, l07t0+l07tick) }},
			{"the idle M (looks once whether it was handed P0)", w.look},
		},
		final: w.final,
	}
}

func (w *l07HandoffWorld) look() {
	w.pp.status.Load() // a scheduling point: the look may come at any step of retake's
	if mp := w.ms.handed(w.pp); mp != nil {
		w.seen = fmt.Sprintf("%s was handed P0 and read its syscalltick as %d", l07mName(mp), w.pp.syscalltick.Load())
	}
}

func (w *l07HandoffWorld) final() (key, problem string) {
	if strings.HasSuffix(w.seen, " as 1") {
		problem = fmt.Sprintf("%s: retake bumped the tick (1 → 2) only after handoffp. Once handed off, the P belongs to that M, whose G may enter a syscall at once: bump pp.syscalltick before handoffp(pp)", w.seen)
	}
	return fmt.Sprintf("%s; P0 handed to %s", w.seen, l07mName(w.ms.handed(w.pp))), problem
}

// l07TakeAndEnterWorld is retake's look at the Ps while an M takes an
// idle P, runs a G on it (schedtick 1) and that G enters a syscall at
// once: each P's status goes _Pidle → _Prunning → _Psyscall under
// retake's feet. retake reads a P's status once and decides on that read:
// idle, nothing; running, the slice noted (sysmontick's schedtick and
// schedwhen); in a syscall, the slice noted and the first sighting of the
// syscall too. A second read can see a status the first did not, and note
// a syscall without the slice, which no single read does.
type l07TakeAndEnterWorld struct {
	sched *schedt
	mp    *m
	n     uint32
}

func l07NewTakeAndEnterWorld(im l07Impl) kitStart {
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
	for _, pp := range sched.allp {
		pp.syscalltick.Store(1) // each P made a syscall before: a new one is a first sighting
	}
	w := &l07TakeAndEnterWorld{sched: sched, mp: kitNewM(sched)}
	return kitStart{
		threads: []kitThread{
			{"sysmon (retake)", func() { w.n = im.retake(sched, l07t0) }},
			{"the other M (takes an idle P, runs a G, which enters a syscall)", w.takeAndEnter},
		},
		final: w.final,
	}
}

func (w *l07TakeAndEnterWorld) takeAndEnter() {
	sched := w.sched
	sched.lock.Lock()
	pp := sched.pidleget()
	sched.lock.Unlock()
	acquirep(w.mp, pp)
	pp.schedtick.Add(1) // execute
	l07enterSyscall(w.mp, pp)
}

func (w *l07TakeAndEnterWorld) final() (key, problem string) {
	var ps []string
	for _, pp := range w.sched.allp {
		pd := pp.sysmontick
		ps = append(ps, fmt.Sprintf("P%d %s, sysmon noted schedtick %d at %s and syscalltick %d at %s", pp.id, pStatusString((*atomic.Uint32)(&pp.status).Load()),
			pd.schedtick, l07noted(pd.schedwhen), pd.syscalltick, l07noted(pd.syscallwhen)))
	}
	key = fmt.Sprintf("retake returned %d; %s", w.n, strings.Join(ps, "; "))
	for _, pp := range w.sched.allp {
		if pd := pp.sysmontick; pd.syscallwhen != 0 && pd.schedwhen == 0 {
			problem = fmt.Sprintf("retake noted P%d's syscall (its first sighting) without noting its time slice (%s): no single read of the P's status does that. "+
				"A status read as _Psyscall goes through the slice check too; this retake must have read _Pidle first and _Psyscall later. Read pp.status once per look, and decide both halves on that value", pp.id, key)
		}
	}
	return key, problem
}

// l07noted names a time sysmontick noted: "t0", or "never" for 0.
func l07noted(when int64) string {
	if when == 0 {
		return "never"
	}
	return l07at(when)
}

var l07ExploreScenarios = []struct {
	name  string
	bound int
	start func(im l07Impl) kitStart
}{
	{"every P idle, sysmon sets out for its deep sleep while an M leaving a syscall takes an idle P and its G enters a syscall at once", 2, l07NewDeepSleepWorld},
	{"retake's second sighting of P0's syscall (a G queued on P0, P1 idle) while its M leaves the syscall, and takes P1 under sched.lock if it lost P0", 1, l07NewRetakeWorld},
	{"retake hands P0 (a G queued on it) off to an idle M, which looks once whether it has it and reads its syscalltick", 1, l07NewHandoffWorld},
	{"retake looks at the Ps while another M takes an idle one, runs a G on it and the G enters a syscall at once", 1, l07NewTakeAndEnterWorld},
}

// TestL07Explore runs each scenario's threads in every order with at most
// its bound of preemptions: no lost wake-up of sysmon at any step, one
// owner of a P at the end, and an end state the reference (ref_) reaches
// from the same start.
func TestL07Explore(t *testing.T) {
	if msg := kitEach(len(l07ExploreScenarios), func(i int) string {
		sc := l07ExploreScenarios[i]
		mine := func() kitStart { return sc.start(l07Mine) }
		ref := func() kitStart { return sc.start(l07Ref) }
		if fail := kitExploreOracle(sc.bound, sc.bound, mine, ref); fail != "" {
			return fmt.Sprintf("%s: %s", sc.name, fail)
		}
		return ""
	}); msg != "" {
		t.Fatal(msg + kitHint(l07))
	}
}
