package vet

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/token"
	"io"
	"os"
	"os/exec"
	"runtime/metrics"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gmp-kata/gmp-kata/checker/sandbox"
)

// A Remote vets as a Vetter does, in child processes, within limits: a
// lesson file is untrusted, and type-checking it can take time and memory
// exponential in its size (the red team's A25: a 3 KB file whose generic
// calls double their type at each level of nesting took kata to 1.6 GB,
// and at 26 levels killed it, with the whole class's report). A file
// whose vetting runs past Limits.Timeout or Limits.Memory, or crashes the
// child, is refused with one problem of rule RuleGaveUp; kata's own
// process holds only the files and the problems.
//
// The child is kata's own executable (or whatever program imports this
// package) started again: this package's init function recognises it
// from its environment before main runs, as package sandbox's does its
// init, and serves Vetter.Sources on its standard input and output. A
// child that did its work is kept, idle, for the next call (making a
// Vetter loads part of the standard library: a tenth of a second) and
// ends when it has been idle for a while or when kata does (its input
// closes; on Linux, it is also killed with kata). Calls at once use
// children at once, one each.
//
// The time limit is kept by kata's clock. The memory limit is kept by the
// child, which reads its own memory (runtime/metrics) every 20 ms on every
// system, and by kata, which reads the child's resident memory five times
// a second where it can (sandbox.MemoryOf: not on Windows); a child that
// allocates faster than that gets that far past it.
//
// What it does not do: the child is not in a sandbox (it runs no code of
// the file's, only go/parser and go/types on it), and the limits are of
// the whole vetting, not of one file among several vetted at once (the
// capstone's problem names them all).
type Remote struct {
	cfg  Config
	lim  Limits
	mu   sync.Mutex
	idle []*child
}

// Limits bound a Remote's vetting.
type Limits struct {
	// Timeout bounds one call's vetting; 0: DefaultTimeout.
	Timeout time.Duration
	// Memory bounds the child's memory, in bytes; 0: DefaultMemory.
	Memory int64
}

const (
	// DefaultTimeout is hundreds of times what vetting takes on a busy
	// machine (a lesson file, or the capstone's eight: 20 to 60 ms).
	DefaultTimeout = 15 * time.Second
	// DefaultMemory is forty times what a child holds once it has vetted
	// the capstone (25 MB, the part of the standard library it loads
	// included).
	DefaultMemory = 1 << 30

	startTimeout = 2 * time.Minute  // loading the reference and the standard library: trusted
	idleTimeout  = 30 * time.Second // a child with nothing to do ends
	envServe     = "KATA_VET_CHILD" // in a child's environment: serve, and nothing else
)

// NewRemote checks cfg in a child (as New would), and keeps the child for
// the first call.
func NewRemote(cfg Config, lim Limits) (*Remote, error) {
	if lim.Timeout <= 0 {
		lim.Timeout = DefaultTimeout
	}
	if lim.Memory <= 0 {
		lim.Memory = DefaultMemory
	}
	if cfg.GOROOT == "" {
		root, err := findGOROOT()
		if err != nil {
			return nil, err
		}
		cfg.GOROOT = root
	}
	r := &Remote{cfg: cfg, lim: lim}
	c, err := r.start()
	if err != nil {
		return nil, err
	}
	r.put(c)
	return r, nil
}

// Files is Vetter.Files, in a child.
func (r *Remote) Files(ctx context.Context, files map[string]string) ([]Problem, error) {
	srcs, err := ReadFiles(files)
	if err != nil {
		return nil, err
	}
	return r.Sources(ctx, srcs)
}

// Sources is Vetter.Sources, in a child. A vetting that ran out of time or
// memory, or crashed, is one problem of rule RuleGaveUp, of the files
// together. An error is kata's (the child could not be started, or ctx
// ended), never the files'.
func (r *Remote) Sources(ctx context.Context, files map[string][]byte) ([]Problem, error) {
	if out := tooLarge(files); len(out) > 0 {
		return out, nil // as Sources would, without sending them
	}
	for attempt := 0; ; attempt++ {
		c, err := r.get()
		if err != nil {
			return nil, err
		}
		rep, gaveUp, err := c.vet(ctx, files, r.lim)
		switch {
		case errors.Is(err, errGone) && attempt == 0:
			continue // it died idle (killed from outside): a new one
		case err != nil:
			return nil, err
		case gaveUp != "":
			return []Problem{gaveUpProblem(files, gaveUp)}, nil
		case rep.Err != "":
			r.put(c)
			return nil, errors.New(rep.Err)
		}
		r.put(c)
		return rep.Problems, nil
	}
}

