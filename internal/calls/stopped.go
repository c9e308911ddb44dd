package calls

// IfStopped calls f when stopping is closed. Report defers it with the
// registry's withdrawal of its report (adapter.Withdrawn of Report's
// ctx), evaluated when Report starts:
//
//	defer calls.IfStopped(adapter.Withdrawn(ctx), a.forget)
//
// so that f runs if, by the time Report returns, reporting has stopped
// (Detach, the adapter turned off or replaced). An adapter that takes its
// pane back after another reporter let it go forgets the pane in f, since
// the release may not follow (its budget may have run out). A nil stopping
// (ctx carries no withdrawal signal) never closes. Deferred this way it
// allocates nothing.
func IfStopped(stopping <-chan struct{}, f func()) {
	select {
	case <-stopping:
		f()
	default:
	}
}
