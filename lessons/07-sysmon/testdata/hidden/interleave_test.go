package sched

// Hidden tests of lesson 07-sysmon under the controlled scheduler
// (lessons/testdata/kit/interleave_test.go): sysmon's retake or preemptone
// in one thread, and in the other the M that owns the P, changing what
// sysmon reads (the P's status, its ticks, its M, the M's G) one atomic
// operation at a time, in orders PCT picks. retake's locks are never
// contended here: the M's side takes none.

import (
	"fmt"
	"testing"
	"time"
)

// l07Scenario is one race between sysmon and the P's M.
type l07Scenario struct {
	name  string
	steps int
	// run sets up a fresh scheduler, runs the two threads under the
	// controlled scheduler with seed and depth, and says what went wrong
	// ("" if nothing did). err is kitInterleave's (a panic, a hang).
	run func(t *testing.T, seed uint64, depth int) (problem string, err error)
}

// l07leaveSyscall is the M's side of the fast exit from a syscall
// (exitsyscallfast, then exitsyscall's tick): it wins its P back with a
// CAS, or loses it to retake. It never blocks: the caller makes sure no P
// is idle, so that exitsyscallfast does not go looking for one under
// sched.lock.
func l07leaveSyscall(mp *m, pp *p) bool {
	if !exitsyscallfast(mp, pp) {
		return false
	}
	mp.p.syscalltick.Add(1)
	return true
}

// l07enterSyscall is the M's side of entersyscall: the P goes _Psyscall
// with no M.
func l07enterSyscall(mp *m, pp *p) {
	mp.syscalltick = pp.syscalltick.Load()
	pp.m.Store(nil)
	mp.oldp = pp
	mp.p = nil
	pp.status.Store(_Psyscall)
}

// l07syscallM makes an M that is in a syscall on pp (as entersyscall
// leaves it: pp.m nil, mp.oldp pp).
func l07syscallM(sched *schedt, pp *p) *m {
	mp := kitNewM(sched)
	mp.oldp = pp
	mp.syscalltick = pp.syscalltick.Load()
	return mp
}

