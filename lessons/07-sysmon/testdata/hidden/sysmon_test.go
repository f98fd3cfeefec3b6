package sched

// Hidden tests of lesson 07-sysmon. Messages are written for a learner who
// cannot see this file.
//
// Three kinds of test:
//   - retake and preemptone called directly on constructed states (kitSched,
//     nothing running), at chosen times "now": exact rules.
//   - sysmon itself on a Runtime whose clock is injected: Config.Usleep
//     records every sleep sysmon asks for and moves a fake Config.Nanotime
//     forward by it, so the sequence of sleeps is exact; and one test under
//     testing/synctest's fake clock.
//   - real threads: a G hogging the only P is preempted; Gs looping over
//     system calls on 2 Ps all finish.

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

const l07 = "07-sysmon"

// Times for the tests that call retake directly. retake only compares
// times, so t0 is arbitrary.
const (
	l07t0    = int64(time.Second)
	l07tick  = int64(20 * time.Microsecond) // one sysmon tick
	l07tenMS = int64(10 * time.Millisecond)
)

// l07at names a time of a constructed test: "t0+20µs".
func l07at(now int64) string {
	if now == l07t0 {
		return "t0"
	}
	return "t0+" + time.Duration(now-l07t0).String()
}

// l07syscallP takes an idle P of sched off the idle list and puts it in a
// system call as entersyscall does: status _Psyscall, no M. The P has run
// and made a syscall before (schedtick and syscalltick are 1), so sysmon's
// first look at it is a first sighting.
func l07syscallP(t *testing.T, sched *schedt) *p {
	t.Helper()
	pp := l07idlePToSyscall(sched)
	if pp == nil {
		t.Fatal("test setup: no idle P to put in a system call")
	}
	return pp
}

// l07idlePToSyscall is l07syscallP for callers without a *testing.T (the
// explorer's worlds): nil if no P is idle.
func l07idlePToSyscall(sched *schedt) *p {
	sched.lock.Lock()
	pp := sched.pidleget()
	sched.lock.Unlock()
	if pp == nil {
		return nil
	}
	pp.schedtick.Store(1)
	pp.syscalltick.Store(1)
	pp.m.Store(nil)
	pp.status.Store(_Psyscall)
	return pp
}

// l07ms are hand-made Ms on the idle M list. If handoffp decides a P needs
// an M, startm takes one of these and hands it the P (mp.nextp) instead of
// starting a real M: nothing runs (the test's Gs have no code), and the
// test can see where the P went. There are a few, so that even a wrong
// retake that hands off more Ps than it should never starts a real M.
type l07ms []*m

func l07idleMs(sched *schedt) l07ms {
	ms := make(l07ms, 4)
	for i := range ms {
		ms[i] = allocm(sched, -1)
		sched.lock.Lock()
		sched.mput(ms[i])
		sched.lock.Unlock()
	}
	return ms
}

// handed returns the M that was handed pp, or nil.
func (ms l07ms) handed(pp *p) *m {
	for _, mp := range ms {
		if mp.nextp == pp {
			return mp
		}
	}
	return nil
}

// l07onIdleList reports whether pp is on sched's idle P list.
func l07onIdleList(sched *schedt, pp *p) bool {
	sched.lock.Lock()
	defer sched.lock.Unlock()
	for q := sched.pidle; q != nil; q = q.link {
		if q == pp {
			return true
		}
	}
	return false
}

// l07retake calls retake(sched, now) and fails unless it returned want.
// For want == 0 it also checks that pp is still in its syscall.
func l07retake(t *testing.T, sched *schedt, pp *p, now int64, want uint32, why string) {
	t.Helper()
	got := retake(sched, now)
	if got != want {
		t.Fatalf("retake(now = %s) returned %d, want %d: %s%s", l07at(now), got, want, why, kitHint(l07))
	}
	if want == 0 && pp != nil {
		if s := pp.status.Load(); s != _Psyscall {
			t.Fatalf("retake(now = %s) returned 0 but left P %d %s; it should still be _Psyscall: %s%s",
				l07at(now), pp.id, pStatusString(s), why, kitHint(l07))
		}
	}
}

// TestL07RetakeSyscallWithWork: a P in a syscall with a G queued (on the
// ring, or only in runnext) is not taken on the first sighting; on the
// second, 20µs later, it is — although another P is idle and the syscall is
// young — and handoffp gives it to an M.
func TestL07RetakeSyscallWithWork(t *testing.T) {
	for _, where := range []string{"runq", "runnext"} {
		t.Run(where, func(t *testing.T) {
			sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
			pp := l07syscallP(t, sched)
			gp := kitG(sched, 1)
			if where == "runnext" {
				pp.runnext.Store(gp)
			} else {
				runqput(pp, gp, false)
			}
			ms := l07idleMs(sched)

			l07retake(t, sched, pp, l07t0, 0,
				"the first time retake sees a syscall (a syscalltick it has not recorded) it only records the tick and the time (pp.sysmontick) and moves on; it never takes the P on that look, even with work queued")
			l07retake(t, sched, pp, l07t0+l07tick, 1, fmt.Sprintf(
				"second sighting of the same syscall, 20µs later, with G 1 in the P's %s (another P idle, the syscall only 20µs old). "+
					"The three reasons to take the P are alternatives: its run queue (ring or runnext: use runqempty) has work, OR no M is spinning and no P is idle, OR the syscall has lasted 10ms", where))
			if s := pp.status.Load(); s != _Pidle {
				t.Fatalf("after retake took P %d, its status is %s, want _Pidle: CAS it from _Psyscall to _Pidle, then call handoffp(pp)%s",
					pp.id, pStatusString(s), kitHint(l07))
			}
			if ms.handed(pp) == nil {
				t.Fatalf("after retake took P %d with G 1 queued, no M was given the P: call handoffp(pp), which starts an M for a P with work%s",
					pp.id, kitHint(l07))
			}
			if n := sched.npidle.Load(); n != 1 {
				t.Fatalf("after retake handed P %d to an M, npidle = %d, want 1 (the other P, untouched)", pp.id, n)
			}
		})
	}
}

