package sandbox

import "golang.org/x/sys/unix"

// filterArch is the architecture the filter's numbers are for; a call
// made as another (a 32-bit arm process's) kills the process.
const filterArch = unix.AUDIT_ARCH_AARCH64

// x32Bit: arm64 has no second ABI of its own numbers.
const x32Bit = 0

// archRefused are the calls only this architecture has: none.
var archRefused []uintptr
