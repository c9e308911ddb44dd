package main

import "golang.org/x/sys/unix"

// atBase is the auxiliary vector's entry for the base address of the
// program's interpreter, the dynamic loader (AT_BASE in <elf.h>, 7 on every
// Linux architecture).
const atBase = 7

// dynamicallyLinked reports whether this program was started by a dynamic
// loader: the kernel puts the loader's address in the auxiliary vector
// only then. A Go build with cgo (a plain `go install` where a C compiler
// is present) is one: package net links libc's resolver. It costs no
// system call: the runtime keeps the vector from the program's start.
func dynamicallyLinked() bool {
	auxv, err := unix.Auxv()
	if err != nil {
		return false
	}
	for _, kv := range auxv {
		if kv[0] == atBase {
			return kv[1] != 0
		}
	}
	return false
}