// gaveUpProblem is the problem of files whose vetting gave up.
func gaveUpProblem(files map[string][]byte, why string) Problem {
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	sort.Strings(names)
	return Problem{Pos: token.Position{Filename: strings.Join(names, ", ")}, Rule: RuleGaveUp,
		Msg: "the type checker gave up: " + why + ": a correct lesson file needs a small part of that (do its types grow at each level of nesting?)"}
}

// get takes an idle child, or starts one.
func (r *Remote) get() (*child, error) {
	r.mu.Lock()
	if n := len(r.idle); n > 0 {
		c := r.idle[n-1]
		r.idle = r.idle[:n-1]
		r.mu.Unlock()
		c.idleTimer.Stop()
		return c, nil
	}
	r.mu.Unlock()
	return r.start()
}

// put keeps c for the next call, for idleTimeout.
func (r *Remote) put(c *child) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.idle = append(r.idle, c)
	c.idleTimer = time.AfterFunc(idleTimeout, func() {
		r.mu.Lock()
		i := slices.Index(r.idle, c)
		if i >= 0 {
			r.idle = slices.Delete(r.idle, i, i+1)
		}
		r.mu.Unlock()
		if i >= 0 {
			c.kill()
		}
	})
}

// The messages between kata and a child, one JSON value a line.
type (
	hello struct {
		Config Config
		Memory int64
	}
	request struct {
		Files map[string][]byte
	}
	reply struct {
		Ready    bool      `json:",omitempty"` // to the hello: New succeeded
		Problems []Problem `json:",omitempty"`
		Err      string    `json:",omitempty"` // New's or Sources's error
		GaveUp   string    `json:",omitempty"` // why the child stopped (its memory), before it exits
	}
)

// errGone is a child that died before it was asked anything.
var errGone = errors.New("vet: the vetter's process is gone")

// A child is a vetter's process, as kata sees it.
type child struct {
	cmd       *exec.Cmd
	in        io.WriteCloser
	enc       *json.Encoder
	replies   chan reply    // closed when its output ends
	stderr    *tail         // the end of what it printed on its standard error
	done      chan struct{} // closed once it has exited and been waited for
	idleTimer *time.Timer
}

// start starts a child and waits until it has made its Vetter.
func (r *Remote) start() (*child, error) {
	exe, err := executable()
	if err != nil {
		return nil, fmt.Errorf("vet: starting the vetter's process: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), envServe+"=1")
	cmd.SysProcAttr = childAttr()
	c := &child{cmd: cmd, replies: make(chan reply, 1), stderr: &tail{}, done: make(chan struct{})}
	cmd.Stderr = c.stderr
	if c.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("vet: starting the vetter's process: %w", err)
	}
	go func() {
		dec := json.NewDecoder(bufio.NewReader(out))
		for {
			var rep reply
			if dec.Decode(&rep) != nil {
				break
			}
			c.replies <- rep
		}
		close(c.replies)
		_ = cmd.Wait()
		close(c.done)
	}()
	c.enc = json.NewEncoder(c.in)
	timer := time.NewTimer(startTimeout)
	defer timer.Stop()
	sent := c.send(hello{Config: r.cfg, Memory: r.lim.Memory})
	for {
		select {
		case err := <-sent:
			if err != nil {
				c.kill()
				return nil, fmt.Errorf("vet: starting the vetter's process: %w%s", err, c.stderr.said())
			}
			sent = nil
		case rep, ok := <-c.replies:
			switch {
			case !ok:
				c.kill()
				return nil, fmt.Errorf("vet: the vetter's process exited as it started%s", c.stderr.said())
			case rep.Err != "":
				c.kill()
				return nil, errors.New(rep.Err)
			case !rep.Ready:
				c.kill()
				return nil, fmt.Errorf("vet: the vetter's process said %+v, not that it was ready", rep)
			}
			return c, nil
		case <-timer.C:
			c.kill()
			return nil, fmt.Errorf("vet: the vetter's process did not start within %s", startTimeout)
		}
	}
}

// vet has c vet files. gaveUp says why c was stopped, if it was (it is
// gone then); err is errGone if c was gone before it was asked.
func (c *child) vet(ctx context.Context, files map[string][]byte, lim Limits) (rep reply, gaveUp string, err error) {
	select {
	case <-c.done:
		return reply{}, "", errGone
	default:
	}
	deadline := time.NewTimer(lim.Timeout)
	defer deadline.Stop()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	sent := c.send(request{Files: files})
	for {
		select {
		case err := <-sent:
			if err != nil {
				c.kill()
				return reply{}, "", errGone
			}
			sent = nil
		case rep, ok := <-c.replies:
			switch {
			case !ok:
				c.kill()
				return reply{}, c.crash(), nil
			case rep.GaveUp != "":
				c.kill()
				return reply{}, rep.GaveUp, nil
			}
			return rep, "", nil
		case <-tick.C:
			if sandbox.MemoryOf(c.cmd.Process.Pid) > lim.Memory {
				c.kill()
				return reply{}, memoryMessage(lim.Memory), nil
			}
		case <-deadline.C:
			c.kill()
			return reply{}, fmt.Sprintf("it took more than %s", lim.Timeout), nil
		case <-ctx.Done():
			c.kill()
			return reply{}, "", ctx.Err()
		}
	}
}

// send writes v to c's input, and then its error to the channel it
// returns, so that a child that does not read cannot block kata: its
// deadline holds while kata writes too.
func (c *child) send(v any) <-chan error {
	sent := make(chan error, 1)
	go func() { sent <- c.enc.Encode(v) }()
	return sent
}

func memoryMessage(limit int64) string {
	return fmt.Sprintf("it used more than %d MiB of memory", limit>>20)
}

// crash says why c ended without a reply, from what it printed.
func (c *child) crash() string {
	<-c.done
	first := c.stderr.firstLine()
	switch {
	case strings.Contains(first, "out of memory"):
		return "it ran out of memory"
	case first != "":
		return "it crashed (" + first + ")"
	}
	return "it crashed (" + c.cmd.ProcessState.String() + ")"
}

// kill ends c, and waits for it.
func (c *child) kill() {
	_ = c.cmd.Process.Kill()
	_ = c.in.Close()
	<-c.done
}

// A tail keeps the first line and the last few KiB written to it.
type tail struct {
	mu    sync.Mutex
	first string
	buf   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if t.first == "" {
		if line, _, ok := strings.Cut(string(t.buf), "\n"); ok {
			t.first = strings.TrimSpace(line)
		}
	}
	if len(t.buf) > 4096 {
		t.buf = slices.Clone(t.buf[len(t.buf)-4096:])
	}
	return len(p), nil
}

func (t *tail) firstLine() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.first == "" {
		line, _, _ := strings.Cut(string(t.buf), "\n")
		return strings.TrimSpace(line)
	}
	return t.first
}

