//go:build !linux

package herdr

const listenEnv = "PANESTATE_HERDR_TEST_LISTEN"

func listenMain(string) int { return 2 }