// TestL07RetakeSyscallNobodyIdle: with no P idle and no M spinning, a P in
// a syscall is taken on the second sighting even with nothing queued:
// otherwise nobody would notice new work.
func TestL07RetakeSyscallNobodyIdle(t *testing.T) {
	sched := kitSched(1, Config{NoSysmon: true, ForcePreempt: time.Hour})
	pp := l07syscallP(t, sched)
	ms := l07idleMs(sched)
	l07retake(t, sched, pp, l07t0, 0, "first sighting of the syscall: only record it")
	l07retake(t, sched, pp, l07t0+l07tick, 1,
		"second sighting; the P's run queue is empty, but no P is idle and no M is spinning (nmspinning+npidle == 0), so nobody would run new work: that alone is reason to take the P")
	if s := pp.status.Load(); s != _Pidle {
		t.Fatalf("after retake took P %d, its status is %s, want _Pidle (CAS from _Psyscall, then handoffp)%s", pp.id, pStatusString(s), kitHint(l07))
	}
	if ms.handed(pp) == nil {
		t.Fatalf("after retake took P %d with nobody idle or spinning, handoffp should have given it to a spinning M; the idle M got nothing: was handoffp(pp) called?%s", pp.id, kitHint(l07))
	}
}

// TestL07RetakeSyscallLongCall: with nothing queued and someone able to
// pick up new work (a P idle, or an M spinning), a P stays in its syscall
// until the syscall has lasted 10ms (since the first sighting), then is
// taken and goes idle.
func TestL07RetakeSyscallLongCall(t *testing.T) {
	for _, who := range []string{"another P idle", "an M spinning"} {
		t.Run(strings.ReplaceAll(who, " ", "_"), func(t *testing.T) {
			procs := 2
			if who == "an M spinning" {
				procs = 1
			}
			sched := kitSched(procs, Config{NoSysmon: true, ForcePreempt: time.Hour})
			pp := l07syscallP(t, sched)
			if who == "an M spinning" {
				sched.nmspinning.Store(1) // some M is looking for work
			}
			l07retake(t, sched, pp, l07t0, 0, "first sighting of the syscall: only record it (and when: pd.syscallwhen = now)")
			l07retake(t, sched, pp, l07t0+l07tick, 0, "nothing queued and "+who+": not worth an M yet, and the syscall is only 20µs old")
			l07retake(t, sched, pp, l07t0+l07tenMS/2, 0, "nothing queued, "+who+", the syscall 5ms old")
			l07retake(t, sched, pp, l07t0+l07tenMS-1, 0, "nothing queued, "+who+", the syscall 1ns short of 10ms")
			l07retake(t, sched, pp, l07t0+l07tenMS, 1,
				"the syscall has lasted 10ms since sysmon first saw it (pd.syscallwhen + 10ms <= now): take the P even with nothing queued and "+who)
			if s := pp.status.Load(); s != _Pidle {
				t.Fatalf("after retake took P %d, its status is %s, want _Pidle%s", pp.id, pStatusString(s), kitHint(l07))
			}
			if !l07onIdleList(sched, pp) {
				t.Fatalf("after retake took P %d with nothing queued and %s, it is not on the idle P list: hand it to handoffp(pp), which puts it there%s", pp.id, who, kitHint(l07))
			}
		})
	}
	// The same "not yet", asked again and again while other threads move
	// what the answer does not depend on.
	l07stirredNotYet(t)
}

// l07stirredNotYet is TestL07RetakeSyscallLongCall's stirred question:
// retake, every 20µs of a syscall's first 2ms, with nothing queued and two
// Ps idle, while another thread counts ticks on the idle Ps (which retake
// does not act on), moves nmspinning and npidle (never both 0), and flips
// an idle P's bit of the idle mask. The answer is 0 every time; a
// twenty-eighth red team's retake took the P early only when it saw the
// Ps' ticks move. (The syscall's own syscalltick stays: it moving would
// make every look a first sighting, which never reaches the rule asked.)
func l07stirredNotYet(t *testing.T) {
	t.Helper()
	sched := kitSched(3, Config{NoSysmon: true, ForcePreempt: time.Hour})
	pp := l07syscallP(t, sched)
	l07idleMs(sched)
	l07retake(t, sched, pp, l07t0, 0, "first sighting of the syscall: only record it (and when: pd.syscallwhen = now)")
	var others []*p
	for _, o := range sched.allp {
		if o != pp {
			others = append(others, o)
		}
	}
	ticks := kitStirTicks(others...)
	mask := kitStirMask(sched.idlepMask, others[0].id)
	nmUp, nmDown := kitStirUpDown(&sched.nmspinning)
	npUp, npDown := kitStirUpDown(&sched.npidle)
	stir := kitStirCycle(
		ticks[0], nmUp, mask[0], ticks[1],
		npUp, ticks[0], mask[1], nmDown,
		ticks[1], npDown,
	)
	kitStirred(t, l07, "another thread counted ticks on the idle Ps, moved nmspinning between 0 and 1 and npidle between 2 and 3, and flipped an idle P's bit of the idle mask and back", 100, stir, func(i int) string {
		now := l07t0 + int64(i+1)*l07tick
		if got := retake(sched, now); got != 0 {
			return fmt.Sprintf("retake(now = %s) returned %d, want 0: nothing queued and a P idle, and the syscall younger than 10ms: not yet", l07at(now), got)
		}
		if s := pp.status.Load(); s != _Psyscall {
			return fmt.Sprintf("retake(now = %s) returned 0 but left P %d %s; it should still be _Psyscall", l07at(now), pp.id, pStatusString(s))
		}
		return ""
	})
}

