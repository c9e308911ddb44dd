package probe_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that neither the probe nor the tests' fake terminals
// leave a goroutine behind.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
