package sched

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// schedLine is the runtime's summary line as schedtrace prints it
// (proc.go:6906-6946), without scheddetail and with it.
var (
	schedLine       = regexp.MustCompile(`^SCHED \d+ms: gomaxprocs=\d+ idleprocs=\d+ threads=\d+ spinningthreads=\d+ needspinning=\d+ idlethreads=\d+ runqueue=\d+ \[( \d+)+ \] schedticks=\[ (\d+ )+\]$`)
	schedDetailLine = regexp.MustCompile(`^SCHED \d+ms: gomaxprocs=\d+ idleprocs=\d+ threads=\d+ spinningthreads=\d+ needspinning=\d+ idlethreads=\d+ runqueue=\d+ gcwaiting=(true|false) nmidlelocked=\d+ stopwait=\d+ sysmonwait=(true|false)$`)
	schedPLine      = regexp.MustCompile(`^  P\d+: status=[0-4] schedtick=\d+ syscalltick=\d+ m=(\d+|nil) runqsize=\d+ gfreecnt=\d+ timerslen=\d+$`)
	schedMLine      = regexp.MustCompile(`^  M\d+: p=(\d+|nil) curg=(\d+|nil) mallocing=\d+ throwing=\d+ preemptoff=\S* locks=\d+ dying=\d+ spinning=(true|false) blocked=(true|false) lockedg=(\d+|nil)$`)
	schedGLine      = regexp.MustCompile(`^  G\d+: status=\d+\(.*\) m=(\d+|nil) lockedm=(\d+|nil)$`)
)

// TestSchedTraceConstructed prints a state built by hand, whose every count
// is known: three Ps (one held by a spinning M running G 1), Gs in two
// rings and in the global queue, an idle M and sysmon.
func TestSchedTraceConstructed(t *testing.T) {
	now := int64(5e6)
	sched := newTestSched(t, 3, Config{Nanotime: func() int64 { return now }})

	m0 := allocm(sched, -1)
	sysmonM := allocm(sched, -1)
	m2 := allocm(sched, -1)
	sched.lock.Lock()
	sysmonM.isSysmon = true
	sched.nmsys++
	sched.mput(m0)
	pp := sched.pidleget() // the last P put on the list: P0
	sched.lock.Unlock()
	if pp.id != 0 {
		t.Fatalf("pidleget took P%d; the test expects P0", pp.id)
	}
	acquirep(m2, pp)
	m2.spinning = true
	sched.nmspinning.Add(1)
	sched.needspinning.Store(1)
	pp.schedtick.Store(7)
	pp.syscalltick.Store(2)

	running, waiting, dead := newTestG(sched, 1), newTestG(sched, 2), newTestG(sched, 3)
	running.atomicstatus.Store(_Grunning)
	m2.curg.Store(running)
	waiting.atomicstatus.Store(_Gwaiting)
	waiting.waitreason = waitReasonChanReceive
	dead.atomicstatus.Store(_Gdead)
	sched.allgs = append(sched.allgs, running, waiting, dead)
	for _, gp := range newTestGs(sched, 10, 5) {
		runqput(sched.allp[1], gp, false)
	}
	for _, gp := range newTestGs(sched, 20, 2) {
		runqput(sched.allp[2], gp, false)
	}
	sched.lock.Lock()
	for _, gp := range newTestGs(sched, 30, 4) {
		sched.globrunqput(gp)
	}
	sched.lock.Unlock()

	got := string(sched.schedtrace(nil, false))
	want := "SCHED 0ms: gomaxprocs=3 idleprocs=2 threads=3 spinningthreads=1 needspinning=1 idlethreads=1 runqueue=4 [ 0 5 2 ] schedticks=[ 7 0 0 ]\n"
	if got != want {
		t.Errorf("schedtrace:\n got %q\nwant %q", got, want)
	}

	now += 1500e6
	sched.gcwaiting.Store(true)
	sched.stopwait = 2
	got = string(sched.schedtrace(nil, true))
	want = "SCHED 1500ms: gomaxprocs=3 idleprocs=2 threads=3 spinningthreads=1 needspinning=1 idlethreads=1 runqueue=4 gcwaiting=true nmidlelocked=0 stopwait=2 sysmonwait=false\n" +
		"  P0: status=1 schedtick=7 syscalltick=2 m=2 runqsize=0 gfreecnt=0 timerslen=0\n" +
		"  P1: status=0 schedtick=0 syscalltick=0 m=nil runqsize=5 gfreecnt=0 timerslen=0\n" +
		"  P2: status=0 schedtick=0 syscalltick=0 m=nil runqsize=2 gfreecnt=0 timerslen=0\n" +
		"  M2: p=0 curg=1 mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=true blocked=false lockedg=nil\n" +
		"  M1: p=nil curg=nil mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=false blocked=false lockedg=nil\n" +
		"  M0: p=nil curg=nil mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=false blocked=true lockedg=nil\n" +
		"  G1: status=2() m=2 lockedm=nil\n" +
		"  G2: status=4(chan receive) m=nil lockedm=nil\n" +
		"  G3: status=6() m=nil lockedm=nil\n"
	if got != want {
		t.Errorf("schedtrace detailed:\n got %q\nwant %q", got, want)
	}

	// sysmon in its deep sleep is blocked on a note, as an idle M is.
	sched.sysmonwait.Store(true)
	if got := string(sched.schedtrace(nil, true)); !strings.Contains(got, "  M1: p=nil curg=nil mallocing=0 throwing=0 preemptoff= locks=0 dying=0 spinning=false blocked=true") {
		t.Errorf("with sysmon in its deep sleep, M1 (sysmon) is not blocked:\n%s", got)
	}
}

