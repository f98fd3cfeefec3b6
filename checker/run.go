package checker

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// A run is one `go test` of the grading module with some files replaced by
// the learner's and some hidden tests added.
type run struct {
	mod      *module
	replace  map[string]string // base name in solutions/ → the learner's file
	snapshot map[string]string // base name → the copy of the learner's file the runs compile
	hidden   []string          // lesson IDs whose hidden tests to add
	timeouts map[string]time.Duration
	race     bool
	// maxOutput bounds what the tests may print, in bytes, and maxMemory
	// the resident memory of the run's processes together; past either
	// the run is killed. 0: no limit.
	maxOutput int
	maxMemory int64
	// isolate gives the run a private copy of the module, a private
	// temporary directory and a scrubbed environment (see Options.Isolate).
	isolate bool
	// bin is where the first run leaves the test binary (go test -o), for
	// the runs after it to run again without building; binSum is its hash
	// once built. "": every run builds.
	bin, binSum string
	binDir      string // bin's directory, which cleanup removes
	// env is added to the test binary's environment; failFast stops a run
	// at its first failing test, and the runs at the first failure.
	env      []string
	failFast bool
	// noVet builds without go test's vet checks: mutant schemata hold
	// code vet would refuse (s == a && s == b) that the tests must judge.
	noVet bool
	// trusted skips kata's vetting of the files: they are the course's
	// own (mutant schemata, which declare kata's names and import os).
	trusted bool
}

// cleanup removes what the runs left: the test binary.
func (r *run) cleanup() {
	if r.binDir != "" {
		removeAll(r.binDir)
	}
}

// runResult is what a run found out.
type runResult struct {
	s *stream
	// killed names the test that ran past its time limit, "" if none;
	// "(build)" if the run ran out of time before any test started.
	killed string
	// overOutput and overMemory say the run was stopped for printing or
	// using too much; blame is the test running then ("" if none was).
	overOutput bool
	overMemory bool
	blame      string
	wallTime   time.Duration
	// mod is the module the run used: the shared one, or its private copy.
	mod *module
	// harness is what the harness reported; nil if the test binary did not
	// run to its end.
	harness *harnessReport
	// changed lists the files of the private module copy the run changed
	// (isolated runs only).
	changed []string
}

// gapAllowance is how long a run may go with no test running once one has
// started: between two tests, and after the last one until the binary
// exits. A line that only claims a test ended ("--- PASS") thus buys the
// code under test no more time than this.
const gapAllowance = 30 * time.Second

// overlay returns the -overlay replacements: the learner's files over the
// reference's in mod, the hidden tests added to the package with their
// tests renamed, and the harness that runs them under their own names (see
// harness.go). The renamed files and the harness are written in tmp.
func (r *run) overlay(mod *module, tmp string) (map[string]string, error) {
	replace := map[string]string{}
	for base, learner := range r.replace {
		if snap, ok := r.snapshot[base]; ok {
			learner = snap
		}
		abs, err := filepath.Abs(learner)
		if err != nil {
			return nil, err
		}
		replace[filepath.Join(mod.pkgDir, base)] = abs
	}
	renamed := filepath.Join(tmp, "hidden")
	if err := os.Mkdir(renamed, 0o755); err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	var tests []string
	seen := map[string]bool{}
	add := func(srcDir, prefix string) error {
		entries, err := os.ReadDir(srcDir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), "_test.go") {
				continue
			}
			src, err := os.ReadFile(filepath.Join(srcDir, e.Name()))
			if err != nil {
				return err
			}
			out, names := renameTests(src)
			name := prefix + e.Name()
			if err := os.WriteFile(filepath.Join(renamed, name), out, 0o644); err != nil {
				return err
			}
			replace[filepath.Join(mod.pkgDir, name)] = filepath.Join(renamed, name)
			for _, n := range names {
				// A test declared twice fails to compile in the hidden
				// files; one wrapper keeps the harness out of the error.
				if !seen[n] {
					seen[n] = true
					tests = append(tests, n)
				}
			}
		}
		return nil
	}
	if err := add(filepath.Join(mod.hidden, "kit"), "zz_kit_"); err != nil {
		return nil, fmt.Errorf("checker: hidden test kit: %w", err)
	}
	for _, id := range r.hidden {
		if err := add(filepath.Join(mod.hidden, id), "zz_"+strings.ReplaceAll(id, "-", "_")+"_"); err != nil {
			return nil, fmt.Errorf("checker: hidden tests of %s: %w", id, err)
		}
	}
	harness := filepath.Join(tmp, harnessFile)
	if err := os.WriteFile(harness, harnessSource(tests), 0o644); err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	replace[filepath.Join(mod.pkgDir, harnessFile)] = harness
	return replace, nil
}

