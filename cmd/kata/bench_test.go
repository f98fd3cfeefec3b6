package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gmp-kata/gmp-kata/internal/workspace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// benchWorkspace makes a fresh workspace, with runq.go replaced by src if
// src is not nil, and a grading cache of its own.
func benchWorkspace(t *testing.T, src []byte) string {
	t.Helper()
	t.Setenv("KATA_CACHE", filepath.Join(t.TempDir(), "cache"))
	dir := filepath.Join(t.TempDir(), "ws")
	_, errOut, code := kata(t, "", "init", dir)
	require.Equal(t, exitOK, code, errOut)
	if src != nil {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "runq.go"), src, 0o644))
	}
	return dir
}

func TestBenchUsage(t *testing.T) {
	dir := benchWorkspace(t, nil)
	for _, args := range [][]string{
		{"bench"},
		{"bench", "01", "02"},
		{"bench", "99"},
		{"bench", "01", "--count", "0"},
		{"bench", "01", "--benchtime", "-1s"},
		{"bench", "01", "--format", "yaml"},
	} {
		_, errOut, code := kata(t, dir, args...)
		assert.Equal(t, exitUsage, code, "kata %s: %s", strings.Join(args, " "), errOut)
		assert.NotEmpty(t, errOut, "kata %s must say what is wrong", strings.Join(args, " "))
	}
}

// TestBenchStubIsNotPassing: in a fresh workspace runq.go is the stub; kata
// bench says to pass the lesson first, and exits 1.
func TestBenchStubIsNotPassing(t *testing.T) {
	dir := benchWorkspace(t, nil)
	out, errOut, code := kata(t, dir, "bench", "01", "--count", "1", "--benchtime", "10ms")
	assert.Equal(t, exitFailed, code, out+errOut)
	assert.Contains(t, errOut, "lesson 01-ringbuffer is not passing yet")
	assert.Contains(t, errOut, "not implemented: runqputtail")
	assert.Contains(t, errOut, "run 'kata check 01' first")
	assert.NotContains(t, out, "yours/ref", "no table for code that does not run")
}

// TestBenchReferenceTable: with the reference's runq.go, kata bench prints
// the table, and its JSON carries ratios that are the medians' ratios.
func TestBenchReferenceTable(t *testing.T) {
	ref, err := workspace.Reference("runq.go")
	require.NoError(t, err)
	dir := benchWorkspace(t, ref)

	out, errOut, code := kata(t, dir, "bench", "ringbuffer", "--count", "2", "--benchtime", "10ms")
	require.Equal(t, exitOK, code, errOut)
	for _, want := range []string{"01-ringbuffer", "yours/ref", "ref/native", "PutGet", "Steal", "Overflow", "runqputslow", "cannot tell that from noise"} {
		assert.Contains(t, out, want)
	}
	assert.Contains(t, errOut, "run 2 of 2", "progress goes to stderr")

	out, errOut, code = kata(t, dir, "bench", "01", "--count", "2", "--benchtime", "10ms", "--format", "json")
	require.Equal(t, exitOK, code, errOut)
	var res struct {
		ID         string `json:"id"`
		Count      int    `json:"count"`
		Benchmarks []struct {
			Name  string `json:"name"`
			Yours struct {
				Median float64 `json:"median_ns_per_op"`
			}
			Reference struct {
				Median float64 `json:"median_ns_per_op"`
			}
			Ratio float64 `json:"yours_vs_reference"`
		} `json:"benchmarks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &res), out)
	assert.Equal(t, "01-ringbuffer", res.ID)
	assert.Equal(t, 2, res.Count)
	require.Len(t, res.Benchmarks, 3)
	for _, b := range res.Benchmarks {
		require.Positive(t, b.Reference.Median, b.Name)
		assert.InDelta(t, b.Yours.Median/b.Reference.Median, b.Ratio, 1e-9*math.Max(1, b.Ratio), b.Name)
	}
}
