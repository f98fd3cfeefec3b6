package main

import (
	"fmt"
	"strings"
)

// unifiedDiff returns a unified diff of two texts, line by line, with three
// lines of context. The files are small (a lesson's source), so a plain
// longest-common-subsequence table is fast enough.
func unifiedDiff(nameA, nameB, a, b string) string {
	x, y := splitLines(a), splitLines(b)
	// lcs[i][j] is the length of the LCS of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte // ' ', '-', '+'
		line string
		ai   int // line number in a (1-based) of ' ' and '-'
		bi   int // in b, of ' ' and '+'
	}
	var ops []op
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, op{' ', x[i], i + 1, j + 1})
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, op{'+', y[j], i + 1, j + 1})
			j++
		default:
			ops = append(ops, op{'-', x[i], i + 1, j + 1})
			i++
		}
	}
	const context = 3
	var out strings.Builder
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		start := max(k-context, 0)
		end := k
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run-end > 2*context || run == len(ops) {
				end = min(end+context, len(ops))
				break
			}
			end = run
		}
		if out.Len() == 0 {
			fmt.Fprintf(&out, "--- %s\n+++ %s\n", nameA, nameB)
		}
		var na, nb int
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				na++
			}
			if o.kind != '-' {
				nb++
			}
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", ops[start].ai, na, ops[start].bi, nb)
		for _, o := range ops[start:end] {
			line := o.line
			if !strings.HasSuffix(line, "\n") {
				line += "\n\\ No newline at end of file\n"
			}
			out.WriteByte(o.kind)
			out.WriteString(line)
		}
		k = end
	}
	if out.Len() == 0 {
		return "Your " + strings.TrimPrefix(nameA, "yours/") + " is identical to the reference.\n"
	}
	return out.String()
}

// splitLines splits s after each newline; a final newline ends the last
// line rather than starting an empty one.
func splitLines(s string) []string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}
