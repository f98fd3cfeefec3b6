//go:build kata_interleave

#include "textflag.h"

// func kitGetg() uintptr: the calling goroutine's g, from thread-local
// storage (see self_getg_test.go).
TEXT ·kitGetg(SB), NOSPLIT, $0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
