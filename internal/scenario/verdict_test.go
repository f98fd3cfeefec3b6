package scenario

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
	"github.com/stretchr/testify/require"
)

// TestVerdictReference: the reference never breaks what every correct
// scheduler keeps, in 20 runs of every scenario on real threads (5 with
// -short): no G lost, none run twice, no story claim marked must broken.
func TestVerdictReference(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 5
	}
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			var idle []time.Duration
			for i := range runs {
				r, err := Run(s, 0, uint64(i+1))
				require.NoError(t, err)
				v := Judge(r, false)
				var b bytes.Buffer
				PrintVerdict(&b, v)
				require.False(t, v.Broken(), "run %d of the reference:\n%s", i+1, b.String())
				require.Positive(t, v.Gs)
				if s.WantDeadlock {
					require.Contains(t, b.String(), "left parked by the deadlock", "a deadlock's Gs do not end")
				} else {
					require.Contains(t, b.String(), "every G ran to its end exactly once")
				}
				idle = append(idle, v.Idle)
			}
			slices.Sort(idle)
			t.Logf("idle beside work over %d runs: median %v, max %v", runs, idle[len(idle)/2], idle[len(idle)-1])
		})
	}
}

// ev is an event for the constructed runs below.
func ev(when int64, kind sched.EventKind, g int64, p int32) sched.Event {
	return sched.Event{When: when, Kind: kind, G: g, P: p, M: int64(p)}
}

// twoPs is a small correct run on 2 Ps: G1 (from outside) creates G2 and
// G3 on P0; P1 steals G3 at 5ms, after sitting idle beside it from 1ms.
func twoPs() *Result {
	const ms = int64(time.Millisecond)
	return &Result{Scenario: Scenario{Name: "test"}, Procs: 2, Events: []sched.Event{
		ev(0, sched.EvGoCreate, 1, -1),
		ev(1, sched.EvGoStart, 1, 0),
		ev(2, sched.EvGoCreate, 2, 0),
		ev(1*ms, sched.EvGoCreate, 3, 0),
		{When: 5 * ms, Kind: sched.EvSteal, G: 3, P: 1, M: 1, Arg: 0, N: 1},
		ev(5*ms+1, sched.EvGoStart, 3, 1),
		ev(6*ms, sched.EvGoEnd, 3, 1),
		ev(7*ms, sched.EvGoPark, 1, 0),
		ev(7*ms+1, sched.EvGoStart, 2, 0),
		ev(7*ms+2, sched.EvGoSched, 2, 0),
		ev(7*ms+3, sched.EvGoStart, 2, 0),
		ev(8*ms, sched.EvGoUnpark, 1, 0),
		ev(8*ms+1, sched.EvGoEnd, 2, 0),
		ev(8*ms+2, sched.EvGoStart, 1, 0),
		ev(9*ms, sched.EvGoEnd, 1, 0),
	}}
}

func TestVerdictOfAConstructedRun(t *testing.T) {
	v := Judge(twoPs(), false)
	require.False(t, v.Broken(), "%+v", v)
	require.Equal(t, 3, v.Gs)
	// P1 was idle from the start with G1 queued (1ns), then beside G2 from
	// 2ns: until it stole G3 at 5ms+1.
	require.Equal(t, int32(1), v.IdleP)
	require.Equal(t, int64(2), v.IdleAt)
	require.Equal(t, 5*time.Millisecond-1, v.Idle)
	require.Equal(t, 1, v.Yielded)
	require.Equal(t, 0, v.Preempted)

	// The same events from a program that crashed: a failure whatever
	// they show, and Gs not yet ended are not blamed.
	r := twoPs()
	r.Events = r.Events[:len(r.Events)-1]
	v = Judge(r, true)
	require.True(t, v.Broken())
	require.Empty(t, v.Unfinished)
	var b bytes.Buffer
	PrintVerdict(&b, v)
	require.Contains(t, b.String(), "FAIL  the run crashed before it ended")

	// Crashed while G1 ran: G2, queued, was not lost, only stopped.
	r = twoPs()
	r.Events = r.Events[:6]
	require.Empty(t, Judge(r, true).Lost)
	// Crashed with no G running and G2 queued (as when checkdead panics):
	// nobody would ever have run it.
	r = twoPs()
	r.Events = r.Events[:8]
	require.Equal(t, []int64{2}, Judge(r, true).Lost)
}

