package trace

// traceMain is the trace program: run one scenario, print its events and
// what Wait returned, one JSON value a line ("E {event}", then
// "R {result}"). Anything else on stdout is the learner's own printing.
const traceMain = `// Command kata-trace runs one scenario of internal/scenario and prints
// its events. Written by kata (package checker/trace).
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	"gmpkata.grade/internal/scenario"
	sched "gmpkata.grade/solutions"
)

type result struct {
	Procs    int    ` + "`json:\"procs\"`" + `
	Err      string ` + "`json:\"err\"`" + `
	Deadlock bool   ` + "`json:\"deadlock\"`" + `
	PanicG   int64  ` + "`json:\"panic_g\"`" + `
	Panic    string ` + "`json:\"panic\"`" + `
	Stack    string ` + "`json:\"stack\"`" + `
	Waiting  []sched.WaitingG ` + "`json:\"waiting\"`" + `
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: kata-trace SCENARIO PROCS SEED")
		os.Exit(2)
	}
	s, err := scenario.Lookup(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	procs, err1 := strconv.Atoi(os.Args[2])
	seed, err2 := strconv.ParseUint(os.Args[3], 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintln(os.Stderr, "kata-trace: bad PROCS or SEED")
		os.Exit(2)
	}

	// Events are written every few milliseconds as they come, and by the
	// M that records the writeEvery-th pending one, so that a run that
	// crashes (a panic in an M kills the program) leaves all but its last
	// few events to draw and judge: on an idle machine a lossy ring
	// crashed a run within its first 5 ms, before any timed write.
	out := &events{w: bufio.NewWriterSize(os.Stdout, 64<<10)}
	stopWriting := out.every(5 * time.Millisecond)
	rt := sched.New(sched.Config{Procs: procs, Seed: seed, Trace: out.record})
	rt.Go(s.Main)
	werr := rt.Wait()
	res := result{Procs: procs}
	if werr != nil {
		res.Err = werr.Error()
		var de *sched.DeadlockError
		var pe *sched.PanicError
		switch {
		case errors.As(werr, &de):
			res.Deadlock, res.Waiting = true, de.Waiting
		case errors.As(werr, &pe):
			res.PanicG, res.Panic, res.Stack = pe.G, fmt.Sprint(pe.Value), string(pe.Stack)
			res.Err = fmt.Sprintf("panic in G %d: %v", pe.G, pe.Value)
		}
	}
	// A broken scheduler may never finish closing: give it a moment, then
	// report anyway.
	closed := make(chan struct{})
	go func() {
		rt.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(2 * time.Second):
	}

	stopWriting()
	out.write()
	b, _ := json.Marshal(res)
	out.w.WriteString("R ")
	out.w.Write(b)
	out.w.WriteByte('\n')
	out.w.Flush()
	os.Exit(0)
}

// events holds the events not yet written.
type events struct {
	mu      sync.Mutex
	pending []sched.Event
	wmu     sync.Mutex    // one write at a time, in the order they took their events
	w       *bufio.Writer // only write uses it, holding wmu
}

// writeEvery is how many pending events the M that records the last of
// them writes out itself.
const writeEvery = 64

func (e *events) record(ev sched.Event) {
	e.mu.Lock()
	e.pending = append(e.pending, ev)
	n := len(e.pending)
	e.mu.Unlock()
	if n >= writeEvery {
		e.write()
	}
}

// write writes the pending events, one "E {json}" line each, and flushes.
func (e *events) write() {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	e.mu.Lock()
	evs := e.pending
	e.pending = nil
	e.mu.Unlock()
	for _, ev := range evs {
		b, _ := json.Marshal(ev)
		e.w.WriteString("E ")
		e.w.Write(b)
		e.w.WriteByte('\n')
	}
	e.w.Flush()
}

// every calls write every period until stop is called; stop returns once
// the last call has returned.
func (e *events) every(period time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(period)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				e.write()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}
`
