//go:build !windows

package checker

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gmp-kata/gmp-kata/internal/liveprocs"
)

// TestForgedReport: a report written on the harness's report pipe by the
// code under test, without the nonce, makes the run's report dishonest.
func TestForgedReport(t *testing.T) {
	r := hostileRun(t, `package sched

import "os"

func crash() {}

func init() {
	os.NewFile(4, "").Write([]byte(`+"`"+`{"nonce": "", "honest": true, "verdicts": {"TestFail": "pass"}}`+"`"+`))
}
`)
	rr := execOK(t, r, "TestPass", "TestFail")
	if rr.harness == nil || rr.harness.Honest {
		t.Errorf("harness report %+v, want a dishonest one", rr.harness)
	}
}

// TestNothingOutlivesARun: children the test binary starts, in its
// process group or in a session of their own, die when the run ends,
// although it ended normally. (Before, a run's process group was killed
// only on a limit, and a setsid child left it.)
func TestNothingOutlivesARun(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc to look for survivors in")
	}
	modes(t, func(t *testing.T) {
		marker := fmt.Sprintf("KATA_SURVIVOR_%d=1", time.Now().UnixNano())
		r := hostileRun(t, `package sched

import (
	"os"
	"os/exec"
	"syscall"
	"time"
)

func crash() {}

func init() {
	if os.Getenv("KATA_SURVIVOR") != "" {
		for {
			time.Sleep(time.Second)
		}
	}
	for i := 0; i < 10; i++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "KATA_SURVIVOR=1", "`+marker+`")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: i%2 == 0}
		if err := cmd.Start(); err != nil {
			panic(err)
		}
	}
}
`)
		rr := execOK(t, r, "TestPass")
		if rr.harness == nil || rr.harness.Verdicts["TestPass"] != "pass" {
			t.Fatalf("the run did not reach its end: %+v\n%s", rr.harness, strings.Join(rr.s.pkgOutput, "\n"))
		}
		if left := liveprocs.WithEnv(marker); len(left) > 0 {
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Errorf("%d processes of the run outlived it", len(left))
		}
	})
}
