package report

import "testing"

// TestSafeCellLooksPastSpaces: a spreadsheet skips spaces, tabs and line
// breaks before a formula, so a cell is defused by its first character
// that is not one (' =1+1' was let through), and a cell that starts with
// anything unseen is quoted too.
func TestSafeCellLooksPastSpaces(t *testing.T) {
	for _, cell := range []string{"=1+1", " =1+1", "\t=1+1", "\r=1+1", "\r\n@SUM(A1)", "  +cmd|calc!A0", "\u00a0=1+1",
		"\u3000-2+3", "＝1+1", "|calc", "%0A=1", "\u200b=1+1", " ", "\t"} {
		if got := safeCell(cell); got != "'"+cell {
			t.Errorf("safeCell(%q) = %q, want it quoted", cell, got)
		}
	}
	for _, cell := range []string{"", "alice", "01-ringbuffer: not started", "Ada Lovelace", "100"} {
		if got := safeCell(cell); got != cell {
			t.Errorf("safeCell(%q) = %q, want it as it is", cell, got)
		}
	}
}