// TestSchedTraceRunning prints a Runtime while its Gs run, in both modes,
// from two goroutines at once and from Gs: every line has the runtime's
// format, and (under -race) reading the state races with nothing.
func TestSchedTraceRunning(t *testing.T) {
	rt := New(Config{Procs: 4})
	defer rt.Close()
	var wg sync.WaitGroup
	done := make(chan struct{})
	var mu sync.Mutex
	var out bytes.Buffer
	for _, detailed := range []bool{false, true} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				var b bytes.Buffer
				if err := rt.SchedTrace(&b, detailed); err != nil {
					t.Error(err)
				}
				mu.Lock()
				out.Write(b.Bytes())
				mu.Unlock()
				select {
				case <-done:
					return
				case <-time.After(100 * time.Microsecond):
				}
			}
		}()
	}
	rt.Go(func(g *G) {
		var wg WaitGroup
		ch := NewChan[int](0)
		for i := range 200 {
			wg.Add(1)
			g.Go(func(g *G) {
				if i%2 == 0 {
					ch.Send(g, i)
				} else {
					ch.Recv(g)
				}
				for range 20 {
					spinFor(2000)
					g.Safepoint()
				}
				if i%50 == 0 { // from a G's body too
					if err := rt.SchedTrace(io.Discard, true); err != nil {
						t.Error(err)
					}
				}
				wg.Done(g)
			})
		}
		wg.Wait(g)
	})
	if err := rt.Wait(); err != nil {
		t.Fatal(err)
	}
	close(done)
	wg.Wait()

	var lines [5]int
	for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		matched := false
		for i, re := range []*regexp.Regexp{schedLine, schedDetailLine, schedPLine, schedMLine, schedGLine} {
			if re.MatchString(line) {
				lines[i]++
				matched = true
				break
			}
		}
		if !matched {
			t.Errorf("a line not in the runtime's format: %q", line)
		}
		if strings.HasPrefix(line, "SCHED") && !strings.Contains(line, "gomaxprocs=4 ") {
			t.Errorf("a line without gomaxprocs=4: %q", line)
		}
	}
	for i, n := range lines {
		if n == 0 {
			t.Errorf("no line of kind %d (summary, detailed summary, P, M, G) in:\n%s", i, out.String())
		}
	}
}

// spinFor burns about n iterations of CPU.
func spinFor(n int) uint64 {
	x := uint64(n)
	for range n {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

// TestSchedTraceAsTheRuntime runs the real runtime with GODEBUG=schedtrace
// (this test binary, run again as a helper) and checks that our lines have
// its fields, named the same, in the same order: a change of the runtime's
// format fails here.
func TestSchedTraceAsTheRuntime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary again (-short)")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	rt := New(Config{Procs: 2})
	defer rt.Close()
	ch := NewChan[int](0)
	rt.Go(func(g *G) { ch.Recv(g) })
	time.Sleep(time.Millisecond) // let the G park, for a G line with a reason

	for _, detailed := range []bool{false, true} {
		godebug := "schedtrace=1"
		if detailed {
			godebug += ",scheddetail=1"
		}
		// The runtime's sysmon prints the lines; on a loaded machine it
		// may not run at all in the helper's 20 ms: up to three tries.
		var stderr bytes.Buffer
		for try := 0; try < 3 && !strings.Contains(stderr.String(), "SCHED "); try++ {
			stderr.Reset()
			cmd := exec.Command(exe, "-test.run=^TestSchedTraceHelper$")
			cmd.Env = append(os.Environ(), "GODEBUG="+godebug, "GMPKATA_SCHEDTRACE_HELPER=1")
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("running the helper with GODEBUG=%s: %v\n%s", godebug, err, stderr.Bytes())
			}
		}
		var b bytes.Buffer
		if err := rt.SchedTrace(&b, detailed); err != nil {
			t.Fatal(err)
		}
		theirs, ours := firstOfEach(stderr.String()), firstOfEach(b.String())
		if len(theirs) == 0 {
			t.Fatalf("GODEBUG=%s printed no SCHED line:\n%s", godebug, stderr.Bytes())
		}
		for kind, line := range theirs {
			if shape(ours[kind]) != shape(line) {
				t.Errorf("GODEBUG=%s: our %s line has other fields than the runtime's:\nruntime: %q\n    ours: %q\n(shapes %q and %q)",
					godebug, kind, line, ours[kind], shape(line), shape(ours[kind]))
			}
		}
		if len(ours) != len(theirs) {
			t.Errorf("GODEBUG=%s: the runtime printed lines of kinds %v, we printed %v", godebug, keys(theirs), keys(ours))
		}
	}
}