var l07Scenarios = []l07Scenario{
	{
		name:  "the M leaves its syscall while retake takes its P (second sighting, nobody idle or spinning)",
		steps: 40,
		run: func(t *testing.T, seed uint64, depth int) (string, error) {
			sched := kitSched(1, Config{NoSysmon: true, ForcePreempt: time.Hour})
			pp := l07syscallP(t, sched)
			mp := l07syscallM(sched, pp)
			ms := l07idleMs(sched)
			if n := retake(sched, l07t0); n != 0 {
				return fmt.Sprintf("the first sighting of the syscall returned %d, want 0", n), nil
			}
			var n uint32
			var won bool
			err := kitInterleave(seed, depth, 40,
				"sysmon", func() { n = retake(sched, l07t0+l07tick) },
				"the M", func() { won = l07leaveSyscall(mp, pp) })
			if err != nil {
				return "", err
			}
			switch {
			case won && n != 0:
				return fmt.Sprintf("the M leaving its syscall won P %d back (its CAS _Psyscall → _Pidle succeeded) and retake also took it (returned %d, gave it to %s): two owners. "+
					"Take the P only by CAS of its status from the _Psyscall you saw to _Pidle, and only if the CAS succeeds: the M leaving its syscall CASes the same status, and only one can win",
					pp.id, n, l07mName(ms.handed(pp))), nil
			case !won && n != 1:
				return fmt.Sprintf("the M leaving its syscall lost P %d, but retake returned %d: whoever changed the status from _Psyscall must have been retake", pp.id, n), nil
			case won && (ms.handed(pp) != nil || l07onIdleList(sched, pp) || pp.status.Load() != _Prunning):
				return fmt.Sprintf("the M leaving its syscall won P %d back, but afterwards the P is %s, handed to %s, on the idle list: %v: once the CAS is lost, retake must leave the P alone",
					pp.id, pStatusString(pp.status.Load()), l07mName(ms.handed(pp)), l07onIdleList(sched, pp)), nil
			case !won && ms.handed(pp) == nil:
				return fmt.Sprintf("retake took P %d but handed it to no M (handoffp)", pp.id), nil
			}
			if msg := l07idlelockedBack(sched, pp, won); msg != "" {
				return msg, nil
			}
			return "", nil
		},
	},
	{
		name:  "the P's M starts a new time slice while retake finds the old one over",
		steps: 20,
		run: func(t *testing.T, seed uint64, depth int) (string, error) {
			const fp = 3 * time.Millisecond
			sched := kitSched(1, Config{NoSysmon: true, ForcePreempt: fp})
			pp, _, gp := l07runningP(t, sched)
			if n := retake(sched, l07t0); n != 0 {
				return fmt.Sprintf("the first look at a running P returned %d, want 0", n), nil
			}
			now := l07t0 + int64(fp)
			err := kitInterleave(seed, depth, 20,
				"sysmon", func() { retake(sched, now) },
				"the M", func() { pp.schedtick.Add(1) }) // execute: a new slice
			if err != nil {
				return "", err
			}
			pd := pp.sysmontick
			old := pd.schedtick == 7 && pd.schedwhen == l07t0 && gp.preempt.Load() && pp.preempt.Load()
			fresh := pd.schedtick == 8 && pd.schedwhen == now && !gp.preempt.Load() && !pp.preempt.Load()
			if !old && !fresh {
				return fmt.Sprintf("P %d's slice (schedtick 7, recorded at t0) had lasted ForcePreempt when the M moved schedtick to 8, while retake looked. Afterwards sysmon's record is schedtick %d at %s, and G %d's preempt flag is %v. "+
					"Either retake read 7 (slice over: preempt, record unchanged) or 8 (a new slice: record 8 and now, no preemption). "+
					"Read pp.schedtick once (t := pp.schedtick.Load()) and use that value both to compare and to record",
					pp.id, pd.schedtick, l07at(pd.schedwhen), gp.goid, gp.preempt.Load()), nil
			}
			return "", nil
		},
	},
	{
		name:  "the P's G enters a syscall while retake looks at its new time slice",
		steps: 25,
		run: func(t *testing.T, seed uint64, depth int) (string, error) {
			sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
			pp, mp, _ := l07runningP(t, sched)
			pp.syscalltick.Store(1)
			err := kitInterleave(seed, depth, 25,
				"sysmon", func() { retake(sched, l07t0) },
				"the M", func() { l07enterSyscall(mp, pp) })
			if err != nil {
				return "", err
			}
			if pd := pp.sysmontick; pd.schedtick != 7 || pd.schedwhen != l07t0 {
				return fmt.Sprintf("P %d, running a new time slice (schedtick 7), went _Prunning → _Psyscall while retake looked; retake did not record the slice (sysmon's record: schedtick %d at %s). "+
					"Whichever status it saw, running or in a syscall, the slice is checked: read pp.status once (s := pp.status.Load()) and decide everything on s",
					pp.id, pd.schedtick, l07at(pd.schedwhen)), nil
			}
			return "", nil
		},
	},
	{
		name:  "the M leaves its syscall while retake first sees it",
		steps: 30,
		run: func(t *testing.T, seed uint64, depth int) (string, error) {
			sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
			pp, mp, _ := l07runningP(t, sched)
			pp.syscalltick.Store(1)
			l07enterSyscall(mp, pp)
			err := kitInterleave(seed, depth, 30,
				"sysmon", func() { retake(sched, l07t0) },
				"the M", func() { l07leaveSyscall(mp, pp) })
			if err != nil {
				return "", err
			}
			pd := pp.sysmontick
			if pd.syscalltick != 0 && pd.schedtick != 7 {
				return fmt.Sprintf("P %d (a new time slice, schedtick 7, in a syscall seen for the first time) went back to running while retake looked. retake recorded the syscall (syscalltick %d) "+
					"but not the time slice (sysmon's record: schedtick %d): it saw the P in a syscall for one check and not for the other. "+
					"Read pp.status once (s := pp.status.Load()) and decide both checks on s",
					pp.id, pd.syscalltick, pd.schedtick), nil
			}
			return "", nil
		},
	},
	{
		name:  "the M returns from its syscall and makes another while retake looks again",
		steps: 40,
		run: func(t *testing.T, seed uint64, depth int) (string, error) {
			sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
			pp := l07syscallP(t, sched)
			mp := l07syscallM(sched, pp)
			if n := retake(sched, l07t0); n != 0 {
				return fmt.Sprintf("the first sighting of the syscall returned %d, want 0", n), nil
			}
			now := l07t0 + l07tick
			err := kitInterleave(seed, depth, 40,
				"sysmon", func() { retake(sched, now) },
				"the M", func() {
					if l07leaveSyscall(mp, pp) {
						l07enterSyscall(mp, pp)
					}
				})
			if err != nil {
				return "", err
			}
			pd := pp.sysmontick
			if !(pd.syscalltick == 1 && pd.syscallwhen == l07t0) && !(pd.syscalltick == 2 && pd.syscallwhen == now) {
				return fmt.Sprintf("P %d's syscall (syscalltick 1, first seen at t0, nothing queued, another P idle) ended and another began (syscalltick 2) while retake looked. "+
					"Afterwards sysmon's record is syscalltick %d at %s; want 1 at t0 (retake saw the old call: too young to take) or 2 at %s (a first sighting of the new one). "+
					"Read pp.syscalltick once (t := pp.syscalltick.Load()) and use that value both to compare and to record",
					pp.id, pd.syscalltick, l07at(pd.syscallwhen), l07at(now)), nil
			}
			return "", nil
		},
	},
	{
		name:  "an M takes the P retake handed off, and its G makes a syscall",
		steps: 60,
		run: func(t *testing.T, seed uint64, depth int) (string, error) {
			sched := kitSched(2, Config{NoSysmon: true, ForcePreempt: time.Hour})
			pp := l07syscallP(t, sched)
			runqput(pp, kitG(sched, 1), false)
			ms := l07idleMs(sched)
			if n := retake(sched, l07t0); n != 0 {
				return fmt.Sprintf("the first sighting of the syscall returned %d, want 0", n), nil
			}
			seen, got := uint32(0), false
			err := kitInterleave(seed, depth, 60,
				"sysmon", func() { retake(sched, l07t0+l07tick) },
				"the M it wakes", func() {
					// Wait for the P (startm's mp.nextp), as the woken M
					// would; then its G enters a syscall at once.
					for i := 0; i < 100000 && !got; i++ {
						pp.status.Load()
						got = ms.handed(pp) != nil
					}
					if got {
						seen = pp.syscalltick.Load()
					}
				})
			if err != nil {
				return "", err
			}
			if !got {
				return fmt.Sprintf("retake never handed P %d (second sighting, G 1 queued) to an M", pp.id), nil
			}
			if seen != 2 {
				return fmt.Sprintf("the M that retake handed P %d to read its syscalltick as %d, want 2: retake bumped the tick (1 → 2) only after handoffp. "+
					"Once handed off, the P belongs to that M, whose G may enter a syscall at once: bump pp.syscalltick before handoffp(pp)",
					pp.id, seen), nil
			}
			return "", nil
		},
	},
}

