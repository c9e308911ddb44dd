//go:build race

package herdrtest

import "syscall"

// exit skips the race runtime's exit hook, which sleeps one second
// (GORACE atexit_sleep_ms) in every process: the fake binary runs dozens of
// times per test. Races are still reported when they are detected.
func exit(code int) { syscall.Exit(code) }