// TestL07RetakeNewSyscallIsFirstSighting: a syscall is known by its
// syscalltick. When the tick moves between two looks (the M returned and
// made another call), the next look is a first sighting again; and retake
// itself moves the tick when it takes a P, so that the P's next syscall is
// not mistaken for the old one.
func TestL07RetakeNewSyscallIsFirstSighting(t *testing.T) {
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
	pp := l07syscallP(t, sched)
	runqput(pp, kitG(sched, 1), false)
	ms := l07idleMs(sched)

	l07retake(t, sched, pp, l07t0, 0, "first sighting of the syscall")
	pp.syscalltick.Add(1) // its M returned and entered another syscall
	l07retake(t, sched, pp, l07t0+l07tick, 0,
		"pp.syscalltick changed since the last look: this is a different syscall, seen for the first time (compare the tick with pd.syscalltick)")
	l07retake(t, sched, pp, l07t0+2*l07tick, 1, "second sighting of the new syscall, with G 1 queued")
	mp := ms.handed(pp)
	if mp == nil {
		t.Fatalf("retake returned 1 but did not hand P %d to an M (handoffp)", pp.id)
	}

	// The M that got the P runs its G 1... which enters a syscall at once.
	// Nothing has exited a syscall, so only retake can have moved the tick.
	mp.nextp = nil
	pp.status.Store(_Psyscall)
	l07retake(t, sched, pp, l07t0+3*l07tick, 0,
		"P was taken from a syscall and is now in another one, seen for the first time. When retake takes a P it must bump pp.syscalltick (pp.syscalltick.Add(1)); "+
			"without that, the new syscall looks like the old one and the P is taken on its first sighting")
}

// l07runningP takes an idle P of sched off the idle list and makes it run a
// G on a hand-made M, with schedtick 7. Nothing runs: only the test moves
// the ticks.
func l07runningP(t *testing.T, sched *schedt) (*p, *m, *g) {
	t.Helper()
	sched.lock.Lock()
	pp := sched.pidleget()
	sched.lock.Unlock()
	if pp == nil {
		t.Fatal("test setup: no idle P")
	}
	gp := kitG(sched, 1000)
	gp.atomicstatus.Store(_Grunning)
	mp := kitNewM(sched)
	mp.curg.Store(gp)
	gp.m = mp
	mp.p = pp
	pp.m.Store(mp)
	pp.schedtick.Store(7)
	pp.status.Store(_Prunning)
	return pp, mp, gp
}

// TestL07RetakePreemptsLongSlice: a running P's G is asked to yield
// (g.preempt and p.preempt) once the P's schedtick has not moved for
// ForcePreempt (10ms by default): a new time slice restarts the count.
// Preemption is not a retake: retake returns 0 and the P stays running.
func TestL07RetakePreemptsLongSlice(t *testing.T) {
	for _, fp := range []time.Duration{0, 3 * time.Millisecond} {
		want := fp
		if want == 0 {
			want = 10 * time.Millisecond
		}
		name := fmt.Sprintf("ForcePreempt_%v", want)
		if fp == 0 {
			name = "default_10ms"
		}
		t.Run(name, func(t *testing.T) {
			sched := kitSched(1, Config{NoSysmon: true, ForcePreempt: fp})
			pp, _, gp := l07runningP(t, sched)
			w := int64(want)
			check := func(now int64, preempt bool, why string) {
				t.Helper()
				if n := retake(sched, now); n != 0 {
					t.Fatalf("retake(now = %s) on a running P returned %d, want 0: only Ps taken from syscalls count, preempting a G is not a retake "+
						"(and must not reset sysmon's idle count)%s", l07at(now), n, kitHint(l07))
				}
				if s := pp.status.Load(); s != _Prunning {
					t.Fatalf("retake(now = %s) changed running P %d to %s: a running P is only ever preempted, never taken", l07at(now), pp.id, pStatusString(s))
				}
				if got := gp.preempt.Load(); got != preempt {
					t.Fatalf("after retake(now = %s), G %d's preempt flag is %v, want %v: %s%s", l07at(now), gp.goid, got, preempt, why, kitHint(l07))
				}
				if got := pp.preempt.Load(); got != preempt {
					t.Fatalf("after retake(now = %s), P %d's preempt flag is %v, want %v: %s (preemptone sets both the G's and the P's flag)%s", l07at(now), pp.id, got, preempt, why, kitHint(l07))
				}
			}
			check(l07t0, false, "the first look at this time slice only records pp.schedtick and the time (pd.schedtick, pd.schedwhen)")
			check(l07t0+w-1, false, fmt.Sprintf("the slice has lasted 1ns less than ForcePreempt (%v)", want))
			pp.schedtick.Add(1) // the M started a new time slice
			check(l07t0+w, false, fmt.Sprintf("pp.schedtick moved since the last look: a new time slice began, and its clock starts now; the P has been running for %v, but time on earlier slices does not count", want))
			check(l07t0+2*w-1, false, fmt.Sprintf("the new slice has lasted 1ns less than ForcePreempt (%v)", want))
			check(l07t0+2*w, true, fmt.Sprintf("the new slice has lasted ForcePreempt (%v) with the same schedtick (pd.schedwhen + ForcePreempt <= now): call preemptone(pp)", want))
		})
	}
}

