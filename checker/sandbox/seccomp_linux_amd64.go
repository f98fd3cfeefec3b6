package sandbox

import "golang.org/x/sys/unix"

// filterArch is the architecture the filter's numbers are for; a call
// made as another (i386's int $0x80) kills the process.
const filterArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks the numbers of the x32 ABI, which the kernel reports as
// AUDIT_ARCH_X86_64 too: a call with it set kills the process.
const x32Bit = 0x40000000

// archRefused are the calls only this architecture has: port I/O.
var archRefused = []uintptr{unix.SYS_IOPL, unix.SYS_IOPERM}