// TestSchedTraceHelper is the program TestSchedTraceAsTheRuntime runs with
// GODEBUG=schedtrace: it sleeps, with a goroutine blocked, while sysmon
// prints.
func TestSchedTraceHelper(t *testing.T) {
	if os.Getenv("GMPKATA_SCHEDTRACE_HELPER") != "1" {
		t.Skip("run by TestSchedTraceAsTheRuntime")
	}
	ch := make(chan int)
	go func() { <-ch }()
	time.Sleep(20 * time.Millisecond)
	close(ch)
}

// firstOfEach returns the first line of each kind (SCHED, P, M, G) of a
// schedtrace output.
func firstOfEach(out string) map[string]string {
	first := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		kind := ""
		switch {
		case strings.HasPrefix(line, "SCHED "):
			kind = "SCHED"
		case strings.HasPrefix(line, "  P"), strings.HasPrefix(line, "  M"), strings.HasPrefix(line, "  G"):
			kind = line[2:3]
		default:
			continue
		}
		if _, ok := first[kind]; !ok {
			first[kind] = line
		}
	}
	return first
}

func keys(m map[string]string) []string {
	var ks []string
	for _, k := range []string{"SCHED", "P", "M", "G"} {
		if _, ok := m[k]; ok {
			ks = append(ks, k)
		}
	}
	return ks
}

var (
	shapeReason = regexp.MustCompile(`\(.*\) m=`) // a wait reason may hold parentheses: "force gc (idle)"
	shapeValue  = regexp.MustCompile(`-?\d+|\b(true|false|nil)\b`)
	shapeList   = regexp.MustCompile(`\[( _)+ \]`)
)

// shape reduces a schedtrace line to its field names and punctuation:
// values become _, a G's wait reason (), a list of numbers [ _ ].
func shape(line string) string {
	line = shapeReason.ReplaceAllString(line, "() m=")
	line = shapeValue.ReplaceAllString(line, "_")
	return shapeList.ReplaceAllString(line, "[ _ ]")
}

// TestRuntimeGStatusNumbers checks runtimeGStatus against the constants of
// the runtime's runtime2.go, and that our P statuses have its numbers.
func TestRuntimeGStatusNumbers(t *testing.T) {
	file := filepath.Join(runtime.GOROOT(), "src", "runtime", "runtime2.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Skipf("the runtime's source: %v", err)
	}
	theirs := iotaConsts(f)
	for ours, name := range map[uint32]string{_Gidle: "_Gidle", _Grunnable: "_Grunnable", _Grunning: "_Grunning", _Gsyscall: "_Gsyscall", _Gwaiting: "_Gwaiting", _Gdead: "_Gdead"} {
		if want, ok := theirs[name]; !ok || runtimeGStatus[ours] != want {
			t.Errorf("runtimeGStatus[%s] = %d, runtime2.go has %d (found: %v)", name, runtimeGStatus[ours], want, ok)
		}
	}
	for ours, name := range map[uint32]string{_Pidle: "_Pidle", _Prunning: "_Prunning", _Psyscall: "_Psyscall_unused", _Pgcstop: "_Pgcstop", _Pdead: "_Pdead"} {
		if want, ok := theirs[name]; !ok || ours != want {
			t.Errorf("%s = %d here, %d in runtime2.go (found: %v); schedtrace prints P statuses as they are", name, ours, want, ok)
		}
	}
}

// iotaConsts returns the values of the constants of f's const blocks that
// count with a bare iota (const ( _X = iota; _Y; ... )).
func iotaConsts(f *ast.File) map[string]uint32 {
	vals := map[string]uint32{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST || len(gd.Specs) == 0 {
			continue
		}
		first, ok := gd.Specs[0].(*ast.ValueSpec)
		if !ok || len(first.Values) != 1 {
			continue
		}
		if id, ok := first.Values[0].(*ast.Ident); !ok || id.Name != "iota" {
			continue
		}
		for i, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			if i > 0 && len(vs.Values) > 0 {
				break // a new expression: not a bare iota any more
			}
			for _, name := range vs.Names {
				vals[name.Name] = uint32(i)
			}
		}
	}
	return vals
}