// TestL07RetakeSyscallAfterLongSlice: the time-slice check runs for Ps in a
// syscall too. When a slice that began while the P was running has lasted
// ForcePreempt by the time sysmon finds the P in a syscall, preemptone
// cannot reach the G (no M is wired to the P), so retake takes the P at
// once, without waiting for a second sighting.
func TestL07RetakeSyscallAfterLongSlice(t *testing.T) {
	const fp = 3 * time.Millisecond
	sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: fp})
	pp, _, _ := l07runningP(t, sched)
	pp.syscalltick.Store(1)
	runqput(pp, kitG(sched, 1), false)
	ms := l07idleMs(sched)
	l07retake(t, sched, nil, l07t0, 0, "the first look at a running P's time slice")
	// Its G enters a syscall (as entersyscall does).
	pp.m.Store(nil)
	pp.status.Store(_Psyscall)
	l07retake(t, sched, pp, l07t0+int64(fp)/2, 0, "first sighting of the syscall; the time slice is only 1.5ms old")
	pp.syscalltick.Add(1) // ...and another one
	l07retake(t, sched, pp, l07t0+int64(fp), 1,
		"first sighting of this syscall, but the P's time slice (same schedtick since t0) has lasted ForcePreempt (3ms). Run the time-slice check for _Psyscall Ps as well as _Prunning ones; "+
			"preemptone cannot reach a G in a syscall, so when the slice is over, skip the first-sighting rule and go on to the retake conditions")
	if ms.handed(pp) == nil {
		t.Fatalf("retake returned 1 but did not hand P %d (G 1 queued) to an M with handoffp", pp.id)
	}
}

// TestL07Preemptone: preemptone sets the preempt flag of the G running on
// the P, and the P's, and reports whether there was a G to ask.
func TestL07Preemptone(t *testing.T) {
	sched := kitSched(1, Config{NoSysmon: true})
	pp, mp, gp := l07runningP(t, sched)

	pp.m.Store(nil)
	if preemptone(pp) {
		t.Fatalf("preemptone on P %d with no M returned true, want false (no M, so no G to ask)%s", pp.id, kitHint(l07))
	}
	if gp.preempt.Load() || pp.preempt.Load() {
		t.Fatalf("preemptone on a P with no M set a preempt flag (G: %v, P: %v)", gp.preempt.Load(), pp.preempt.Load())
	}
	pp.m.Store(mp)
	mp.curg.Store(nil)
	if preemptone(pp) {
		t.Fatalf("preemptone on P %d whose M runs no G (m.curg nil) returned true, want false%s", pp.id, kitHint(l07))
	}
	mp.curg.Store(gp)
	if !preemptone(pp) {
		t.Fatalf("preemptone on P %d running G %d returned false, want true%s", pp.id, gp.goid, kitHint(l07))
	}
	if !gp.preempt.Load() {
		t.Fatalf("preemptone on P %d did not set G %d's preempt flag: the G checks gp.preempt at its safe points (Safepoint); it is the G that must see the request (pp.m -> m.curg -> preempt)%s", pp.id, gp.goid, kitHint(l07))
	}
	if !pp.preempt.Load() {
		t.Fatalf("preemptone on P %d did not set the P's preempt flag (pp.preempt)%s", pp.id, kitHint(l07))
	}
}

// l07clock is the injected clock of the sysmon tests: its usleep (a
// Config.Usleep) records each sleep sysmon asks for and moves the fake
// Config.Nanotime forward by it, and can hold sysmon inside chosen sleeps
// until the test lets it go on. Sleeps from number realFrom on also sleep
// for real (at most 1ms), so that a sysmon left running does not spin.
type l07clock struct {
	now      atomic.Int64
	mu       sync.Mutex
	sleeps   []int64 // µs, in order (the first few thousand)
	count    int     // sleeps asked for
	hold     map[int]chan struct{}
	reached  map[int]chan struct{}
	released map[int]bool
	realFrom int
	moving   bool // each read of the clock moves it on by 1ns, and each sleep lasts longer than asked, as on a real clock
}

// l07newClock returns a clock at 1s that holds sysmon in sleeps number
// holds (counting from 1).
func l07newClock(realFrom int, holds ...int) *l07clock {
	c := &l07clock{hold: map[int]chan struct{}{}, reached: map[int]chan struct{}{}, released: map[int]bool{}, realFrom: realFrom}
	c.now.Store(int64(time.Second))
	for _, n := range holds {
		c.hold[n] = make(chan struct{})
		c.reached[n] = make(chan struct{})
	}
	return c
}

func (c *l07clock) usleep(usec int64) {
	c.mu.Lock()
	c.count++
	n := c.count
	if len(c.sleeps) < 4096 {
		c.sleeps = append(c.sleeps, usec)
	}
	hold, reached := c.hold[n], c.reached[n]
	sleepReal := c.realFrom > 0 && n >= c.realFrom
	c.mu.Unlock()
	over := int64(0)
	if c.moving {
		// A sleep lasts longer than asked, by what the OS takes to wake
		// the thread (1 to 60µs here): a twenty-ninth red team's sysmon
		// doubled its sleep from the first idle round only once a sleep
		// had overslept, which no injected clock did.
		over = 1000 + rand.Int64N(59_000)
	}
	c.now.Add(usec*1000 + over)
	if reached != nil {
		close(reached)
	}
	if hold != nil {
		<-hold
	}
	if sleepReal {
		time.Sleep(time.Duration(min(max(usec, 1), 1000)) * time.Microsecond)
	}
}

func (c *l07clock) config(procs int, forcePreempt time.Duration) Config {
	nanotime := c.now.Load
	if c.moving {
		nanotime = func() int64 { return c.now.Add(1) }
	}
	return Config{Procs: procs, ForcePreempt: forcePreempt, Usleep: c.usleep, Nanotime: nanotime}
}

