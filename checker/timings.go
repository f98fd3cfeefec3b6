package checker

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"
)

// The tests' times at the last check of a lesson, by which the next check
// spreads them over its processes (shards): a lesson's time limits say
// which tests are long only roughly (lesson 07's differential test, a
// second, has a shorter limit than tests of a tenth of that). Kept in
// kata's cache directory, a small file per lesson; a check that finds none,
// or one that does not time every test it runs, goes by the limits.

// timingsPath is where lesson id's times are kept.
func (c *Checker) timingsPath(id string) string {
	return filepath.Join(c.opts.CacheDir, "timings", id+".json")
}

// lastTimes is the time each test of lesson id took at its last check,
// if every one of tests was timed then; else nil.
func (c *Checker) lastTimes(id string, tests []string) map[string]time.Duration {
	data, err := os.ReadFile(c.timingsPath(id))
	if err != nil {
		return nil
	}
	var secs map[string]float64
	if json.Unmarshal(data, &secs) != nil {
		return nil
	}
	out := map[string]time.Duration{}
	for _, name := range tests {
		s, ok := secs[name]
		if !ok || s < 0 {
			return nil
		}
		out[name] = time.Duration(s*float64(time.Second)) + time.Millisecond // a test of no time still weighs
	}
	return out
}

// keepTimes keeps the times of res's tests for the next check of its
// lesson. Failing to keep them only costs that check a balance.
func (c *Checker) keepTimes(res *LessonResult) {
	secs := map[string]float64{}
	for _, t := range res.Tests {
		secs[t.Name] = t.Elapsed
	}
	data, err := json.Marshal(secs)
	if err != nil {
		return
	}
	p := c.timingsPath(res.ID)
	if os.MkdirAll(filepath.Dir(p), 0o755) != nil {
		return
	}
	tmp := p + ".tmp"
	if os.WriteFile(tmp, data, 0o644) == nil {
		_ = os.Rename(tmp, p) // a check reading it sees the old file or the new
	}
}
