// Command fakeherdr is the emulated Herdr 0.8.2 CLI of package herdrtest as a
// standalone program, for manual experiments and other languages' tests.
//
// It acts only when started under the name herdr (or herdr.exe): link or copy
// it to a directory as "herdr", create the state with herdrtest.Start from a
// Go program, or point HERDR_SOCKET_PATH at such a state file.
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