// release lets sysmon out of sleep number n.
func (c *l07clock) release(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.released[n] {
		c.released[n] = true
		close(c.hold[n])
	}
}

func (c *l07clock) releaseAll() {
	c.mu.Lock()
	var ns []int
	for n := range c.hold {
		ns = append(ns, n)
	}
	c.mu.Unlock()
	for _, n := range ns {
		c.release(n)
	}
}

// awaitSleep waits until sysmon is in its held sleep number n.
func (c *l07clock) awaitSleep(t *testing.T, n int, what string) {
	t.Helper()
	select {
	case <-c.reached[n]:
	case <-time.After(10 * time.Second):
		t.Fatalf("sysmon never asked for its sleep #%d (Config.Usleep) within 10s (it asked for %d): %s%s", n, c.countNow(), what, kitHint(l07))
	}
}

// l07awaitRounds is c.awaitSleep(t, n, what) for a test with a G running
// from start to end, where sysmon must never sleep deeply: one that does
// (sched.sysmonwait set, and no sleep asked for in 100ms) fails at once,
// saying so, not after awaitSleep's 10s.
func l07awaitRounds(t *testing.T, c *l07clock, sched *schedt, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	last, since := c.countNow(), time.Now()
	for time.Now().Before(deadline) {
		select {
		case <-c.reached[n]:
			return
		case <-time.After(time.Millisecond):
		}
		if k := c.countNow(); k != last {
			last, since = k, time.Now()
			continue
		}
		if sched.sysmonwait.Load() && time.Since(since) > 100*time.Millisecond {
			t.Fatalf("sysmon went into its deep sleep (sched.sysmonwait) after %s, while a G was running: %s It sleeps deeply only when every P is idle (npidle == gomaxprocs) or the world is stopped%s", kitCount(int(last), "sleep"), what, kitHint(l07))
		}
	}
	c.awaitSleep(t, n, what)
}

// awaitCount waits until sysmon has asked for at least n sleeps.
func (c *l07clock) awaitCount(t *testing.T, n int, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for c.countNow() < n {
		if time.Now().After(deadline) {
			t.Fatalf("sysmon asked for %s (Config.Usleep) in 10s; waited for sleep #%d: %s%s", kitCount(int(c.countNow()), "sleep"), n, what, kitHint(l07))
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func (c *l07clock) countNow() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.count
}

func (c *l07clock) first(n int) []int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int64(nil), c.sleeps[:min(n, len(c.sleeps))]...)
}

// l07backoff is the sleeps sysmon asks for in n rounds in a row that retake
// nothing: 20µs while idle <= 50 (51 of them), then doubling, up to 10ms.
func l07backoff(n int) []int64 {
	var want []int64
	for i := 0; i < 51 && len(want) < n; i++ {
		want = append(want, 20)
	}
	for d := int64(40); len(want) < n; d *= 2 {
		want = append(want, min(d, 10000))
	}
	return want
}

// l07fmtSleeps shows a sequence of sleeps compactly: "20×51 40 80 ...".
func l07fmtSleeps(s []int64) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if j-i > 1 {
			fmt.Fprintf(&b, "%d×%d", s[i], j-i)
		} else {
			fmt.Fprintf(&b, "%d", s[i])
		}
		i = j
	}
	return b.String()
}

// l07checkSleeps fails unless got == want, naming the first difference.
func l07checkSleeps(t *testing.T, got, want []int64, rule string) {
	t.Helper()
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			g := "none"
			if i < len(got) {
				g = fmt.Sprintf("%dµs", got[i])
			}
			t.Fatalf("sysmon's sleep #%d was %s, want %dµs. %s\n  sleeps (µs): %s\n  want:        %s%s",
				i+1, g, want[i], rule, l07fmtSleeps(got), l07fmtSleeps(want), kitHint(l07))
		}
	}
}

// l07finish waits for every G of rt to finish, then closes rt. It reports
// a Runtime that does not finish within limit (and leaves it open: Close
// would hang too).
func l07finish(t *testing.T, rt *Runtime, limit time.Duration) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- rt.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Runtime.Wait: %v", err)
		}
		rt.Close()
	case <-time.After(limit):
		t.Errorf("the Gs did not all finish within %v after the test let them: a G never ran again, or an M never woke%s", limit, kitHint(l07))
	}
}

const l07backoffRule = "sysmon counts idle, the rounds in a row in which retake took no P; " +
	"each round sleeps 20µs while idle <= 50 (so 51 sleeps of 20µs), then doubles the sleep every round, up to 10ms (10000µs)"

// l07hogRun starts a Runtime with one P and the injected clock, and one G
// that makes a short syscall (so that the P's syscalltick is not 0) and
// then loops without a safe point until stop is set. sysmon is held in its
// first sleep until that G runs (so that it never sees every P idle), then
// runs freely up to its sleep #64, where it is held again.
func l07hogRun(t *testing.T, c *l07clock, forcePreempt time.Duration, stop *atomic.Bool, after func(g *G)) (*Runtime, *atomic.Pointer[G]) {
	t.Helper()
	return l07hogRunOn(t, c, 1, forcePreempt, stop, after)
}

