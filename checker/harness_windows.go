package checker

import (
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// secretChannel ends the harness's secretFile on Windows, where a process
// cannot hand its pipes down: the nonce, and the path of the file to write
// the events and the report to, are in the test binary's environment, and
// the harness reads and unsets them in its first variable's initialiser.
// Code of the package that runs before it (a variable of a file whose
// name sorts first, or an import's) could read them: on Windows the
// harness stops lines that only look like a pass, not code written
// against it.
const secretChannel = `
func kataReadSecret_ID() kataChannel_ID {
	c := kataChannel_ID{nonce: os.Getenv("KATA_GRADE_NONCE"), path: os.Getenv("KATA_GRADE_DONE")}
	os.Unsetenv("KATA_GRADE_NONCE")
	os.Unsetenv("KATA_GRADE_DONE")
	if c.path != "" {
		c.report, _ = os.OpenFile(c.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	}
	return c
}
`

// A reportChannel is kata's end of the harness's secret, events and
// report: a file the harness appends to, which kata reads as it grows.
type reportChannel struct {
	nonce string
	files []*os.File // none on Windows
	env   []string
	path  string

	mu   sync.Mutex
	read int64 // what kata has read of the file
	feed *harnessFeed
}

// newReportChannel names the report's file, in dir.
func newReportChannel(dir string) (*reportChannel, error) {
	c := &reportChannel{nonce: newNonce(), path: filepath.Join(dir, "done-"+newNonce()+".json")}
	c.feed = newHarnessFeed(c.nonce)
	c.env = []string{"KATA_GRADE_DONE=" + c.path, "KATA_GRADE_NONCE=" + c.nonce}
	return c, nil
}

func (c *reportChannel) started() {}

// poll reads what the harness has added to the file since the last poll.
func (c *reportChannel) poll() {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, err := os.Open(c.path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(c.read, io.SeekStart); err != nil {
		return
	}
	data, _ := io.ReadAll(io.LimitReader(f, maxReport+1))
	c.read += int64(len(data))
	c.feed.write(data)
}

// state is where the run is, as its harness said so far.
func (c *reportChannel) state() harnessState {
	c.poll()
	return c.feed.current()
}

// report reads the rest of the file, once the run is over.
func (c *reportChannel) report(time.Duration) *harnessReport {
	c.poll()
	_ = os.Remove(c.path)
	return c.feed.report()
}

func (c *reportChannel) close() { _ = os.Remove(c.path) }