// TestVerdictCatchesLostAndTwice: a run edited to lose a G, or to run one
// twice, is broken, and the verdict names the G; a G left parked at the
// end of a run that should end every G is unfinished.
func TestVerdictCatchesLostAndTwice(t *testing.T) {
	cases := []struct {
		what  string
		edit  func(r *Result)
		check func(v Verdict) []int64
		want  []int64
		says  string
	}{
		{"G3 never started", func(r *Result) {
			r.Events = slices.DeleteFunc(r.Events, func(e sched.Event) bool { return e.G == 3 && e.Kind != sched.EvGoCreate })
		}, func(v Verdict) []int64 { return v.Lost }, []int64{3}, "1 G lost: made runnable, never ran again (G3)"},
		{"G3 also ran on P0 at once", func(r *Result) {
			r.Events = slices.Insert(r.Events, 6, ev(5*ms()+2, sched.EvGoStart, 3, 0))
		}, func(v Verdict) []int64 { return v.Twice }, []int64{3}, "1 G ran twice (G3)"},
		{"G3 ran again after it ended", func(r *Result) {
			r.Events = slices.Insert(r.Events, 7, ev(6*ms()+1, sched.EvGoStart, 3, 1), ev(6*ms()+2, sched.EvGoEnd, 3, 1))
		}, func(v Verdict) []int64 { return v.Twice }, []int64{3}, "1 G ran twice (G3)"},
		{"G1 never readied", func(r *Result) {
			r.Events = slices.DeleteFunc(r.Events, func(e sched.Event) bool { return e.G == 1 && e.When >= 8*ms() })
		}, func(v Verdict) []int64 { return v.Unfinished }, []int64{1}, "1 G never finished (G1)"},
	}
	for _, tc := range cases {
		t.Run(tc.what, func(t *testing.T) {
			r := twoPs()
			tc.edit(r)
			v := Judge(r, false)
			require.True(t, v.Broken(), "%+v", v)
			require.Equal(t, tc.want, tc.check(v))
			var b bytes.Buffer
			PrintVerdict(&b, v)
			require.Contains(t, b.String(), "FAIL  "+tc.says)
		})
	}
}

func ms() int64 { return int64(time.Millisecond) }

// TestVerdictStory: a broken story claim marked must breaks the run; one
// that timing may break is a note, not a failure.
func TestVerdictStory(t *testing.T) {
	for _, tc := range []struct {
		err    error
		broken bool
		says   string
	}{
		{must(errors.New("129 Gs went to the global run queue at once")), true, "FAIL  129 Gs went"},
		{errors.New("P3 never ran a G"), false, "note  P3 never ran a G"},
	} {
		r := twoPs()
		r.Scenario.Story = func(*Result) (Window, error) { return Window{}, tc.err }
		v := Judge(r, false)
		require.Equal(t, tc.broken, v.Broken(), "%v", tc.err)
		var b bytes.Buffer
		PrintVerdict(&b, v)
		require.Contains(t, b.String(), tc.says)
		require.False(t, strings.Contains(b.String(), "scenario test:"), "the scenario's name is not repeated")
	}
}

// TestMustClaims: the story claims that hold of every correct run are
// marked, the ones timing decides are not.
func TestMustClaims(t *testing.T) {
	s, err := Lookup("imbalance")
	require.NoError(t, err)
	r, err := Run(s, 0, 1)
	require.NoError(t, err)
	overflowed := *r
	overflowed.Events = append(slices.Clone(r.Events), sched.Event{Kind: sched.EvGlobalRunq, When: r.Events[len(r.Events)-1].When, G: 7, P: -1, M: -1, Arg: 129, N: 129})
	_, err = s.Check(&overflowed)
	require.True(t, MustHold(err), "a 256-slot ring of 200 Gs overflowed: %v", err)

	idle := *r
	idle.Events = slices.DeleteFunc(slices.Clone(r.Events), func(e sched.Event) bool { return e.P == 3 })
	_, err = s.Check(&idle)
	require.Error(t, err)
	require.False(t, MustHold(err), "a P that never got a core is timing: %v", err)
}
