// Package calls holds what an adapter needs around the blocking calls it
// makes to its workspace (a CLI run per report, a request on a socket):
// one call at a time, a Close that ends the call in flight, and
// diagnostics that tell the person running the host once per claim, not
// once per retry. The tmux and Herdr adapters are built on it; a
// third-party adapter that reaches its workspace with calls should be too.
//
// # One call at a time
//
// A [Gate] admits one Report or Release at a time and refuses every call
// after Close:
//
//	func (a *Adapter) Report(ctx context.Context, r adapter.Report) error {
//		if err := a.gate.Enter(ctx); err != nil {
//			return err // ctx's error, or adapter.ErrClosed
//		}
//		defer a.gate.Leave()
//		...
//	}
//
// [Gate.Closing] is a context cancelled as soon as Close starts: derive the
// context of each call from it (context.AfterFunc(g.Closing(), cancel)) so
// that Close kills a child or ends a request under way, and [Gate.Close]
// then waits for that call to leave, bounded by its ctx.
//
// # Diagnostics once per claim
//
// A workspace that is down fails every call; the registry retries, and a
// diagnostic per retry would drown the host's log. A [Diagnostics] sends
// the first diagnostic of each [adapter.Kind] to the adapter's sink
// (adapter.Params.Diagnose) and only counts the rest, until
// [Diagnostics.Reset] starts a new claim: the adapter calls it when it
// takes its pane afresh (its first Report after Open or Release).
// [Diagnostics.AddDetails] puts the counts into the adapter's Details lines as
// "diag.<kind>", so nothing counted is lost.
package calls
