package hostflags_test

import (
	"flag"
	"fmt"

	"github.com/panestate/panestate/internal/hostflags"
)

func Example() {
	fs := flag.NewFlagSet("chat", flag.ContinueOnError)
	f := hostflags.Register(fs)
	if err := fs.Parse([]string{"--app", "mychat", "--role", "subagent", "--project", "/work/repo"}); err != nil {
		fmt.Println(err)
		return
	}
	opts, err := f.Options([]string{"HOME=/home/me"}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(opts.App, "interactive:", opts.Host.Interactive, "root:", opts.Host.Root)
	// Output:
	// mychat interactive: true root: false
}