// saveOverlay writes replace as an -overlay file in dir.
func saveOverlay(dir string, replace map[string]string) (string, error) {
	data, err := json.Marshal(map[string]any{"Replace": replace})
	if err != nil {
		return "", err
	}
	f := filepath.Join(dir, "overlay.json")
	return f, os.WriteFile(f, data, 0o644)
}

// exec runs `go test` once for the given tests and folds its output. A test
// that runs past its limit, output past maxOutput or memory past maxMemory
// kills the whole process group. It returns ctx's error if ctx ends first.
func (r *run) exec(ctx context.Context, tests []string) (*runResult, error) {
	tmp, err := os.MkdirTemp("", "kata-run-")
	if err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	defer removeAll(tmp)
	mod := r.mod
	if r.isolate {
		if mod, err = r.mod.copyTo(filepath.Join(tmp, "mod")); err != nil {
			return nil, err
		}
	}
	replace, err := r.overlay(mod, tmp)
	if err != nil {
		return nil, err
	}
	overlay, err := saveOverlay(tmp, replace)
	if err != nil {
		return nil, err
	}
	doneFile, nonce := filepath.Join(tmp, "done.json"), newNonce()

	var total time.Duration
	for _, t := range tests {
		total += r.timeouts[t]
	}
	pattern := "^(" + strings.Join(tests, "|") + ")$"
	var cmd *exec.Cmd
	if r.bin != "" && r.binSum != "" {
		// Run the test binary the first run built, as go test would, but
		// without building and linking it again.
		if sum, err := fileSum(r.bin); err != nil || sum != r.binSum {
			return &runResult{s: newStream(), mod: mod, changed: []string{"the test binary (changed after it was built)"}}, nil
		}
		cmd = exec.Command("go", "tool", "test2json", "-t", "-p", "gmpkata.grade/solutions", r.bin,
			"-test.paniconexit0", "-test.v=test2json", "-test.count=1", "-test.timeout="+(total+time.Minute).String(), "-test.run="+pattern)
		if r.failFast {
			cmd.Args = append(cmd.Args, "-test.failfast")
		}
		cmd.Dir = mod.pkgDir
		total += time.Minute
	} else {
		total += buildAllowance
		args := []string{"test", "-overlay", overlay, "-json", "-count=1", "-p=1",
			"-timeout", total.String(), "-run", pattern}
		if r.race {
			args = append(args, "-race")
		}
		if r.failFast {
			args = append(args, "-failfast")
		}
		if r.noVet {
			args = append(args, "-vet=off")
		}
		if r.bin != "" {
			args = append(args, "-o", r.bin)
		}
		cmd = exec.Command("go", append(args, "./solutions")...)
		cmd.Dir = mod.dir
	}

	runCtx, cancel := context.WithTimeout(ctx, total+30*time.Second)
	defer cancel()
	env, err := r.environ(tmp)
	if err != nil {
		return nil, err
	}
	cmd.Env = append(append(env, r.env...), envDoneFile+"="+doneFile, envNonce+"="+nonce)
	setProcessGroup(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = cmd.Stdout // the go command's own errors, as package output
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("checker: starting go test: %w (is Go installed and on PATH?)", err)
	}

	res := &runResult{s: newStream(), mod: mod}
	lines, quit := make(chan []byte), make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
		for sc.Scan() {
			select {
			case lines <- slices.Clone(sc.Bytes()):
			case <-quit:
				return
			}
		}
		if sc.Err() != nil {
			// A line too long for the scanner (test2json splits long
			// lines, so only the go command itself could): keep reading,
			// or the writer would block and never exit.
			select {
			case lines <- []byte("kata: an output line longer than 4 MiB was left out"):
			case <-quit:
				return
			}
			_, _ = io.Copy(io.Discard, stdout)
		}
	}()
	// deadline is when the running test, or the gap after one, runs out.
	var deadline, nextMemCheck, killedAt time.Time
	stopped := false
	kill := func() {
		stopped, killedAt = true, time.Now()
		killProcessGroup(cmd)
	}
	current := func() string {
		if res.s.running != "" {
			return res.s.running
		}
		return res.s.lastStarted
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var interrupted error
loop:
	for {
		select {
		case line, ok := <-lines:
			if !ok {
				break loop
			}
			before := res.s.running
			res.s.add(line)
			now := time.Now()
			if name := res.s.running; name != before && name != "" {
				limit, ok := r.timeouts[name]
				if !ok {
					limit = gapAllowance // a test the run did not ask for
				}
				deadline = now.Add(limit)
			} else if name == "" && before != "" {
				if d := now.Add(gapAllowance); d.After(deadline) {
					deadline = d
				}
			}
			if r.maxOutput > 0 && res.s.outputBytes > r.maxOutput && !stopped {
				res.overOutput, res.blame = true, current()
				kill()
			}
		case now := <-tick.C:
			if stopped {
				if now.Sub(killedAt) > 10*time.Second {
					// Something outside the process group holds the pipe
					// open: stop waiting for it.
					break loop
				}
				continue
			}
			if !deadline.IsZero() && now.After(deadline) {
				res.killed = current()
				kill()
				continue
			}
			if r.maxMemory > 0 && memoryLimitEnforced && now.After(nextMemCheck) {
				nextMemCheck = now.Add(200 * time.Millisecond)
				if groupRSS(cmd.Process.Pid) > r.maxMemory {
					res.overMemory, res.blame = true, current()
					kill()
				}
			}
		case <-runCtx.Done():
			if ctx.Err() != nil {
				interrupted = ctx.Err()
			} else if res.killed == "" {
				res.killed = current()
				if res.killed == "" {
					res.killed = "(build)"
				}
			}
			kill()
			break loop
		}
	}
	close(quit)
	_ = stdout.Close() // unblocks the reader if the pipe is still open
	waitErr := cmd.Wait()
	res.wallTime = time.Since(start)
	if interrupted != nil {
		return nil, interrupted
	}
	var exitErr *exec.ExitError
	if waitErr != nil && !errors.As(waitErr, &exitErr) {
		return nil, fmt.Errorf("checker: go test: %w", waitErr)
	}
	res.harness = readHarnessReport(doneFile, nonce)
	if res.s.buildFailed {
		// The compiler names the files the run wrote (the renamed hidden
		// tests, the harness) where they are, in tmp, whose name changes
		// with every run and which is gone once it ends: name them where
		// the package has them instead.
		written := map[string]string{}
		for dst, src := range replace {
			if strings.HasPrefix(src, tmp+string(filepath.Separator)) {
				written[filepath.Clean(src)] = dst
			}
		}
		for base, snap := range r.snapshot {
			if abs, err := filepath.Abs(r.replace[base]); err == nil {
				written[filepath.Clean(snap)] = abs // the learner's own path
			}
		}
		for i, l := range res.s.buildOutput {
			if indent, abs, rest, ok := messageFile(l, cmd.Dir); ok && written[abs] != "" {
				res.s.buildOutput[i] = indent + written[abs] + rest
			}
		}
	}
	if r.isolate {
		res.changed = mod.changes()
	}
	if r.bin != "" && r.binSum == "" && !res.s.buildFailed {
		// The code under test ran with the binary at hand: take its hash
		// now, and refuse to run it again if it changes.
		if sum, err := fileSum(r.bin); err == nil {
			r.binSum = sum
		}
	}
	return res, nil
}

