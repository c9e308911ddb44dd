package calls

import (
	"context"

	"github.com/panestate/panestate/adapter"
)

// OnStopped returns a function for Report to defer: it calls f if, by the
// time Report returns, the registry has withdrawn ctx's report
// ([adapter.Withdrawn]): reporting has stopped (Detach, the adapter turned
// off or replaced). An adapter that takes its pane back after another
// reporter let it go forgets the pane in f, since the release may not
// follow (its budget may have run out). Without a withdrawal signal in
// ctx, the function does nothing.
func OnStopped(ctx context.Context, f func()) func() {
	stopping := adapter.Withdrawn(ctx)
	return func() {
		if stopping == nil {
			return
		}
		select {
		case <-stopping:
			f()
		default:
		}
	}
}
