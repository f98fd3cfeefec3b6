//go:build unix

package main

import (
	"os"
	"syscall"
)

// stopSignals end kata cleanly: the check's processes killed and its
// temporary directories removed. SIGTERM is what kill and timeout send;
// SIGHUP, a closed terminal.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}
