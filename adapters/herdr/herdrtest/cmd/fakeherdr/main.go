// Command fakeherdr is the emulated Herdr CLI of package herdrtest as a
// standalone program, for manual experiments and other languages' tests.
//
// It acts only when started under the name herdr (or herdr.exe): link or
// copy it to a directory as "herdr". It is a client of an emulated server,
// which a Go program starts with herdrtest.Start; the command herdremu
// (in the directory next to this one) starts one and runs a program in its
// pane.
package main

import (
	"fmt"
	"os"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func main() {
	herdrtest.Main()
	fmt.Fprintln(os.Stderr, "fakeherdr: run this program under the name herdr (link or copy it)")
	os.Exit(2)
}
