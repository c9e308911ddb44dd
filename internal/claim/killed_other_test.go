//go:build !unix

package claim

// TakerChild does nothing here: a pane file is not taken over (see
// takeOver), so no test kills a taking process.
func TakerChild() {}
