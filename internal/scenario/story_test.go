package scenario

import (
	"errors"
	"slices"
	"testing"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
	"github.com/stretchr/testify/require"
)

// TestStories runs every scenario as the book draws it (RunStory, Tries
// runs at most) and checks that the run bears out what its caption says.
// The Ms are real threads: run it with -count=30, and with the machine's
// other cores busy, before trusting a change to a scenario. Measured on 2
// cores shared with other programs (load about 2.5), 20 single runs of
// each scenario: every first run bore out its story; with one core also
// kept busy by yes, all but one run of overflow and one of hog did.
func TestStories(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			r, w, err := RunStory(s, 0, 1, Tries)
			require.NoError(t, err, "%d runs in a row did not show what the caption says", Tries)
			t0, t1 := r.Events[0].When, r.Events[len(r.Events)-1].When
			if !w.IsZero() {
				require.True(t, t0 <= w.From && w.From < w.To && w.To <= t1, "window %v outside the run [%d, %d]", w, t0, t1)
			}
		})
	}
}

// TestStoryWindows: the syscall picture opens on the call's start, the
// steal, the retake and the hand-off, and ends before the call does;
// every other picture opens on the whole run, which is what its caption
// is about. (It asked for less than half the run, once: a retake late in
// the call, which sysmon may make after 10ms, put the window past half.)
func TestStoryWindows(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			r, w, err := RunStory(s, 0, 1, Tries)
			require.NoError(t, err)
			if s.Name != "syscall" {
				require.True(t, w.IsZero(), "the %s picture should open on the whole run, not %v", s.Name, w)
				return
			}
			t0, t1 := r.Events[0].When, r.Events[len(r.Events)-1].When
			require.Equal(t, t0, w.From, "the syscall picture opens at the start")
			call, retake := *firstOf(r, sched.EvGoSyscall), *firstOf(r, sched.EvSysmonRetake)
			exit := *firstOf(r, sched.EvGoSyscallExit)
			require.Less(t, w.To, t1, "the syscall picture opens on part of the run")
			require.LessOrEqual(t, w.To, exit.When, "the syscall picture ends by the call's end, not on the whole call")
			for _, ev := range []sched.Event{call, retake, *firstOf(r, sched.EvSteal)} {
				require.LessOrEqual(t, ev.When, w.To, "%v happens after the window", ev)
			}
			// The hand-off: the first G another M ran on the retaken P.
			var handoff sched.Event
			for _, ev := range r.Events {
				if ev.When > retake.When && ev.P == call.P && ev.M != call.M && ev.Kind == sched.EvGoStart {
					handoff = ev
					break
				}
			}
			require.NotZero(t, handoff.Kind)
			require.Less(t, handoff.When, w.To, "the hand-off is in the window")
			require.Less(t, w.To-handoff.When, (w.To-w.From)/4, "and the window ends soon after it")
		})
	}
}

