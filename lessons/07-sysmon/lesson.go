// Package sysmon is lesson 07: sysmon, the system monitor, which preempts
// long-running Gs and takes Ps back from system calls.
package sysmon

import (
	"embed"
	"time"

	"github.com/gmp-kata/gmp-kata/lessons"
)

//go:embed task.md chapter.md hints api.txt testdata
var content embed.FS

func init() {
	lessons.Register(lessons.Content(content, &lessons.Lesson{
		ID:      "07-sysmon",
		Title:   "sysmon: preemption and syscall retake",
		Files:   []string{"sysmon.go"},
		Prereqs: []string{"04-findrunnable"},
		Quiz:    quizKinds,
		Tests: []lessons.Test{
			{Name: "TestL07RetakeSyscallWithWork", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a P in a syscall with a G queued (ring or runnext) is taken on the second sighting, not the first, and handed to an M"},
			{Name: "TestL07RetakeSyscallNobodyIdle", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "with no P idle and no M spinning, a P in a syscall is taken on the second sighting even with nothing queued"},
			{Name: "TestL07RetakeSyscallLongCall", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact,
				About: "with nothing queued and a P idle or an M spinning, a P stays in its syscall until it has lasted 10ms, then goes idle"},
			{Name: "TestL07RetakeNewSyscallIsFirstSighting", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a new syscalltick is a first sighting again, and retake bumps the tick of a P it takes"},
			{Name: "TestL07RetakePreemptsLongSlice", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a G is preempted once one time slice (same schedtick) has lasted ForcePreempt; preemption is not counted as a retake"},
			{Name: "TestL07RetakeSyscallAfterLongSlice", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a P found in a syscall when its time slice is over is taken without waiting for a second sighting"},
			{Name: "TestL07Preemptone", Points: 3, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "preemptone sets the running G's and the P's preempt flags and reports whether there was a G"},
			{Name: "TestL07SysmonBackoff", Points: 4, Timeout: 20 * time.Second, Kind: lessons.Timing,
				About: "with nothing to do, sysmon sleeps 20µs 51 times, then doubles the sleep each round up to 10ms"},
			{Name: "TestL07SysmonPreemptionIsNotWork", Points: 4, Timeout: 20 * time.Second, Kind: lessons.Timing,
				About: "preempting a G every round does not reset sysmon's back-off"},
			{Name: "TestL07SysmonRetakeResetsBackoff", Points: 4, Timeout: 20 * time.Second, Kind: lessons.Timing,
				About: "taking a P from a syscall resets the sleep to 20µs; the first sighting does not"},
			{Name: "TestL07SysmonDeepSleep", Points: 4, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "with every P idle (as many as gomaxprocs is now) sysmon sleeps deeply on sysmonnote; a syscall wakes it and resets its back-off, a deep sleep that times out does not"},
			{Name: "TestL07SyscallHandoffSynctest", Points: 4, Timeout: 20 * time.Second, Kind: lessons.Timing,
				About: "under synctest's fake clock, a G queued behind a 1s syscall runs within two sysmon ticks"},
			{Name: "TestL07HogIsPreempted", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Stress,
				About: "a G looping at safe points on the only P is preempted, so the 20 Gs queued behind it run"},
			{Name: "TestL07SyscallLoopsFinish", Points: 3, Timeout: 60 * time.Second, Kind: lessons.Stress,
				About: "8 Gs looping over syscalls on 2 Ps all start and finish (the runtime's TestPreemptionAfterSyscall)"},
			{Name: "TestL07RetakeBookkeeping", Points: 4, Timeout: 10 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "a nil slot in allp is skipped; taking a P leaves nmidlelocked 0, moves syscalltick by one and emits one EvSysmonRetake; preemptone's EvSysmonPreempt"},
			{Name: "TestL07RetakeLockOrder", Points: 3, Timeout: 20 * time.Second, Kind: lessons.Stress,
				About: "retake takes Ps over and over while another thread takes sched.lock then allpLock, as procresize does: no deadlock"},
			{Name: "TestL07RetakeInterleavings", Points: 4, Timeout: 60 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "retake against the P's M, one atomic operation at a time: the CAS on a syscall exit (nmidlelocked back to 0 whoever wins), status and ticks read once, the tick bumped before the hand-off"},
			{Name: "TestL07PreemptoneInterleavings", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Exact, Serial: true,
				About: "preemptone while the P's M changes pp.m and m.curg: each link read once, the G flagged the one reported"},
			{Name: "TestL07Explore", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Stress, Serial: true,
				About: "sysmon's way into the deep sleep against an M that takes an idle P and enters a syscall, and retake against the M leaving its syscall and the M it hands the P to, in EVERY order with at most two preemptions, sched.lock included: no lost wake-up of sysmon, one owner of the P, its tick bumped before the hand-off, an end state the reference reaches"},
			{Name: "TestL07SysmonDeepSleepTimer", Points: 5, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "the deep sleep lasts 60s at most, or until the next timer, none when a timer is due; EvSysmonSleep says how long; sysmonwait and the note cleared after it; Close"},
			{Name: "TestL07SysmonDeepSleepRecheck", Points: 4, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "a P that comes back to life (its G entering a syscall) between sysmon's check that every P is idle and its taking sched.lock is seen by the check again under the lock: no deep sleep"},
			{Name: "TestL07SysmonWaitSetUnderLock", Points: 4, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "an M taking the idle P (under sched.lock) just before each of sysmon's atomic operations on its way to the deep sleep still wakes it: sysmonwait is set before sched.lock is released"},
			{Name: "TestL07SysmonWakeReadsClock", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "woken after the clock moved on, sysmon judges a syscall by the clock read after the sleep, and starts its back-off over"},
			{Name: "TestL07SysmonTimeoutReadsClock", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "a deep sleep that ends at its timeout (nobody woke sysmon) while the clock moved on: the next time slice is judged by the clock read after the sleep"},
			{Name: "TestL07SysmonLongIdle", Points: 3, Timeout: 30 * time.Second, Kind: lessons.Timing,
				About: "with a G running and nothing to do, the back-off holds over 300 rounds: 20µs ×51, doubling, then 10ms every round"},
			{Name: "TestL07Differential", Points: 6, Timeout: 30 * time.Second, Kind: lessons.Exact,
				About: "on 300 generated states, retake, preemptone and up to 65,536 sysmon rounds do what the reference's do: same Ps taken and preempted, ticks, sysmontick, Ms started, idle list, trace and sleeps"},
		},
	}))
}
