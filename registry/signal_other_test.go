//go:build !unix

package registry

const signalHostEnv = "PANESTATE_TEST_SIGNAL_HOST"

func runSignalHost(string) int { return 3 }
