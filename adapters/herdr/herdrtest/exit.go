//go:build !race

package herdrtest

import "os"

func exit(code int) { os.Exit(code) }
