//go:build kata_interleave

#include "textflag.h"

// func kitGetg() uintptr: the calling goroutine's g, which arm64 keeps in
// a register (see self_getg_test.go).
TEXT ·kitGetg(SB), NOSPLIT, $0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