// l07mName names an M of the tests, or "none".
func l07mName(mp *m) string {
	if mp == nil {
		return "no M"
	}
	return fmt.Sprintf("M %d", mp.id)
}

// l07inline runs a (retake, say) on the calling goroutine and, just before
// its k-th atomic operation, for each k in segs, runs segs[k] there too, as
// if another thread ran that far between two of a's operations. The
// segments must not block. Segments placed after a's last operation run
// after a, in order. It returns how many operations a made.
func l07inline(a func(), segs map[int]func()) int {
	me := kitGoid()
	n, busy := 0, false
	old := setInterleaveHook(func() {
		if busy || kitGoid() != me {
			return
		}
		n++
		if f := segs[n]; f != nil {
			busy = true
			f()
			busy = false
		}
	})
	a()
	setInterleaveHook(old)
	ops := n
	for k := n + 1; k <= n+len(segs)+1; k++ {
		if f := segs[k]; f != nil {
			f()
		}
	}
	return ops
}

// l07enterLeave runs retake on a P whose slice is over with a G queued,
// while its G enters a syscall just before retake's operation k and leaves
// it just before operation j (k <= j): every placement of the two, one by
// one. It says what went wrong, or "".
func l07enterLeave(t *testing.T) string {
	const fp = 3 * time.Millisecond
	try := func(k, j int) (ops int, problem string) {
		sched := kitSched(1, Config{NoSysmon: true, ForcePreempt: fp})
		pp, mp, _ := l07runningP(t, sched)
		pp.syscalltick.Store(1)
		runqput(pp, kitG(sched, 1), false)
		ms := l07idleMs(sched)
		if n := retake(sched, l07t0); n != 0 {
			return 0, fmt.Sprintf("the first look at a running P returned %d, want 0", n)
		}
		var n uint32
		var won bool
		segs := map[int]func(){}
		if k > 0 {
			enter := func() { l07enterSyscall(mp, pp) }
			leave := func() { won = l07leaveSyscall(mp, pp) }
			if k == j {
				segs[k] = func() { enter(); leave() }
			} else {
				segs[k], segs[j] = enter, leave
			}
		}
		ops = l07inline(func() { n = retake(sched, l07t0+int64(fp)) }, segs)
		if won && n != 0 {
			return ops, fmt.Sprintf("P %d's G entered a syscall just before retake's atomic operation %d and left it, winning its P back (the M's CAS _Psyscall → _Pidle succeeded: it runs the P again), just before operation %d; "+
				"yet retake also took the P (returned %d, gave it to %s): two owners of a running P. "+
				"Read pp.status once (s := pp.status.Load()), go on to the syscall checks only if s is _Psyscall, and CAS from that s",
				pp.id, k, j, n, l07mName(ms.handed(pp)))
		}
		return ops, ""
	}
	total, msg := try(0, 0)
	if msg != "" {
		return msg
	}
	for k := 1; k <= total+1; k++ {
		for j := k; j <= total+1; j++ {
			if _, msg := try(k, j); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// l07idlelockedBack says what is wrong if sched.nmidlelocked is not back
// to 0 after retake, "" if it is. won: the M leaving its syscall won the P
// back, so retake's CAS failed.
func l07idlelockedBack(sched *schedt, pp *p, won bool) string {
	sched.lock.Lock()
	n := sched.nmidlelocked
	sched.lock.Unlock()
	if n == 0 {
		return ""
	}
	what := fmt.Sprintf("retake took P %d", pp.id)
	if won {
		what = fmt.Sprintf("the M leaving its syscall won P %d back first (its CAS _Psyscall → _Pidle), so retake's CAS failed", pp.id)
	}
	return fmt.Sprintf("%s; afterwards sched.nmidlelocked is %d, want 0. retake calls sched.incidlelocked(-1) before its CAS and sched.incidlelocked(1) after it, whatever the CAS did. "+
		"Left at %d, checkdead's count of running Ms (mcount - nmidle - nmidlelocked - nmsys) is off by %d for good: a deadlock later in the program goes unreported (Wait hangs), or checkdead panics on inconsistent counts",
		what, n, n, -n)
}

// l07leaveDuringTake runs retake on a P worth taking (second sighting of
// its syscall, nobody idle or spinning) while the P's M leaves its syscall
// just before retake's atomic operation k, for every k: whoever wins the
// status CAS owns the P, and nmidlelocked is back to 0 whoever won. It says
// what went wrong, or "".
func l07leaveDuringTake(t *testing.T) string {
	try := func(k int) (ops int, problem string) {
		sched := kitSched(1, Config{NoSysmon: true, ForcePreempt: time.Hour})
		pp := l07syscallP(t, sched)
		mp := l07syscallM(sched, pp)
		ms := l07idleMs(sched)
		if n := retake(sched, l07t0); n != 0 {
			return 0, fmt.Sprintf("the first sighting of the syscall returned %d, want 0", n)
		}
		var n uint32
		var won bool
		segs := map[int]func(){}
		if k > 0 {
			segs[k] = func() { won = l07leaveSyscall(mp, pp) }
		}
		ops = l07inline(func() { n = retake(sched, l07t0+l07tick) }, segs)
		where := fmt.Sprintf("P %d's M left its syscall just before retake's atomic operation %d", pp.id, k)
		if k > ops {
			where = fmt.Sprintf("P %d's M left its syscall after retake returned", pp.id)
		}
		switch {
		case k == 0 && n != 1:
			return ops, fmt.Sprintf("second sighting of P %d's syscall, nobody idle or spinning, and retake returned %d, want 1", pp.id, n)
		case won && n != 0:
			return ops, fmt.Sprintf("%s and won its P back, yet retake also took it (returned %d, gave it to %s): two owners. Take the P only if your CAS of its status from _Psyscall to _Pidle succeeds",
				where, n, l07mName(ms.handed(pp)))
		}
		if msg := l07idlelockedBack(sched, pp, won); msg != "" {
			return ops, where + ": " + msg
		}
		return ops, ""
	}
	total, msg := try(0)
	if msg != "" {
		return msg
	}
	for k := 1; k <= total+1; k++ {
		if _, msg := try(k); msg != "" {
			return msg
		}
	}
	return ""
}

// TestL07RetakeInterleavings runs retake against the M that owns the P,
// one atomic operation at a time, in orders a controlled scheduler picks,
// and, for a G entering and leaving a syscall and for an M leaving its
// syscall while retake takes its P, in every placement: every outcome must
// be one that some order of whole reads allows, and nmidlelocked is back to
// 0 whoever won the P.
func TestL07RetakeInterleavings(t *testing.T) {
	if msg := l07enterLeave(t); msg != "" {
		t.Fatalf("the G enters a syscall and leaves it while retake looks at its P (slice over, a G queued): %s%s", msg, kitHint(l07))
	}
	if msg := l07leaveDuringTake(t); msg != "" {
		t.Fatalf("the M leaves its syscall while retake takes its P (second sighting, nobody idle or spinning): %s%s", msg, kitHint(l07))
	}
	seeds := uint64(60)
	if testing.Short() {
		seeds = 15
	}
	for _, sc := range l07Scenarios {
		for depth := 1; depth <= 3; depth++ {
			for _, seed := range kitSeeds(seeds) {
				msg, err := sc.run(t, seed, depth)
				if err != nil {
					msg = err.Error()
				}
				if msg != "" {
					t.Fatalf("%s, in the interleaving of seed %d (depth %d): %s%s%s", sc.name, seed, depth, msg, kitReplay(t, l07, seed), kitHint(l07))
				}
			}
		}
	}
}

// TestL07PreemptoneInterleavings runs preemptone while the P's M changes
// what it reads (pp.m, then m.curg): preemptone must follow one snapshot
// of the chain P → M → G, never reading a link twice.
func TestL07PreemptoneInterleavings(t *testing.T) {
	seeds := uint64(60)
	if testing.Short() {
		seeds = 15
	}
	type race struct {
		name  string
		setup func(pp *p, mp *m)
		m     func(pp *p, mp *m, gp *g)
	}
	races := []race{
		{"the P's G stops and its M lets the P go",
			func(pp *p, mp *m) {},
			func(pp *p, mp *m, gp *g) {
				mp.curg.Store(nil) // dropg
				pp.m.Store(nil)    // releasep
				pp.status.Store(_Pidle)
			}},
		{"an M takes the P and starts a G",
			func(pp *p, mp *m) { mp.curg.Store(nil); pp.m.Store(nil); pp.status.Store(_Pidle) },
			func(pp *p, mp *m, gp *g) {
				pp.m.Store(mp) // acquirep
				pp.status.Store(_Prunning)
				mp.curg.Store(gp) // execute
			}},
	}
	for _, r := range races {
		for depth := 1; depth <= 3; depth++ {
			for _, seed := range kitSeeds(seeds) {
				sched := kitSched(1, Config{NoSysmon: true})
				var rec Recorder
				sched.trace = rec.Record
				pp, mp, gp := l07runningP(t, sched)
				r.setup(pp, mp)
				var ok bool
				err := kitInterleave(seed, depth, 8,
					"preemptone", func() { ok = preemptone(pp) },
					"the M", func() { r.m(pp, mp, gp) })
				msg := ""
				evs := rec.Events()
				switch {
				case err != nil:
					msg = err.Error() + ": preemptone read a link of P → M → G again after checking it, and found it changed (nil). Load pp.m once into mp and mp.curg once into gp, check each for nil, and use only mp and gp after"
				case ok && (!gp.preempt.Load() || !pp.preempt.Load()):
					msg = fmt.Sprintf("preemptone returned true but G %d's preempt flag is %v and the P's %v", gp.goid, gp.preempt.Load(), pp.preempt.Load())
				case !ok && (gp.preempt.Load() || pp.preempt.Load()):
					msg = fmt.Sprintf("preemptone returned false but set a preempt flag (G: %v, P: %v)", gp.preempt.Load(), pp.preempt.Load())
				case ok && (len(evs) != 1 || evs[0].G != gp.goid || evs[0].M != mp.id):
					msg = fmt.Sprintf("preemptone returned true and emitted %v; want one EvSysmonPreempt naming G %d and M %d, the G and M it flagged", evs, gp.goid, mp.id)
				case !ok && len(evs) != 0:
					msg = fmt.Sprintf("preemptone returned false and emitted %v", evs)
				}
				if msg != "" {
					t.Fatalf("%s while preemptone looked at P %d (M %d running G %d), in the interleaving of seed %d (depth %d): %s%s%s",
						r.name, pp.id, mp.id, gp.goid, seed, depth, msg, kitReplay(t, l07, seed), kitHint(l07))
				}
			}
		}
	}
}