// l07hogRunOn is l07hogRun on procs Ps: the others stay idle.
func l07hogRunOn(t *testing.T, c *l07clock, procs int, forcePreempt time.Duration, stop *atomic.Bool, after func(g *G)) (*Runtime, *atomic.Pointer[G]) {
	t.Helper()
	rt := New(c.config(procs, forcePreempt))
	var hog atomic.Pointer[G]
	running := make(chan struct{})
	rt.Go(func(g *G) {
		hog.Store(g)
		g.Syscall(func() {})
		close(running)
		for !stop.Load() {
		}
		if after != nil {
			after(g)
		}
	})
	t.Cleanup(func() {
		stop.Store(true)
		c.releaseAll()
		l07finish(t, rt, 10*time.Second)
	})
	select {
	case <-running:
	case <-time.After(10 * time.Second):
		t.Fatalf("test setup: the first G did not start within 10s")
	}
	// The other Ps settle idle before sysmon's rounds go on, so that
	// every round sees them idle (npidle == procs-1), not only some.
	if !l07await(10*time.Second, func() bool { return rt.sched.npidle.Load() == int32(procs-1) }) {
		t.Fatalf("test setup: with one G running on %d Ps, npidle did not settle at %d within 10s (it is %d)", procs, procs-1, rt.sched.npidle.Load())
	}
	c.release(1)
	return rt, &hog
}

// TestL07SysmonBackoff: with one G running (nothing to preempt or retake),
// sysmon's first 64 sleeps are 20µs ×51, then 40, 80, ... up to 10000µs.
//
// Both run twice: with a clock that moves only when sysmon sleeps, and
// with one that also moves a nanosecond at each read, as a real clock
// does (a twenty-sixth red team's sysmon let a preemption reset its
// back-off only when two reads in a row differed).
func TestL07SysmonBackoff(t *testing.T) {
	for _, moving := range []bool{false, true} {
		l07sysmonBackoff(t, 1, moving)
	}
	l07sysmonBackoff(t, 2, true)
	l07sysmonBackoff(t, 5, true) // one P busy of five: not every P is idle, so no deep sleep
}

func l07sysmonBackoff(t *testing.T, procs int, moving bool) {
	t.Helper()
	c := l07newClock(65, 1, 64)
	c.moving = moving
	var stop atomic.Bool
	rt, _ := l07hogRunOn(t, c, procs, time.Hour, &stop, nil)
	l07awaitRounds(t, c, rt.sched, 64, "a G is running on one P, so sysmon must keep sleeping and looking."+l07procsNote(procs))
	l07checkSleeps(t, c.first(64), l07backoff(64), l07backoffRule+"."+l07movingNote(moving)+l07procsNote(procs))
}

// l07procsNote is what a failure on more than one P adds.
func l07procsNote(procs int) string {
	if procs == 1 {
		return ""
	}
	return fmt.Sprintf(" Here on %d Ps, the others idle: sysmon sleeps deeply only when every P is idle (npidle == gomaxprocs), however many Ps there are (**new**: since December 2026 this test runs on 2 and on 5 Ps too).", procs)
}

// l07movingNote is what a failure with a moving clock adds.
func l07movingNote(moving bool) string {
	if !moving {
		return ""
	}
	return " The clock here moved a nanosecond at each read, and each sleep lasted 1 to 60µs longer than asked, as on a real one: the sleeps asked for must not depend on it (**new**: since late November 2026 this test runs with such a clock too; since December its sleeps oversleep)."
}

// TestL07SysmonPreemptionIsNotWork: the same, with ForcePreempt 100µs and a
// G that never reaches a safe point, so that sysmon preempts it every
// round: preemption must not reset the back-off.
func TestL07SysmonPreemptionIsNotWork(t *testing.T) {
	for _, moving := range []bool{false, true} {
		l07sysmonPreemptionIsNotWork(t, 1, moving)
	}
	l07sysmonPreemptionIsNotWork(t, 2, true)
}

func l07sysmonPreemptionIsNotWork(t *testing.T, procs int, moving bool) {
	t.Helper()
	c := l07newClock(65, 1, 64)
	c.moving = moving
	var stop atomic.Bool
	rt, hog := l07hogRunOn(t, c, procs, 100*time.Microsecond, &stop, nil)
	c.awaitSleep(t, 64, "a G is running on one P, so sysmon must keep sleeping and looking")
	gp := hog.Load()
	if !gp.preempt.Load() {
		t.Fatalf("G %d has run one time slice for over 10ms of the injected clock (Config.Nanotime), with ForcePreempt 100µs, and sysmon never set its preempt flag%s", gp.goid, kitHint(l07))
	}
	if pp := l07heldBy(rt, gp); pp == nil || !pp.preempt.Load() {
		t.Fatalf("sysmon set G %d's preempt flag but not its P's (pp.preempt)%s", gp.goid, kitHint(l07))
	}
	l07checkSleeps(t, c.first(64), l07backoff(64),
		"Here the only G never yields, and sysmon preempts it every round from the 6th on (ForcePreempt 100µs). Preempting is not work: retake returns only the number of Ps taken from syscalls, and only that resets idle. "+l07backoffRule+"."+l07movingNote(moving)+l07procsNote(procs))
}

// l07heldBy returns the P whose M runs gp, or nil.
func l07heldBy(rt *Runtime, gp *G) *p {
	for _, pp := range rt.sched.allp {
		if mp := pp.m.Load(); mp != nil && mp.curg.Load() == gp {
			return pp
		}
	}
	return nil
}

