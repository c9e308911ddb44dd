//go:build !unix

package herdr

// accessCheckEnv names the helper process of the Unix-only
// TestExecutableAccess; it is never set here.
const accessCheckEnv = "PANESTATE_HERDR_TEST_ACCESS"

func accessChildMain(string) int { return 2 }
