package vet

import "syscall"

// executable is the program to start as a Remote's child: this one, by
// the kernel's own link to it (it still works if the file was replaced).
func executable() (string, error) { return "/proc/self/exe", nil }

// childAttr kills a Remote's child if kata dies, however it dies, even
// while the child is busy and not reading its input.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
