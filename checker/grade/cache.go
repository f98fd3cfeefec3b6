package grade

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/gmp-kata/gmp-kata/checker"
)

// The result cache. A lesson's grade depends only on the lesson's files,
// the lesson's tests (the course's and the pack's) and the kata that
// grades them, so it is stored under the hash of exactly those:
//
//	key = sha256(cacheFormat, kata's executable, the checker's fingerprint
//	             (reference, hidden tests, kit, pack, race, limits, harness),
//	             the go toolchain and the build settings a run inherits,
//	             the lesson's ID and tests, --runs,
//	             each lesson file's name and content)
//
// Identical files therefore grade once, within a grading and across
// gradings; a grading that was killed resumes where it stopped, since
// every finished grade is already stored; and changing anything a grade
// depends on (a new kata, a private test pack) misses the cache instead of
// reusing a stale grade. Entries are written to a temporary file renamed
// into place: a killed kata leaves whole entries or none.
//
// Anyone can compute a key: kata's executable, the course and the skeleton
// are no secret. A graded run, which runs as the instructor, could write
// an entry under the key of the skeleton's stubs and give full marks to
// every student who handed them in. So each entry carries an HMAC-SHA256,
// with a key only kata knows (cacheKeyFile, made on first use, 0600, in
// kata's cache directory, never given to a run), of the format, the key
// and the whole stored grade; an entry whose MAC does not verify is not a
// grade, and the lesson is graded again. The entry's file name carries a
// tag made with the same key (path), so that a forged entry does not even
// take the place of kata's own. Without a sandbox that hides
// kata's cache directory from runs, a run as the same user can still read
// (or replace) that file: see the threat model in the book's appendix D.

// cacheFormat changes when the stored entry's meaning does.
const cacheFormat = 2

// cacheKeyFile holds kata's secret MAC key, in the cache directory.
const cacheKeyFile = "grade.key"

// maxCacheEntry bounds what kata reads of one entry: a grade's messages
// hold at most a run's output (8 MiB), escaped.
const maxCacheEntry = 64 << 20

// A cacheEntry is one stored grade. Result is kept as the bytes that were
// MACed.
type cacheEntry struct {
	Format int             `json:"format"`
	Key    string          `json:"key"`
	MAC    string          `json:"mac"`
	Result json.RawMessage `json:"result"`
}

// cache stores grades in dir.
type cache struct {
	dir    string
	secret []byte
}

// openCache opens the result cache in cacheDir/grades, with kata's secret
// from cacheDir (made if there is none).
func openCache(cacheDir string) (*cache, error) {
	secret, err := loadSecret(cacheDir, filepath.Join(cacheDir, "grades"))
	if err != nil {
		return nil, err
	}
	return &cache{dir: filepath.Join(cacheDir, "grades"), secret: secret}, nil
}

// path is where the entry of key is: a name with a tag only kata can
// compute, so that an entry a run writes where it computes the entry of key
// would be (grades/ab/abcd….json) is not read at all, and kata's own entry
// is still there beside it. (A run that lists the directory can still
// find kata's file and spoil it; its MAC then fails, and the lesson is
// graded again.)
func (c *cache) path(key string) string {
	m := hmac.New(sha256.New, c.secret)
	fmt.Fprintf(m, "kata grade cache file\n%s\n", key)
	return filepath.Join(c.dir, key[:2], key+"."+hex.EncodeToString(m.Sum(nil))[:32]+".json")
}

// mac is the MAC of the grade result stored under key.
func (c *cache) mac(key string, result []byte) []byte {
	m := hmac.New(sha256.New, c.secret)
	fmt.Fprintf(m, "kata grade cache entry\nformat %d\nkey %s\n", cacheFormat, key)
	m.Write(result)
	return m.Sum(nil)
}