// TestL07SysmonRetakeResetsBackoff: sysmon has backed off to 10ms; the G
// enters a syscall with a G queued. The next round sees the syscall for
// the first time and takes nothing (the sleep stays 10ms); the round after
// takes the P, and the sleep after that is 20µs again.
func TestL07SysmonRetakeResetsBackoff(t *testing.T) {
	c := l07newClock(67, 1, 64)
	var stop atomic.Bool
	inSyscall := make(chan struct{})
	syscallDone := make(chan struct{})
	var closeDone sync.Once
	rt, hog := l07hogRun(t, c, time.Hour, &stop, func(g *G) {
		g.Go(func(g *G) {}) // work for the P while this G is in its syscall
		g.Syscall(func() {
			close(inSyscall)
			<-syscallDone
		})
	})
	// Registered after l07hogRun's: runs before it.
	t.Cleanup(func() { closeDone.Do(func() { close(syscallDone) }) })
	c.awaitSleep(t, 64, "a G is running on the only P, so sysmon must keep sleeping and looking")
	l07checkSleeps(t, c.first(64), l07backoff(64), l07backoffRule+".")
	stop.Store(true)
	select {
	case <-inSyscall:
	case <-time.After(10 * time.Second):
		t.Fatalf("test setup: G %d did not enter its syscall within 10s", hog.Load().goid)
	}
	pp := rt.sched.allp[0]
	if s := pp.status.Load(); s != _Psyscall || runqempty(pp) {
		t.Fatalf("test setup: P 0 is %s with an empty run queue %v; want _Psyscall with a G queued", pStatusString(s), runqempty(pp))
	}
	c.release(64)
	c.awaitCount(t, 66, "sysmon must keep going while a P is in a syscall")
	s := c.first(66)
	if s[64] != 10000 {
		t.Fatalf("sysmon's sleep #65 was %dµs, want 10000µs. In the round before it, sysmon saw G %d's syscall for the first time, and a first sighting only records the syscalltick: "+
			"it takes nothing, so sysmon was still idle and stays backed off.\n  sleeps (µs): %s%s", s[64], hog.Load().goid, l07fmtSleeps(s), kitHint(l07))
	}
	if s[65] != 20 {
		t.Fatalf("sysmon's sleep #66 was %dµs, want 20µs. In the round before it, sysmon's second sighting of the syscall (with a G queued) took the P: "+
			"retake returned 1, and a round that retakes a P resets idle to 0, so the next sleep is 20µs again.\n  sleeps (µs): %s%s", s[65], l07fmtSleeps(s), kitHint(l07))
	}
	closeDone.Do(func() { close(syscallDone) })
}

// TestL07SysmonDeepSleep: with every P idle, sysmon stops sleeping in
// rounds and sleeps deeply (sched.sysmonwait set, waiting on
// sched.sysmonnote). A syscall wakes it, and a wake by a syscall starts the
// back-off over: the next sleep is 20µs. A deep sleep that ends on its own
// (l07deepSleepTimesOut) does not.
func TestL07SysmonDeepSleep(t *testing.T) {
	c := l07newClock(65, 1, 64)
	var stop atomic.Bool
	rt, _ := l07hogRun(t, c, time.Hour, &stop, nil)
	sched := rt.sched
	c.awaitSleep(t, 64, "a G is running on the only P, so sysmon must keep sleeping and looking")
	l07checkSleeps(t, c.first(64), l07backoff(64), l07backoffRule+".")
	stop.Store(true) // the G returns; its P goes idle
	l07awaitIdle(t, sched)
	c.release(64)
	deadline := time.Now().Add(5 * time.Second)
	for !sched.sysmonwait.Load() {
		if time.Now().After(deadline) {
			t.Fatalf("every P has been idle for 5s, and sysmon has not gone into its deep sleep (it asked for %s in all). "+
				"When every P is idle (npidle == gomaxprocs) or the world is stopped, set sched.sysmonwait under sched.lock and sleep on sched.sysmonnote (notetsleep), "+
				"so that a syscall or startTheWorld can wake it%s", kitCount(int(c.countNow()), "sleep"), kitHint(l07))
		}
		time.Sleep(100 * time.Microsecond)
	}
	n := c.countNow()
	time.Sleep(20 * time.Millisecond)
	if m := c.countNow(); m != n {
		t.Fatalf("sysmon set sched.sysmonwait but went on sleeping in rounds (%d more sleeps in 20ms): in its deep sleep it waits on sched.sysmonnote only%s", m-n, kitHint(l07))
	}

	// A G enters a syscall: entersyscall sees sysmonwait and wakes sysmon.
	inSyscall := make(chan struct{})
	syscallDone := make(chan struct{})
	var closeDone sync.Once
	t.Cleanup(func() { closeDone.Do(func() { close(syscallDone) }) })
	rt.Go(func(g *G) {
		g.Syscall(func() {
			close(inSyscall)
			<-syscallDone
		})
	})
	select {
	case <-inSyscall:
	case <-time.After(10 * time.Second):
		t.Fatalf("test setup: the second G did not enter its syscall within 10s")
	}
	c.awaitCount(t, n+1, "a G entered a syscall, which wakes sysmon from its deep sleep (notewakeup on sysmonnote): sysmon must go back to its rounds")
	s := c.first(n + 1)
	if s[n] != 20 {
		t.Fatalf("sysmon's first sleep after a syscall woke it from its deep sleep was %dµs, want 20µs (it had backed off to 10000µs before). "+
			"notetsleep reports whether the note was woken; a wake by a syscall resets the back-off: idle = 0 and the sleep back to 20µs%s", s[n], kitHint(l07))
	}
	closeDone.Do(func() { close(syscallDone) })

	l07deepSleepTimesOut(t)
	l07deepSleepAfterResize(t)
}

