//go:build !windows

package checker

import (
	"os"
	"time"
)

// secretChannel ends the harness's secretFile on Unix: the nonce comes on
// file descriptor 3, which the harness closes once read, and the events
// and the report go out on file descriptor 4. Both are pipes kata made;
// nothing in the file system, nor in the environment, leads to either.
const secretChannel = `
// kataReadSecret_ID reads the nonce kata sends on file descriptor 3, and
// closes it; the events and the report will go out on file descriptor 4.
func kataReadSecret_ID() kataChannel_ID {
	in := os.NewFile(3, "kata-secret")
	b := make([]byte, 0, 64)
	for len(b) < cap(b) {
		n, err := in.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			break
		}
	}
	in.Close()
	if len(b) == 0 {
		return kataChannel_ID{}
	}
	return kataChannel_ID{nonce: string(b), report: os.NewFile(4, "kata-report")}
}
`

// A reportChannel is kata's end of the harness's secret, events and
// report.
type reportChannel struct {
	nonce string
	// files are the test binary's ends, its file descriptors 3 (the
	// nonce, written and closed already) and 4 (the events and report).
	files []*os.File
	env   []string
	r     *os.File
	done  chan struct{}
	feed  *harnessFeed
}

// newReportChannel makes the pipes and starts reading what the harness
// sends, as it sends it.
func newReportChannel(string) (*reportChannel, error) {
	c := &reportChannel{nonce: newNonce(), done: make(chan struct{})}
	c.feed = newHarnessFeed(c.nonce)
	secretR, secretW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	// 32 bytes fit in any pipe's buffer: written now, read when the
	// harness starts.
	_, err = secretW.WriteString(c.nonce)
	secretW.Close()
	if err != nil {
		secretR.Close()
		return nil, err
	}
	reportR, reportW, err := os.Pipe()
	if err != nil {
		secretR.Close()
		return nil, err
	}
	c.files, c.r = []*os.File{secretR, reportW}, reportR
	go func() {
		defer close(c.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := reportR.Read(buf)
			// Past maxReport the feed takes nothing more, but the pipe is
			// read on: its writer would block, and never exit.
			c.feed.write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	return c, nil
}

// started closes kata's copies of the test binary's ends, once it has
// them: the report pipe then ends when the last process holding it does.
func (c *reportChannel) started() {
	for _, f := range c.files {
		f.Close()
	}
}

// state is where the run is, as its harness said so far.
func (c *reportChannel) state() harnessState { return c.feed.current() }

// report returns what the harness reported. Call it once every process
// of the run is dead: the pipe has then ended, or does within grace; if
// it has not, something outside the run holds it, and nothing it says is
// taken.
func (c *reportChannel) report(grace time.Duration) *harnessReport {
	select {
	case <-c.done:
	case <-time.After(grace):
		c.r.Close()
		<-c.done
		return nil
	}
	c.r.Close()
	return c.feed.report()
}

// close releases the channel of a run that did not start.
func (c *reportChannel) close() {
	c.started()
	c.r.Close()
}
