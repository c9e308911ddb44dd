// Package adaptertest helps test adapters and the hosts that use them, the
// way testing/fstest helps test file systems.
//
// # Conformance
//
// [Run] checks an adapter against the contract of package adapter: every
// report is accepted, a cancelled context is honoured promptly, Release and
// Close behave, Report and Release fail with [adapter.ErrClosed] after
// Close, the optional interfaces do no harm, and no goroutine outlives Close.
// Every adapter's tests should call it:
//
//	func TestConformance(t *testing.T) {
//		adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
//			a, err := mydriver.Driver{}.Open(t.Context(), params(t))
//			if err != nil {
//				t.Fatal(err)
//			}
//			return a
//		})
//	}
//
// [RunDriver] checks the driver: for each set of Params given (in the
// workspace and outside it, with good and bad settings), Check says what
// Open does, a bad setting gives the same error from both, and an inactive
// Open starts nothing.
//
// # Recording
//
// [Recorder] is an adapter that keeps every report it is given, like an
// in-memory exporter. A host's tests attach it (through [Driver], or
// [NewDriver]) and then look at [Recorder.Reports] or block in
// [Recorder.Wait] until the report they expect arrives. [Recorder.SetErr]
// and [Recorder.Block] make it fail or hang, to test what a host or the
// registry does with a broken or stuck workspace.
package adaptertest