// said is what the child printed, to add to an error.
func (t *tail) said() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := strings.TrimSpace(string(t.buf)); s != "" {
		return ": " + s
	}
	return ""
}

// The hook: a program that imports this package, started by a Remote
// (with envServe set), serves it and does nothing else. It runs in this
// package's initialisation, before main and TestMain.
func init() {
	if _, ok := os.LookupEnv(envServe); ok {
		_ = os.Unsetenv(envServe)
		serve(os.Stdin, os.Stdout)
		os.Exit(0)
	}
}

// serve is the child: it reads a hello and makes its Vetter, then vets
// each request, until its input ends. It keeps its own memory within the
// hello's limit: past it, it says so and exits.
func serve(in io.Reader, out io.Writer) {
	var mu sync.Mutex
	enc := json.NewEncoder(out)
	send := func(rep reply) {
		mu.Lock()
		defer mu.Unlock()
		_ = enc.Encode(rep)
	}
	dec := json.NewDecoder(bufio.NewReader(in))
	var h hello
	if err := dec.Decode(&h); err != nil {
		send(reply{Err: fmt.Sprintf("vet: the vetter's process read no hello: %v", err)})
		return
	}
	if h.Memory > 0 {
		go watchMemory(h.Memory, func() {
			mu.Lock() // never let go: nothing more is sent
			_ = enc.Encode(reply{GaveUp: memoryMessage(h.Memory)})
			os.Exit(0)
		})
	}
	v, err := New(h.Config)
	if err != nil {
		send(reply{Err: err.Error()})
		return
	}
	send(reply{Ready: true})
	requests := make(chan request)
	go func() {
		// Read on while a request is vetted: kata closing the input (it
		// exited, or let this child go) ends the child at once.
		for {
			var req request
			if dec.Decode(&req) != nil {
				os.Exit(0)
			}
			requests <- req
		}
	}()
	for req := range requests {
		probs, err := v.Sources(req.Files)
		if err != nil {
			send(reply{Err: err.Error()})
			continue
		}
		send(reply{Problems: probs})
	}
}

// watchMemory calls over, once, when the memory the Go runtime holds for
// this process (what it has mapped, less what it has given back) passes
// limit. It reads it every 20 ms.
func watchMemory(limit int64, over func()) {
	samples := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
	for range time.Tick(20 * time.Millisecond) {
		metrics.Read(samples)
		if samples[0].Value.Kind() != metrics.KindUint64 || samples[1].Value.Kind() != metrics.KindUint64 {
			return // not measured by this Go: kata's own watch holds
		}
		if held := int64(samples[0].Value.Uint64() - samples[1].Value.Uint64()); held > limit {
			over()
			return
		}
	}
}
