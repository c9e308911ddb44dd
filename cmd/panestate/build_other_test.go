//go:build !linux

package main

// removeBuild: the tests that build the command run on Linux only.
func removeBuild() {}
