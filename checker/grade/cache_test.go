package grade

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gmp-kata/gmp-kata/checker"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullMarks is the result a forger would write for lesson id: every test
// passed.
func fullMarks(t testing.TB, id string) *checker.LessonResult {
	l := lesson(t, id)
	res := &checker.LessonResult{ID: l.ID, Title: l.Title, Status: checker.StatusPass, MaxScore: l.MaxScore(), Score: l.MaxScore()}
	for _, tt := range l.Tests {
		res.Tests = append(res.Tests, checker.TestResult{Name: tt.Name, Status: checker.StatusPass, Score: tt.Points, MaxScore: tt.Points})
	}
	return res
}

// forge writes the entry a run could write for key: it can compute the
// key (kata's executable is /proc/<kata>/exe, the course is in its module
// copy, the skeleton is public), not kata's secret, so its MAC is made
// with a key of its own. It writes it where the key says (grades/ab/
// abcd….json), and over every file of the key that is there already (a
// run that lists the directory) if overwrite.
func forge(t testing.TB, cacheDir, key string, res *checker.LessonResult, overwrite bool) {
	t.Helper()
	result, err := json.Marshal(res)
	require.NoError(t, err)
	mac := hmac.New(sha256.New, []byte("a key the run made up"))
	mac.Write([]byte(key))
	mac.Write(result)
	data, err := json.Marshal(map[string]any{"format": cacheFormat, "key": key, "mac": hex.EncodeToString(mac.Sum(nil)), "result": json.RawMessage(result)})
	require.NoError(t, err)
	paths := []string{filepath.Join(cacheDir, "grades", key[:2], key+".json")}
	if overwrite {
		found, err := filepath.Glob(filepath.Join(cacheDir, "grades", key[:2], key+".*"))
		require.NoError(t, err)
		paths = append(paths, found...)
	}
	for _, p := range paths {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
}

// TestCacheIgnoresForgedEntries: a run wrote full marks for the skeleton's
// runq.go into the result cache, under the key kata computes for it. kata
// must not take it: every student who handed in the stub would get them.
func TestCacheIgnoresForgedEntries(t *testing.T) {
	cache := t.TempDir()
	g, err := New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
	require.NoError(t, err)
	l := lesson(t, "01-ringbuffer")
	stub := map[string][]byte{"runq.go": skel(t, "runq.go")}
	key := g.key(l, stub)

	forge(t, cache, key, fullMarks(t, l.ID), false)
	again, err := New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
	require.NoError(t, err)
	assert.Nil(t, again.cache.get(key), "a forged entry was taken for a grade")

	// kata's own entry is taken, by a later kata too...
	mine := fullMarks(t, l.ID)
	mine.Score--
	require.NoError(t, g.cache.put(key, mine))
	got := again.cache.get(key)
	require.NotNil(t, got)
	assert.Equal(t, mine.Score, got.Score)

	// A forgery where the key says does not take the place of kata's own
	// entry; one written over kata's file is refused.
	forge(t, cache, key, fullMarks(t, l.ID), false)
	got = again.cache.get(key)
	require.NotNil(t, got, "a forged entry displaced kata's own")
	assert.Equal(t, mine.Score, got.Score)
	forge(t, cache, key, fullMarks(t, l.ID), true)
	assert.Nil(t, again.cache.get(key), "a forged entry over kata's file was taken")
	require.NoError(t, g.cache.put(key, mine))

	// ...but not under another key: an entry moved to another file is not
	// that file's grade.
	other := g.key(l, map[string][]byte{"runq.go": ref(t, "runq.go")})
	data, err := os.ReadFile(g.cache.path(key))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Dir(g.cache.path(other)), 0o755))
	require.NoError(t, os.WriteFile(g.cache.path(other), data, 0o644))
	assert.Nil(t, again.cache.get(other), "an entry moved to another key was taken")

	// An entry whose result was edited after kata stored it is refused.
	var e map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(data, &e))
	var res checker.LessonResult
	require.NoError(t, json.Unmarshal(e["result"], &res))
	res.Score = res.MaxScore
	e["result"], err = json.Marshal(res)
	require.NoError(t, err)
	edited, err := json.Marshal(e)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(g.cache.path(key), edited, 0o644))
	assert.Nil(t, again.cache.get(key), "an edited entry was taken")
}

// TestCacheKeyFile: kata's secret is made on first use, in kata's cache
// directory, readable by the user alone, and kept.
func TestCacheKeyFile(t *testing.T) {
	cache := t.TempDir()
	_, err := New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
	require.NoError(t, err)
	p := filepath.Join(cache, cacheKeyFile)
	fi, err := os.Stat(p)
	require.NoError(t, err)
	if runtime.GOOS != "windows" {
		assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	}
	first, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(first), 32)
	_, err = New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
	require.NoError(t, err)
	second, err := os.ReadFile(p)
	require.NoError(t, err)
	assert.Equal(t, first, second, "the key is made once")

	if runtime.GOOS != "windows" {
		// A key others can read is not a secret: kata says so and stops.
		require.NoError(t, os.Chmod(p, 0o644))
		_, err = New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
		require.Error(t, err)
		assert.Contains(t, err.Error(), "readable by others")
	}
}

// TestCacheKeyGoneIsSaid: a run that deleted kata's key would make kata
// grade every submission anew (a timing-dependent grade may come out
// otherwise); kata stops and says so instead of making a new key.
func TestCacheKeyGoneIsSaid(t *testing.T) {
	cache := t.TempDir()
	g, err := New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
	require.NoError(t, err)
	l := lesson(t, "01-ringbuffer")
	require.NoError(t, g.cache.put(g.key(l, map[string][]byte{"runq.go": skel(t, "runq.go")}), fullMarks(t, l.ID)))
	require.NoError(t, os.Remove(filepath.Join(cache, cacheKeyFile)))
	_, err = New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is gone, but the cache holds grades it signed")
	require.NoError(t, os.RemoveAll(filepath.Join(cache, "grades")))
	_, err = New(Options{CacheDir: cache, Lessons: []string{"01-ringbuffer"}})
	assert.NoError(t, err, "without grades, a new key is made")
}