// get returns the stored grade of key, or nil. An entry that is not a
// regular file, is too large, does not parse, or whose MAC does not verify
// is a miss: the lesson is graded again and the entry replaced.
func (c *cache) get(key string) *checker.LessonResult {
	if c == nil {
		return nil
	}
	p := c.path(key)
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCacheEntry {
		return nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var e cacheEntry
	if json.Unmarshal(data, &e) != nil || e.Format != cacheFormat || e.Key != key || len(e.Result) == 0 {
		return nil
	}
	mac, err := hex.DecodeString(e.MAC)
	if err != nil || !hmac.Equal(mac, c.mac(key, e.Result)) {
		return nil
	}
	var res checker.LessonResult
	if json.Unmarshal(e.Result, &res) != nil {
		return nil
	}
	return &res
}

// put stores the grade of key.
func (c *cache) put(key string, res *checker.LessonResult) error {
	if c == nil {
		return nil
	}
	result, err := json.Marshal(res)
	if err != nil {
		return err
	}
	// Written by hand, so that the result's bytes are the ones MACed (an
	// encoder would compact and re-escape them).
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"format":%d,"key":%q,"mac":%q,"result":`, cacheFormat, key, hex.EncodeToString(c.mac(key, result)))
	b.Write(result)
	b.WriteString("}\n")
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("grade: result cache: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "tmp-*.json")
	if err != nil {
		return fmt.Errorf("grade: result cache: %w", err)
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
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

// loadSecret returns kata's MAC key from dir, making it on first use: 32
// random bytes, hex, in a file only the user may read or write. A key
// that others may read is refused (it proves nothing), and so is a
// missing key beside grades it signed: a run may have deleted it, and
// making a new one would silently grade every submission anew.
func loadSecret(dir, grades string) ([]byte, error) {
	p := filepath.Join(dir, cacheKeyFile)
	secret, err := readSecret(p)
	if !errors.Is(err, fs.ErrNotExist) {
		return secret, err
	}
	if signedEntries(grades) {
		return nil, fmt.Errorf("grade: the key of kata's result cache (%s) is gone, but the cache holds grades it signed: something deleted it (a graded run can, without a sandbox). Restore it, or delete %s to grade every submission anew", p, grades)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("grade: result cache: %w", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		return nil, err
	}
	tmp, err := os.CreateTemp(dir, "tmp-key-*") // 0600
	if err != nil {
		return nil, fmt.Errorf("grade: result cache: %w", err)
	}
	_, err = tmp.WriteString(hex.EncodeToString(key) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		// Link, not rename: a kata that made its key at the same moment
		// keeps it, and both use it.
		if err = os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
			err = os.Rename(tmp.Name(), p) // a file system without links
		} else {
			err = nil
		}
	}
	os.Remove(tmp.Name())
	if err != nil {
		return nil, fmt.Errorf("grade: result cache: %w", err)
	}
	return readSecret(p)
}

func readSecret(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("grade: %s, the key of kata's result cache, is not a regular file", p)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("grade: %s, the key that proves kata's cached grades are kata's, is readable by others (mode %v): chmod 600 it, or delete it and its grades directory to grade every submission anew", p, fi.Mode().Perm())
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(data)))
	if err != nil || len(key) < 32 {
		return nil, fmt.Errorf("grade: %s, the key of kata's result cache, is not a key: delete it and its grades directory to grade every submission anew", p)
	}
	return key, nil
}

// signedEntries reports whether grades holds an entry of this format,
// which only a key could have signed.
func signedEntries(grades string) bool {
	dirs, err := os.ReadDir(grades)
	if err != nil {
		return false
	}
	for _, d := range dirs {
		entries, _ := filepath.Glob(filepath.Join(grades, d.Name(), "*.json"))
		for _, p := range entries {
			var e struct {
				Format int `json:"format"`
			}
			if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCacheEntry {
				continue
			}
			if data, err := os.ReadFile(p); err == nil && json.Unmarshal(data, &e) == nil && e.Format == cacheFormat {
				return true
			}
		}
	}
	return false
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
