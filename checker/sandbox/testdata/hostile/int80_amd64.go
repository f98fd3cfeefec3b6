package main

import "fmt"

// x32Bit marks a system call number of the x32 ABI, which shares
// AUDIT_ARCH_X86_64 with the plain one.
const x32Bit = 0x40000000

// int80 makes a system call through int $0x80: the i386 ABI, with i386's
// numbers, from a 64-bit process (where the kernel has IA32 emulation).
func int80(trap, a1, a2, a3 uint32) int32

// int80Keyctl asks, through i386's numbers, for the session keyring's id:
// keyctl is 288 there, not 250. A filter that does not check the
// architecture first lets it through.
func int80Keyctl() string {
	r := int80(288, 0, 0xfffffffd, 0) // KEYCTL_GET_KEYRING_ID, @s
	if r < 0 && r > -4096 {
		return fmt.Sprintf("int80 keyctl: errno %d", -r)
	}
	return fmt.Sprintf("int80 keyctl: keyring %d", r)
}
