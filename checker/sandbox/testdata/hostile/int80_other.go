//go:build !amd64

package main

const x32Bit = 0

func int80Keyctl() string { return "int80: not amd64" }
