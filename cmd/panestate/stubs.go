package main

import "io"

func runEvents(args []string, stdin io.Reader, stdout, stderr io.Writer, env []string) int {
	return 2
}
func runDoctor(args []string, stdout, stderr io.Writer, env []string) int { return 2 }
