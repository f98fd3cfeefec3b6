package grade

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/gmp-kata/gmp-kata/checker"
)

// The result cache. A lesson's grade depends only on the lesson's files,
// the lesson's tests (the course's and the pack's) and the kata that
// grades them, so it is stored under the hash of exactly those:
//
//	key = sha256(cacheFormat, kata's executable, the checker's fingerprint
//	             (reference, hidden tests, kit, pack, race, limits, harness),
//	             the go toolchain, the lesson's ID and tests,
//	             each lesson file's name and content)
//
// Identical files therefore grade once, within a grading and across
// gradings; a grading that was killed resumes where it stopped, since
// every finished grade is already stored; and changing anything a grade
// depends on (a new kata, a private test pack) misses the cache instead of
// reusing a stale grade. Entries are written to a temporary file renamed
// into place: a killed kata leaves whole entries or none.

// cacheFormat changes when the stored entry's meaning does.
const cacheFormat = 1

// A cacheEntry is one stored grade.
type cacheEntry struct {
	Format int                   `json:"format"`
	Key    string                `json:"key"`
	Result *checker.LessonResult `json:"result"`
}

// cache stores grades in dir.
type cache struct {
	dir string
}

func (c *cache) path(key string) string {
	return filepath.Join(c.dir, key[:2], key+".json")
}

// get returns the stored grade of key, or nil. An unreadable entry is a
// miss: the lesson is graded again and the entry replaced.
func (c *cache) get(key string) *checker.LessonResult {
	if c == nil {
		return nil
	}
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Format != cacheFormat || e.Key != key || e.Result == nil {
		return nil
	}
	return e.Result
}

// put stores the grade of key.
func (c *cache) put(key string, res *checker.LessonResult) error {
	if c == nil {
		return nil
	}
	data, err := json.Marshal(cacheEntry{Format: cacheFormat, Key: key, Result: res})
	if err != nil {
		return err
	}
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("grade: result cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "tmp-*.json")
	if err != nil {
		return fmt.Errorf("grade: result cache: %w", err)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("grade: result cache: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("grade: result cache: %w", err)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("grade: result cache: %w", err)
	}
	return nil
}

var (
	exeOnce sync.Once
	exeHash string
)

// Version names this kata for the cache: the hash of its executable, so
// that any change to kata (its grading logic, its messages) grades anew.
// If the executable cannot be read it is "unknown", and only the checker's
// fingerprint tells versions apart.
func Version() string {
	exeOnce.Do(func() {
		exeHash = "unknown"
		exe, err := os.Executable()
		if err != nil {
			return
		}
		f, err := os.Open(exe)
		if err != nil {
			return
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err == nil {
			exeHash = hex.EncodeToString(h.Sum(nil))
		}
	})
	return exeHash
}
