// Command racy is what a graded test binary is like, built with -race:
// goroutines on several threads, timers, a mutex, channels, the loopback
// network, and os/exec, of a shell and of itself (a second race-enabled
// process). It prints "result: ok ..." if all of it worked. With the
// argument "race" it makes a data race, which the race detector must
// report (exit status 66), as kata's grading relies on.
package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"
)

func main() {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "child":
			fmt.Println("child ok")
			return
		case "race":
			x := 0
			done := make(chan bool)
			go func() { x++; done <- true }()
			x++
			<-done
			fmt.Println("result: raced", x)
			return
		}
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	n := 0
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := time.NewTimer(time.Millisecond)
			<-t.C
			time.Sleep(time.Millisecond)
			mu.Lock()
			n++
			mu.Unlock()
		}()
	}
	wg.Wait()

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fail("listen", err)
	}
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Write([]byte("hello"))
			c.Close()
		}
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		fail("dial", err)
	}
	buf := make([]byte, 5)
	if _, err := c.Read(buf); err != nil {
		fail("read", err)
	}
	c.Close()

	sh, err := exec.Command("sh", "-c", "echo shell ok").Output()
	if err != nil {
		fail("sh", err)
	}
	self, err := os.Executable()
	if err != nil {
		fail("executable", err)
	}
	child, err := exec.Command(self, "child").Output()
	if err != nil {
		fail("child", err)
	}
	fmt.Printf("result: ok %d goroutines, GOMAXPROCS %d, %s, %s, %s\n", n, runtime.GOMAXPROCS(0), buf,
		strings.TrimSpace(string(sh)), strings.TrimSpace(string(child)))
}

func fail(what string, err error) {
	fmt.Printf("result: %s: %v\n", what, err)
	os.Exit(0)
}
