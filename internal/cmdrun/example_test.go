package cmdrun_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/panestate/panestate/internal/cmdrun"
)

// An adapter runs its workspace's CLI once per report and turns a failure
// into a diagnostic. Here the test binary stands in for a CLI such as tmux.
func Example() {
	exe, _ := os.Executable()
	r := &cmdrun.Runner{
		Path:    exe,                      // absolute; cmdrun.LookPath finds one in a captured PATH
		Env:     []string{"LANG=C.UTF-8"}, // the child's whole environment
		Timeout: 2 * time.Second,
		Recognize: func(_, stderr []byte) string {
			if bytes.Contains(stderr, []byte("no server running")) {
				return "no_server"
			}
			return ""
		},
	}
	ctx := context.Background()

	out, err := r.Run(ctx, "cmdrun-helper", "exit", "0", "ok", "")
	fmt.Printf("%q %v\n", out.Stdout, err)

	_, err = r.Run(ctx, "cmdrun-helper", "exit", "1", "", "no server running on /tmp/tmux-1000/default\n")
	var e *cmdrun.Error
	if errors.As(err, &e) {
		fmt.Println(e.Kind, "|", e.Detail())
	}
	// Output:
	// "ok" <nil>
	// protocol_rejected | exit 1: no_server
}

func ExampleParseTimeout() {
	for _, raw := range []string{``, `"2s"`, `750`, `"1h"`} {
		d, clamped, err := cmdrun.ParseTimeout([]byte(raw))
		fmt.Printf("%-6s %v %q %v\n", raw, d, clamped, err)
	}
	// Output:
	//        5s "" <nil>
	// "2s"   2s "" <nil>
	// 750    750ms "" <nil>
	// "1h"   1m0s "timeout 1h0m0s is above 1m0s; using 1m0s" <nil>
}