// TestStoriesCatchRunsThatDoNotBearThemOut breaks a good run of each
// scenario in one way at a time and checks that its story says so: every
// check can fail.
func TestStoriesCatchRunsThatDoNotBearThemOut(t *testing.T) {
	drop := func(keep func(ev sched.Event) bool) func(*Result) {
		return func(r *Result) {
			r.Events = slices.DeleteFunc(r.Events, func(ev sched.Event) bool { return !keep(ev) })
		}
	}
	cases := []struct {
		scenario, what string
		breakRun       func(*Result)
		want           string
	}{
		{"imbalance", "P3 ran nothing", drop(func(ev sched.Event) bool { return ev.P != 3 }), "P3 never ran a G"},
		{"imbalance", "P2 never stole", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvSteal || ev.P != 2 }), "P2 ran Gs but never stole"},
		{"imbalance", "a ring overflowed", func(r *Result) {
			r.Events = append(r.Events, sched.Event{Kind: sched.EvGlobalRunq, When: r.Events[len(r.Events)-1].When, G: 7, P: -1, M: -1, Arg: 129, N: 129})
		}, "129 Gs went to the global run queue at once"},
		{"imbalance", "G1 started on P2", func(r *Result) { firstOf(r, sched.EvGoStart).P = 2 }, "G1 started on P2"},
		{"overflow", "G1 started on P1", func(r *Result) { firstOf(r, sched.EvGoStart).P = 1 }, "G1 started on P1"},
		{"hog", "the hog ran first", func(r *Result) {
			// Swap the hog's first start and its end of span with those of the
			// G that ran first: enough to make another G run first.
			for i := range r.Events {
				if ev := &r.Events[i]; ev.Kind == sched.EvGoStart && ev.G != 1 {
					ev.G = firstOf(r, sched.EvGoPreempt).G
					break
				}
			}
		}, "ran first, not the last G created"},
		{"pingpong", "the pair moved", func(r *Result) { lastOf(r, sched.EvGoStart).P ^= 1 }, "the pair should stay on"},
		{"pingpong", "a start from the ring", func(r *Result) { lastOf(r, sched.EvGoStart).Arg = 0 }, "without inheriting the time slice"},
		{"overflow", "no overflow", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvGlobalRunq || ev.N != 129 }), "never overflowed"},
		{"overflow", "no batch", func(r *Result) {
			prevPop := false
			drop(func(ev sched.Event) bool {
				if ev.Kind != sched.EvGlobalRunq {
					return true
				}
				keep := ev.N > 0 || !prevPop
				prevPop = ev.N < 0
				return keep
			})(r)
		}, "no P took a batch"},
		{"burst", "nobody woke", func(r *Result) { noHelpers(r) }, "no M woke to look for the work"},
		{"burst", "sysmon never slept", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvSysmonSleep }), "sysmon never slept deeply"},
		{"burst", "an M kept its P", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvProcStop }), "some M kept its P"},
		{"syscall", "no retake", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvSysmonRetake }), "sysmon did not retake"},
		{"syscall", "a retake nobody took up", func(r *Result) { noHandoffRuns(r) }, "ran no G on it"},
		{"syscall", "no steal", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvSteal }), "no M stole"},
		{"hog", "one preemption", func(r *Result) {
			first := *firstOf(r, sched.EvGoPreempt)
			drop(func(ev sched.Event) bool { return ev.Kind != sched.EvGoPreempt || ev == first })(r)
		}, "preempted once"},
		{"hog", "a short slice", func(r *Result) {
			// The hog's first run starts just before its preemption.
			pre := firstOf(r, sched.EvGoPreempt)
			for i := range r.Events {
				if ev := &r.Events[i]; ev.Kind == sched.EvGoStart && ev.G == pre.G {
					ev.When = pre.When - int64(time.Millisecond)
					break
				}
			}
		}, "was preempted after 1ms"},
		{"resize", "nothing moved", func(r *Result) {
			stopped := false
			drop(func(ev sched.Event) bool {
				stopped = ev.Kind == sched.EvStopTheWorld || stopped && ev.Kind != sched.EvStartTheWorld
				return !stopped || ev.Kind != sched.EvGlobalRunq
			})(r)
		}, "moved no G"},
		{"resize", "P3 ran with 2 Ps", func(r *Result) {
			var at int64
			for _, ev := range r.Events {
				if ev.Kind == sched.EvResize && ev.Arg == 2 {
					at = ev.When
				}
			}
			r.Events = append(r.Events, sched.Event{Kind: sched.EvGoStart, When: at + 1, G: 5, P: 3, M: 1})
			slices.SortStableFunc(r.Events, func(a, b sched.Event) int { return int(a.When - b.When) })
		}, "ran on P3 while GOMAXPROCS was 2"},
		{"resize", "nobody asked to yield", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvSysmonPreempt }), "no G asked to yield"},
		{"resize", "P2 and P3 did not steal", drop(func(ev sched.Event) bool { return ev.Kind != sched.EvSteal || ev.P < 2 }), "neither P2 nor P3 stole"},
		{"deadlock", "no deadlock", func(r *Result) { r.Err = nil }, "not a deadlock"},
	}
	good := map[string]*Result{}
	for _, c := range cases {
		t.Run(c.scenario+"/"+c.what, func(t *testing.T) {
			s, err := Lookup(c.scenario)
			require.NoError(t, err)
			if good[c.scenario] == nil {
				r, _, err := RunStory(s, 0, 1, Tries)
				require.NoError(t, err)
				good[c.scenario] = r
			}
			r := *good[c.scenario]
			r.Events = slices.Clone(r.Events)
			c.breakRun(&r)
			_, err = s.Check(&r)
			require.ErrorContains(t, err, c.want)
		})
	}
}

// TestRunStoryTriesAgain: RunStory runs again when a run does not bear
// out the story, up to tries times, and says why the last one did not.
func TestRunStoryTriesAgain(t *testing.T) {
	s, err := Lookup("deadlock")
	require.NoError(t, err)
	runs := 0
	s.Story = func(r *Result) (Window, error) {
		runs++
		if runs < 3 {
			return Window{}, errors.New("not this time")
		}
		return Window{From: 1, To: 2}, nil
	}
	r, w, err := RunStory(s, 0, 1, 3)
	require.NoError(t, err)
	require.NotNil(t, r)
	require.Equal(t, Window{From: 1, To: 2}, w)
	require.Equal(t, 3, runs)

	runs = 0
	r, w, err = RunStory(s, 0, 1, 2)
	require.ErrorContains(t, err, "scenario deadlock: not this time")
	require.NotNil(t, r, "the last run comes back with the error, to be drawn anyway")
	require.True(t, w.IsZero())
	require.Equal(t, 2, runs)
}

func firstOf(r *Result, kind sched.EventKind) *sched.Event {
	for i := range r.Events {
		if r.Events[i].Kind == kind {
			return &r.Events[i]
		}
	}
	panic("no " + kind.String())
}

func lastOf(r *Result, kind sched.EventKind) *sched.Event {
	for i := len(r.Events) - 1; i >= 0; i-- {
		if r.Events[i].Kind == kind {
			return &r.Events[i]
		}
	}
	panic("no " + kind.String())
}

// noHelpers drops every M's taking a P or spinning in the third burst.
func noHelpers(r *Result) {
	var from, to int64
	n := 0
	for _, ev := range r.Events {
		if ev.Kind == sched.EvGoCreate && ev.Arg == 1 {
			n++
			switch n {
			case 25:
				from = ev.When
			case 37:
				to = ev.When
			}
		}
	}
	r.Events = slices.DeleteFunc(r.Events, func(ev sched.Event) bool {
		return ev.When >= from && ev.When < to && (ev.Kind == sched.EvProcStart || ev.Kind == sched.EvSpinStart)
	})
}

// noHandoffRuns drops the Gs that ran on the syscall's P while the call
// went on.
func noHandoffRuns(r *Result) {
	call := *firstOf(r, sched.EvGoSyscall)
	exit := *firstOf(r, sched.EvGoSyscallExit)
	r.Events = slices.DeleteFunc(r.Events, func(ev sched.Event) bool {
		return ev.Kind == sched.EvGoStart && ev.P == call.P && ev.When > call.When && ev.When < exit.When
	})
}
