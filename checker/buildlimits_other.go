//go:build !linux

package checker

import "os/exec"

// buildFileSize: see buildlimits_linux.go. Other systems have no way to
// set another process's limits; there the build is bounded by kata's own
// watch (watchBuild) while kata runs, and its files by the disk, which
// Appendix D says.
const buildFileSize = 128 << 20

// limitBuild does nothing here.
func limitBuild(pid int, memory int64) error { return nil }

// dieWithKata does nothing here: a build outlives a kata killed hard.
func dieWithKata(cmd *exec.Cmd) {}
