package grade

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/report"
	"github.com/gmp-kata/gmp-kata/checker/sandbox"
	"github.com/stretchr/testify/assert"

	"github.com/gmp-kata/gmp-kata/internal/liveprocs"
)

// The hostile submissions below attack the machine that grades them, not
// their grade (issue #11): they start processes meant to outlive the run,
// sabotage the runs that follow, reach the host's network, read secrets,
// fill the disk. Each fails its lesson (with the reason the sandbox
// gives, or, once the vetter refuses their imports, the vetter's), and
// each checks, after the whole class is graded, that the attack came to
// nothing: no process left, no file planted, no connection made.

// An attackProbe is what the attacks are watched with, one per
// TestHostileCorpus. Building it points TMPDIR at a directory of the
// test's own, so that kata's directories (kata-grade-*, kata-run-*) are
// there, and the saboteur, which looks for them there, can never touch
// another grading that happens to run on the same machine (where there is
// no sandbox to hold it).
type attackProbe struct {
	marker   string // in the environment of every process the attacks start: KATA_HOSTILE_MARKER=marker-CASE
	tmp      string // TMPDIR while the class is graded
	listener net.Listener
	heard    atomic.Int32 // connections the listener took
}

var (
	probeMu sync.Mutex
	probe   *attackProbe
)

// attack returns the probe, set up the first time.
func attack(t testing.TB) *attackProbe {
	probeMu.Lock()
	defer probeMu.Unlock()
	if probe != nil {
		return probe
	}
	tmp, err := os.MkdirTemp("", "kata-corpus-")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &attackProbe{marker: fmt.Sprintf("kata-hostile-%d", time.Now().UnixNano()), tmp: tmp, listener: l}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			p.heard.Add(1)
			c.Close()
		}
	}()
	t.Setenv("TMPDIR", tmp)
	t.Cleanup(func() {
		probeMu.Lock()
		defer probeMu.Unlock()
		l.Close()
		// The attacks' processes die, and only then is their TMPDIR
		// removed: one still writing would leave it behind.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			left := liveprocs.WithEnv("KATA_HOSTILE_MARKER=" + p.marker)
			if len(left) == 0 || time.Now().After(deadline) {
				break
			}
			liveprocs.Kill(left)
		}
		if err := os.RemoveAll(tmp); err != nil {
			t.Errorf("removing the attacks' TMPDIR: %v", err)
		}
		probe = nil
	})
	probe = p
	return p
}

// noSurvivors checks no process an attack started is alive, and kills
// those that are.
func noSurvivors(t *testing.T, name string) {
	t.Helper()
	left := liveprocs.WithEnv("KATA_HOSTILE_MARKER=" + probe.marker + "-" + name)
	liveprocs.Kill(left)
	assert.Empty(t, left, "processes started by %s outlived its grading", name)
}

// refusedOr is pattern, or the vetter's refusal of the file.
func refusedOr(pattern string) string {
	return `(` + pattern + `)|^breaks a rule of lesson files: `
}

// spawnSource is Go that starts the test binary again in role, with the
// case's marker, in a session of its own if setsid.
func spawnSource(name, role, setsid string) string {
	return `cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "KATA_HOSTILE_ROLE=` + role + `", "KATA_HOSTILE_MARKER=` + probe.marker + "-" + name + `")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: ` + setsid + `}
		cmd.Start()`
}

// allowedEnv are the only variables a test binary may find, in its
// environment or in any other it can read: what kata gives it (checker's
// runEnv: passedEnv, pinnedEnv, and the GORACE of raceEnv).
var allowedEnv = []string{"PATH", "HOME", "TMPDIR", "GOMAXPROCS", "GODEBUG", "GORACE", "GOTRACEBACK", "TZ", "LANG", "LC_ALL"}

// runqWith is a submission of runq.go: the reference's, with imports and,
// before runqputtail, code.
func runqWith(t testing.TB, imports []string, code string) map[string][]byte {
	return one("runq.go", edit(t, withImports(t, ref(t, "runq.go"), imports...), "\nfunc runqputtail(", "\n"+code+"\nfunc runqputtail("))
}

