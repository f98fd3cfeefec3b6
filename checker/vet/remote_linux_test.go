package vet

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// alive reports whether process pid exists and is not a zombie.
func alive(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z")
}

// TestRemoteDiesWithKata: a child busy with a bomb, with no limit near,
// dies with kata when kata is killed (SIGKILL: nothing of kata's runs).
// The test runs itself as the kata that is killed.
func TestRemoteDiesWithKata(t *testing.T) {
	if os.Getenv("VET_TEST_KATA") == "1" {
		r, err := NewRemote(courseConfig(t), Limits{Memory: 8 << 30, Timeout: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		r.mu.Lock()
		fmt.Println(r.idle[0].cmd.Process.Pid)
		r.mu.Unlock()
		_, _ = r.Sources(context.Background(), map[string][]byte{"runq.go": []byte(bombs()["generic calls"](t))})
		t.Fatal("the bomb was vetted")
	}
	kata := exec.Command(os.Args[0], "-test.run=^TestRemoteDiesWithKata$")
	kata.Env = append(os.Environ(), "VET_TEST_KATA=1")
	out, err := kata.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := kata.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		kata.Process.Kill()
		kata.Wait()
		t.Fatalf("the child's pid: %q %v %v", line, err, perr)
	}
	time.Sleep(500 * time.Millisecond) // busy with the bomb
	if !alive(pid) {
		t.Fatalf("the child %d is not running", pid)
	}
	kata.Process.Kill()
	kata.Wait()
	for start := time.Now(); alive(pid); time.Sleep(10 * time.Millisecond) {
		if time.Since(start) > 5*time.Second {
			t.Fatalf("the child %d outlived kata by 5s", pid)
		}
	}
}