// fileSum returns the SHA-256 of a file's content.
func fileSum(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// environ is the environment of a run. An isolated run gets only what the
// go command needs (the code under test runs in it: it need not see the
// instructor's tokens and keys), and a temporary directory of its own.
func (r *run) environ(tmp string) ([]string, error) {
	env := os.Environ()
	// The go command's own work directory goes in the run's: when a run
	// is killed, the go command cannot remove it, and kata's removal of
	// the run's directory does.
	gotmp := filepath.Join(tmp, "gotmp")
	if err := os.Mkdir(gotmp, 0o700); err != nil {
		return nil, fmt.Errorf("checker: %w", err)
	}
	env = append(env, "GOTMPDIR="+gotmp)
	if r.isolate {
		env = scrubbed(env)
		dir := filepath.Join(tmp, "tmp")
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, fmt.Errorf("checker: %w", err)
		}
		env = append(env, "TMPDIR="+dir)
		if runtime.GOOS == "windows" {
			env = append(env, "TMP="+dir, "TEMP="+dir)
		}
	}
	return append(env, "GOWORK=off", "GOFLAGS=", "GO111MODULE=on"), nil
}

// keptEnv are the variables an isolated run keeps: what the go command,
// the C compiler the race detector needs, and the operating system use.
var keptEnv = map[string]bool{
	// the system
	"PATH": true, "HOME": true, "USER": true, "LOGNAME": true, "LANG": true, "LC_ALL": true,
	"LC_CTYPE": true, "TZ": true, "XDG_CACHE_HOME": true, "XDG_CONFIG_HOME": true,
	// Windows
	"SYSTEMROOT": true, "SYSTEMDRIVE": true, "WINDIR": true, "COMSPEC": true, "PATHEXT": true,
	"USERPROFILE": true, "APPDATA": true, "LOCALAPPDATA": true, "PROGRAMDATA": true,
	"PROGRAMFILES": true, "NUMBER_OF_PROCESSORS": true, "PROCESSOR_ARCHITECTURE": true,
	// Go
	"GOROOT": true, "GOPATH": true, "GOCACHE": true, "GOMODCACHE": true, "GOENV": true,
	"GOTOOLCHAIN": true, "GOPROXY": true, "GOSUMDB": true, "GONOSUMDB": true, "GONOPROXY": true,
	"GOPRIVATE": true, "GOINSECURE": true, "GOTELEMETRY": true, "GOTELEMETRYDIR": true,
	"GOEXPERIMENT": true, "GODEBUG": true, "GOMAXPROCS": true, "GOAMD64": true, "GOARM": true,
	"GOARM64": true, "GO386": true, "GORISCV64": true, "GOPPC64": true, "GOMIPS": true, "GOMIPS64": true,
	// cgo, which -race needs
	"CC": true, "CXX": true, "CGO_ENABLED": true, "CGO_CFLAGS": true, "CGO_CPPFLAGS": true,
	"CGO_CXXFLAGS": true, "CGO_LDFLAGS": true, "PKG_CONFIG": true,
}

// scrubbed keeps the variables of env named in keptEnv.
func scrubbed(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if keptEnv[strings.ToUpper(name)] {
			out = append(out, kv)
		}
	}
	return out
}

// removeAll removes dir even if the code under test took the write
// permission away from something in it.
func removeAll(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	_ = os.RemoveAll(dir)
}

// buildAllowance is the time a run may take beyond its tests' limits:
// compiling (with -race) and linking the test binary.
const buildAllowance = 3 * time.Minute
