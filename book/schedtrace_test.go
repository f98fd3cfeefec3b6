package book

import (
	"bytes"
	"io/fs"
	"regexp"
	"strings"
	"testing"
	"time"

	sched "github.com/gmp-kata/gmp-kata/solutions"
	"github.com/stretchr/testify/require"
)

// TestSchedTraceSamples: the schedtrace lines appendix E shows as printed
// by `kata demo` have the fields, in the order, that Runtime.SchedTrace
// prints now (kata demo's lines are its lines).
func TestSchedTraceSamples(t *testing.T) {
	data, err := fs.ReadFile(repo(), "book/src/appendix-runtime.md")
	require.NoError(t, err)
	samples := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if kind := lineKind(line); kind != "" {
			samples[kind] = append(samples[kind], line)
		}
	}
	require.NotEmpty(t, samples["SCHED"], "appendix E shows no SCHED line")

	rt := sched.New(sched.Config{Procs: 2})
	defer rt.Close()
	ch := sched.NewChan[int](0)
	rt.Go(func(g *sched.G) { ch.Recv(g) }) // a G, for a G line
	time.Sleep(time.Millisecond)
	ours := map[string]map[string]bool{} // kind → shapes
	for _, detailed := range []bool{false, true} {
		var b bytes.Buffer
		require.NoError(t, rt.SchedTrace(&b, detailed))
		for _, line := range strings.Split(b.String(), "\n") {
			if kind := lineKind(line); kind != "" {
				if ours[kind] == nil {
					ours[kind] = map[string]bool{}
				}
				ours[kind][shape(line)] = true
			}
		}
	}
	for kind, lines := range samples {
		for _, line := range lines {
			if !ours[kind][shape(line)] {
				t.Errorf("appendix E shows %q, which kata demo no longer prints: its %s lines are shaped %v", line, kind, ours[kind])
			}
		}
	}
}

// lineKind says which schedtrace line line is: SCHED, P, M, G, or "".
func lineKind(line string) string {
	switch {
	case strings.HasPrefix(line, "SCHED "):
		return "SCHED"
	case regexp.MustCompile(`^  [PMG]\d+: `).MatchString(line):
		return line[2:3]
	}
	return ""
}

var (
	shapeReason = regexp.MustCompile(`\(.*\) m=`)
	shapeValue  = regexp.MustCompile(`-?\d+|\b(true|false|nil)\b`)
	shapeList   = regexp.MustCompile(`\[( _)+ \]`)
)

// shape reduces a schedtrace line to its field names and punctuation:
// values become _, a G's wait reason (), a list of numbers [ _ ].
func shape(line string) string {
	line = shapeReason.ReplaceAllString(line, "() m=")
	line = shapeValue.ReplaceAllString(line, "_")
	return shapeList.ReplaceAllString(line, "[ _ ]")
}
