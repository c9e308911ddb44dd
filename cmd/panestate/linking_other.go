//go:build !linux

package main

// dynamicallyLinked is false here: on macOS every program links the
// system's libraries, with cgo or without, and package net does not use
// cgo there; elsewhere no cost of the kind was measured.
func dynamicallyLinked() bool { return false }
