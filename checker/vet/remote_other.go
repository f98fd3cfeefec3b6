//go:build !linux

package vet

import (
	"os"
	"syscall"
)

// executable is the program to start as a Remote's child: this one.
func executable() (string, error) { return os.Executable() }

// childAttr: nothing more. A Remote's child ends when its input closes,
// which it reads even while it is busy: when kata exits, or is killed.
func childAttr() *syscall.SysProcAttr { return nil }
