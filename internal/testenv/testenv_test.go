package testenv

import (
	"os"
	"testing"
)

func TestClearHerdr(t *testing.T) {
	t.Setenv("HERDR_ENV", "1")
	t.Setenv("HERDR_PANE_ID", "w1:p1")
	t.Setenv("HERDRX", "kept")
	ClearHerdr()
	for _, k := range []string{"HERDR_ENV", "HERDR_PANE_ID"} {
		if _, ok := os.LookupEnv(k); ok {
			t.Errorf("%s still set", k)
		}
	}
	if os.Getenv("HERDRX") != "kept" {
		t.Error("HERDRX was removed")
	}
}
