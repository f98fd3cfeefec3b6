package scenario

import (
	"bytes"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
	"github.com/stretchr/testify/require"
)

func TestLookupUnknownNamesTheChoices(t *testing.T) {
	_, err := Lookup("imbalanse")
	require.Error(t, err)
	for _, name := range Names() {
		require.Contains(t, err.Error(), name, "the error should list the scenarios")
	}
}

// TestSummaryAgreesWithEvents runs every scenario and recounts, from the raw
// events, the numbers the summary reports.
func TestSummaryAgreesWithEvents(t *testing.T) {
	for _, s := range All() {
		t.Run(s.Name, func(t *testing.T) {
			r, err := Run(s, 0, 1)
			require.NoError(t, err)
			sum := Summarize(r)

			count := map[sched.EventKind]int{}
			starts := make([]int, r.Procs)
			stolen, globalIn, globalPeak := 0, 0, int64(0)
			for _, ev := range r.Events {
				count[ev.Kind]++
				if ev.Kind == sched.EvGlobalRunq {
					if ev.N > 0 {
						globalIn += int(ev.N)
					}
					globalPeak = max(globalPeak, ev.Arg)
				}
				if ev.Kind == sched.EvGoStart {
					starts[ev.P]++
				}
				if ev.Kind == sched.EvSteal {
					require.GreaterOrEqual(t, ev.N, int64(1), "a steal takes at least one G: %v", ev)
					stolen += int(ev.N)
				}
			}
			require.Equal(t, count[sched.EvGoCreate], sum.Created, "Gs created")
			if s.WantDeadlock {
				require.Less(t, sum.Ended, sum.Created, "in a deadlock some G never finishes")
			} else {
				require.Equal(t, sum.Created, sum.Ended, "every G created must finish")
			}
			require.Equal(t, count[sched.EvSteal], sum.Steals, "steals")
			require.Equal(t, stolen, sum.StolenGs, "Gs stolen")
			require.Equal(t, globalIn, sum.GlobalIn, "Gs put on the global run queue")
			require.EqualValues(t, globalPeak, sum.GlobalPeak, "the global run queue's peak")
			total := 0
			for i, p := range sum.Procs {
				require.Equal(t, starts[i], p.Runs, "runs on P%d", i)
				require.LessOrEqual(t, p.Busy, sum.Span, "P%d busy longer than the whole run", i)
				total += p.Runs
			}
			require.Equal(t, count[sched.EvGoStart], total, "runs over all Ps")

			var out bytes.Buffer
			Print(&out, r, 40)
			require.Contains(t, out.String(), "scenario "+s.Name)
			require.Equal(t, r.Procs, strings.Count(out.String(), "|\n"), "one timeline line per P")
		})
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 Gs", 1: "1 G", 2: "2 Gs"} {
		if got := Plural(n, "G"); got != want {
			t.Errorf("Plural(%d, G) = %q, want %q", n, got, want)
		}
	}
}

// TestRunWatching: watch sees the Runtime before the scenario starts, then
// every period while it runs, and never after RunWatching has returned.
func TestRunWatching(t *testing.T) {
	s, err := Lookup("burst") // about 10ms of sleeping between bursts
	require.NoError(t, err)
	var calls atomic.Int32
	var first atomic.Int64
	first.Store(-1)
	_, err = RunWatching(s, 0, 1, time.Millisecond, func(rt *sched.Runtime) {
		if calls.Add(1) == 1 {
			first.Store(int64(rt.NumGoroutine()))
		}
	})
	require.NoError(t, err)
	n := calls.Load()
	require.EqualValues(t, 0, first.Load(), "the first call comes before the scenario's first G starts")
	require.GreaterOrEqual(t, n, int32(3), "watch is called every millisecond of a run of over 10ms")
	time.Sleep(5 * time.Millisecond)
	require.Equal(t, n, calls.Load(), "watch was called after RunWatching returned")

	_, err = RunWatching(s, 0, 1, 0, func(*sched.Runtime) {})
	require.ErrorContains(t, err, "want a period above 0")
}