// runHostiles are the hostile submissions that attack the machine that
// grades them (see above); TestHostileCorpus grades them after hostiles.
var runHostiles = []hostile{
	{name: "daemons-outlive-the-run", lesson: "01-ringbuffer", linux: true, short: true,
		files: func(t testing.TB) map[string][]byte {
			attack(t)
			// Twenty sleepers, half of them in sessions of their own,
			// then the binary exits.
			return runqWith(t, []string{"os", "os/exec", "syscall", "time"}, `func init() {
	if os.Getenv("KATA_HOSTILE_ROLE") == "sleeper" {
		for {
			time.Sleep(time.Second)
		}
	}
	for i := 0; i < 20; i++ {
		setsid := i%2 == 0
		`+spawnSource("daemons-outlive-the-run", "sleeper", "setsid")+`
	}
	panic("left 20 processes behind")
}
`)
		},
		want: func(t *testing.T, g report.LessonGrade, _ int) {
			everyTest(t, g, refusedOr(`panic: left 20 processes behind`))
			noSurvivors(t, "daemons-outlive-the-run")
		}},
	{name: "daemon-sabotages-others", lesson: "01-ringbuffer", linux: true, short: true, sandbox: true,
		files: func(t testing.TB) map[string][]byte {
			p := attack(t)
			// A daemon that, for a minute and a half, rewrites the
			// lesson files kata has written and not yet compiled,
			// plants a file in every run's private module and in
			// kata's cache of grades, and one beside them.
			return runqWith(t, []string{"os", "os/exec", "path/filepath", "syscall", "time"}, `func init() {
	if os.Getenv("KATA_HOSTILE_ROLE") == "saboteur" {
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			files, _ := filepath.Glob(`+strconv.Quote(p.tmp+"/kata-grade-*/lesson-*/*.go")+`)
			for _, f := range files {
				os.WriteFile(f, []byte("package sched\n\nfunc sabotaged() { sabotagedByADaemon() }\n"), 0o644)
			}
			mods, _ := filepath.Glob(`+strconv.Quote(p.tmp+"/kata-run-*/mod/solutions")+`)
			for _, m := range mods {
				os.WriteFile(filepath.Join(m, "zz_planted.go"), []byte("package sched\n"), 0o644)
			}
			caches, _ := filepath.Glob(`+strconv.Quote(p.tmp+"/*/grades")+`)
			for _, c := range caches {
				os.WriteFile(filepath.Join(c, "planted"), []byte("forged"), 0o644)
			}
			os.WriteFile(`+strconv.Quote(p.tmp+"/planted-by-a-daemon")+`, []byte("was here"), 0o644)
		}
		os.Exit(0)
	}
	`+spawnSource("daemon-sabotages-others", "saboteur", "true")+`
	time.Sleep(time.Second)
	panic("sabotage under way")
}
`)
		},
		want: func(t *testing.T, g report.LessonGrade, _ int) {
			everyTest(t, g, refusedOr(`panic: sabotage under way`))
			noSurvivors(t, "daemon-sabotages-others")
			planted, _ := filepath.Glob(filepath.Join(probe.tmp, "*", "grades", "planted"))
			assert.Empty(t, planted, "forged cache entries")
			assert.NoFileExists(t, filepath.Join(probe.tmp, "planted-by-a-daemon"))
			// Its victims, the submissions graded after it, are
			// checked by TestHostileCorpus: full marks.
		}},
	{name: "dials-the-host", lesson: "01-ringbuffer", linux: true, short: true, sandbox: true,
		files: func(t testing.TB) map[string][]byte {
			p := attack(t)
			return runqWith(t, []string{"net", "time"}, `func init() {
	c, err := net.DialTimeout("tcp", `+strconv.Quote(p.listener.Addr().String())+`, 2*time.Second)
	if err != nil {
		panic("kept from the host: " + err.Error())
	}
	c.Write([]byte("hello from the code under test\n"))
	c.Close()
	panic("reached the host")
}
`)
		},
		want: func(t *testing.T, g report.LessonGrade, _ int) {
			everyTest(t, g, refusedOr(`panic: kept from the host: dial tcp 127\.0\.0\.1:\d+: connect: connection refused`))
			assert.Zero(t, probe.heard.Load(), "the host's listener was reached")
		}},
	{name: "reads-secrets", lesson: "01-ringbuffer", linux: true, short: true,
		files: func(t testing.TB) map[string][]byte {
			attack(t)
			// Every variable it can find: its own environment (the
			// harness's secret was there until TestMain), and every
			// other process's, kata's included. Its panic lands in the
			// report: the secrets would too.
			return runqWith(t, []string{"os", "path/filepath", "sort", "strconv", "strings"}, `func init() {
	names := func(env []string) []string {
		var out []string
		for _, kv := range env {
			if name, _, ok := strings.Cut(kv, "="); ok && name != "" {
				out = append(out, name)
			}
		}
		sort.Strings(out)
		return out
	}
	own := names(os.Environ())
	if b, err := os.ReadFile("/proc/self/environ"); err == nil {
		own = append(own, names(strings.Split(string(b), "\x00"))...)
	}
	var others []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err != nil || pid == os.Getpid() {
			continue
		}
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ")); err == nil {
			others = append(others, names(strings.Split(string(b), "\x00"))...)
		}
	}
	set := func(names []string) string {
		sort.Strings(names)
		var out []string
		for i, n := range names {
			if i == 0 || n != names[i-1] {
				out = append(out, n)
			}
		}
		return strings.Join(out, ",")
	}
	panic("own: " + set(own) + "; others: " + set(others))
}
`)
		},
		want: func(t *testing.T, g report.LessonGrade, _ int) {
			everyTest(t, g, refusedOr(`panic: own: [\w,]*; others: [\w,]*`))
			m := regexp.MustCompile(`own: ([\w,]*); others: ([\w,]*)`).FindStringSubmatch(g.Tests[0].Message)
			if m == nil {
				return // refused
			}
			check := func(which, list string) {
				for _, name := range strings.Split(list, ",") {
					assert.True(t, name == "" || slices.Contains(allowedEnv, name), "the code under test found %s in %s", name, which)
				}
			}
			check("its own environment", m[1])
			if ok, _ := sandbox.Available(); ok {
				// Without the sandbox, kata's own environment is in
				// reach, through /proc/KATA/environ.
				check("another process's environment", m[2])
			}
		}},
	{name: "fills-the-disk", lesson: "01-ringbuffer", linux: true, short: true,
		files: func(t testing.TB) map[string][]byte {
			attack(t)
			return runqWith(t, []string{"fmt", "os"}, `func init() {
	f, err := os.CreateTemp("", "fill-")
	if err != nil {
		panic("stopped: " + err.Error())
	}
	defer os.Remove(f.Name())
	chunk := make([]byte, 1<<20)
	for i := 0; i < 1024; i++ {
		if _, err := f.Write(chunk); err != nil {
			f.Close()
			os.Remove(f.Name())
			panic(fmt.Sprintf("stopped after %d MiB: %v", i, err))
		}
	}
	f.Close()
	os.Remove(f.Name())
	panic("wrote 1 GiB")
}
`)
		},
		want: func(t *testing.T, g report.LessonGrade, _ int) {
			everyTest(t, g, refusedOr(`panic: stopped after (\d|[1-5]\d|6[0-4]) MiB: write \S*fill-\d+: (no space left on device|file too large)`))
		}},
	{name: "daemon-grows", lesson: "01-ringbuffer", linux: true, short: true,
		files: func(t testing.TB) map[string][]byte {
			attack(t)
			// A child in a session of its own takes 1.5 GiB, past the
			// limit of the run (1 GiB in this corpus); the binary
			// waits until it has, then runs the tests.
			return runqWith(t, []string{"os", "os/exec", "strconv", "strings", "syscall", "time"}, `func init() {
	if os.Getenv("KATA_HOSTILE_ROLE") == "hog" {
		var hog [][]byte
		for i := 0; i < 24; i++ {
			b := make([]byte, 64<<20)
			for j := 0; j < len(b); j += 4096 {
				b[j] = 1
			}
			hog = append(hog, b)
		}
		for {
			time.Sleep(time.Second)
		}
	}
	`+spawnSource("daemon-grows", "hog", "true")+`
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(cmd.Process.Pid) + "/status")
		for _, l := range strings.Split(string(status), "\n") {
			if f := strings.Fields(l); len(f) == 3 && f[0] == "VmRSS:" {
				if kib, _ := strconv.Atoi(f[1]); kib > 1400<<10 {
					return
				}
			}
		}
	}
}
`)
		},
		want: func(t *testing.T, g report.LessonGrade, _ int) {
			everyTest(t, g, refusedOr(`used more than 1024 MiB of memory`))
			noSurvivors(t, "daemon-grows")
		}},
}