// l07awaitIdle waits until the only P of sched is idle.
func l07awaitIdle(t *testing.T, sched *schedt) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for sched.npidle.Load() != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("test setup: the only P did not go idle within 10s after its G returned")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// l07deepSleepTimesOut is TestL07SysmonDeepSleep's other way out of the
// deep sleep: sysmon has backed off to 10ms, its only P goes idle, and a
// timer is due 5ms later (sched.timer0When; no G sleeps on it). sysmon
// sleeps deeply until then, and nothing wakes it: the sleep after is
// still 10ms, since only a wake by a syscall starts the back-off over.
func l07deepSleepTimesOut(t *testing.T) {
	t.Helper()
	c := l07newClock(66, 1, 64, 65)
	var stop atomic.Bool
	rt, _ := l07hogRun(t, c, time.Hour, &stop, nil)
	sched := rt.sched
	c.awaitSleep(t, 64, "a G is running on the only P, so sysmon must keep sleeping and looking")
	stop.Store(true) // the G returns; its P goes idle
	l07awaitIdle(t, sched)
	sched.timer0When.Store(c.now.Load() + int64(5*time.Millisecond)) // the clock stands still while sysmon is held
	c.release(64)
	c.awaitSleep(t, 65, "every P idle and a timer due in 5ms: sysmon sleeps deeply until the timer, then goes back to its rounds")
	sched.timer0When.Store(0) // the timer has run
	if s := c.first(65); s[64] != 10000 {
		t.Fatalf("sysmon had backed off to 10000µs; then every P went idle with a timer due in 5ms, and its deep sleep ended on its own when the timer's time came (nothing woke it). "+
			"Its next sleep was %dµs, want 10000µs: only a wake by a syscall starts the back-off over. notetsleep reports whether the note was woken (syscallWake); "+
			"a deep sleep that times out leaves idle and the sleep as they were.\n  sleeps (µs): %s%s", s[64], l07fmtSleeps(s), kitHint(l07))
	}
}

// TestL07SyscallHandoffSynctest: in a testing/synctest bubble (fake time,
// advancing only when every goroutine is blocked), a G blocks in a 1s
// syscall on the only P with another G queued. sysmon sees the syscall at
// 20µs, takes the P at 40µs, and the queued G runs then, long before 10ms.
func TestL07SyscallHandoffSynctest(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := New(Config{Procs: 1, ForcePreempt: time.Hour})
		defer rt.Close()
		var entered, ran atomic.Int64
		otherRan := make(chan struct{})
		rt.Go(func(g *G) {
			g.Go(func(g *G) {
				ran.Store(time.Now().UnixNano())
				close(otherRan)
			})
			g.Syscall(func() {
				entered.Store(time.Now().UnixNano())
				select {
				case <-otherRan:
				case <-time.After(time.Second):
				}
			})
		})
		if err := rt.Wait(); err != nil {
			t.Fatalf("Runtime.Wait: %v", err)
		}
		if ran.Load() == 0 {
			t.Fatalf("the queued G never ran")
		}
		if d := time.Duration(ran.Load() - entered.Load()); d > time.Millisecond {
			t.Fatalf("a G blocked in a 1s syscall on the only P with another G queued: the queued G ran %v after the syscall began (fake clock), want well under 1ms (about 40µs: two sysmon ticks). "+
				"Work in the P's run queue is reason enough to take the P on the second sighting; do not wait for the 10ms rule%s", d, kitHint(l07))
		}
	})
}

// TestL07HogIsPreempted: on one P, a G loops at safe points while the Gs it
// started wait in the P's run queue. Only preemption lets them run: sysmon
// must preempt the loop once its slice has lasted ForcePreempt (2ms).
func TestL07HogIsPreempted(t *testing.T) {
	const n = 20
	running := make(chan struct{})
	var first atomic.Bool
	rt := New(Config{Procs: 1, ForcePreempt: 2 * time.Millisecond, Usleep: func(usec int64) {
		// Hold sysmon until the G runs, so that it never sees every P
		// idle and goes into its deep sleep before there is work.
		if first.CompareAndSwap(false, true) {
			<-running
		}
		usleep(usec)
	}})
	var ran atomic.Int32
	var giveUp atomic.Bool
	allRan := make(chan struct{})
	var hogID atomic.Int64
	rt.Go(func(g *G) {
		hogID.Store(g.ID())
		for i := 0; i < n; i++ {
			g.Go(func(g *G) {
				if ran.Add(1) == n {
					close(allRan)
				}
			})
		}
		close(running)
		for ran.Load() < n && !giveUp.Load() {
			g.Safepoint()
		}
	})
	select {
	case <-allRan:
	case <-time.After(5 * time.Second):
		giveUp.Store(true)
		t.Errorf("G %d looped at safe points (Safepoint) on the only P for 5s while %s it started waited in the P's run queue; %d of them ran. "+
			"sysmon must preempt a G whose time slice has lasted ForcePreempt (2ms here): retake calls preemptone, which sets the running G's preempt flag, and Safepoint yields when it sees it%s",
			hogID.Load(), kitCount(int(n), "G"), ran.Load(), kitHint(l07))
	}
	l07finish(t, rt, 10*time.Second)
}

// TestL07SyscallLoopsFinish ports the runtime's TestPreemptionAfterSyscall:
// 8 Gs on 2 Ps loop over (empty) syscalls until told to stop. They can all
// start only if sysmon preempts or retakes; then they must all finish.
func TestL07SyscallLoopsFinish(t *testing.T) {
	const n = 8
	for iter := 0; iter < 3; iter++ {
		rt := New(Config{Procs: 2, ForcePreempt: 2 * time.Millisecond})
		var started atomic.Int32
		var stop atomic.Bool
		for i := 0; i < n; i++ {
			rt.Go(func(g *G) {
				started.Add(1)
				for !stop.Load() {
					g.Syscall(func() {})
				}
			})
		}
		deadline := time.Now().Add(5 * time.Second)
		for started.Load() < n && time.Now().Before(deadline) {
			time.Sleep(100 * time.Microsecond)
		}
		got := started.Load()
		stop.Store(true)
		if got < n {
			l07finish(t, rt, 10*time.Second)
			t.Fatalf("run %d: %s looping over Syscall on 2 Ps, and only %d had started after 5s: the running ones were never preempted, and their Ps never retaken%s", iter+1, kitCount(int(n), "G"), got, kitHint(l07))
		}
		l07finish(t, rt, 10*time.Second)
		if t.Failed() {
			return
		}
	}
}
