package claim_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/panestate/panestate/internal/claim"
)

// Two adapters of one process claim the same pane: the newer one owns it,
// the older one is refused until the newer one releases it.
func Example() {
	dir, err := os.MkdirTemp("", "claim-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	k := claim.Key{Kind: "example", Server: "/run/example.sock", Pane: "%1"}
	opts := claim.Options{Dir: filepath.Join(dir, "state")}
	call := func(c *claim.Claim, op claim.Op) {
		now := time.Now()
		x, err := c.Begin(context.Background(), context.Background(), claim.BeginOptions{
			Op: op, Wait: now.Add(time.Second), Budget: time.Second})
		if err != nil {
			panic(err)
		}
		if x.Send {
			fmt.Println(op, "sent")
		} else {
			fmt.Println(op, "refused: the pane is held by", x.By)
		}
		x.End(x.Send) // the workspace took what was sent
	}

	older := claim.New(k, opts)
	defer older.Close()
	newer := claim.New(k, opts)
	defer newer.Close()
	call(older, claim.Report)
	call(newer, claim.Report)
	call(older, claim.Report)
	fmt.Println("older:", older.Status())
	call(newer, claim.Release)
	call(older, claim.Report)
	fmt.Println("older:", older.Status())
	// Output:
	// report sent
	// report sent
	// report refused: the pane is held by a newer adapter of this process
	// older: retired
	// release sent
	// report sent
	// older: holder
}
