package testenv

import (
	"os"
	"testing"
)

func TestClearHerdr(t *testing.T) {
	t.Setenv("TMUX_PANE", "%1") // cleared too: see ClearHerdr
	t.Setenv("HERDR_ENV", "1")
	t.Setenv("HERDR_PANE_ID", "w1:p1")
	t.Setenv("HERDRX", "kept")
	ClearHerdr()
	for _, k := range []string{"HERDR_ENV", "HERDR_PANE_ID", "TMUX_PANE"} {
		if _, ok := os.LookupEnv(k); ok {
			t.Errorf("%s still set", k)
		}
	}
	if os.Getenv("HERDRX") != "kept" {
		t.Error("HERDRX was removed")
	}
}

func TestClearTmux(t *testing.T) {
	t.Setenv("TMUX", "/tmp/tmux-1000/default,123,0")
	t.Setenv("TMUX_PANE", "%1")
	t.Setenv("XTMUX", "kept")
	ClearTmux()
	for _, k := range []string{"TMUX", "TMUX_PANE"} {
		if _, ok := os.LookupEnv(k); ok {
			t.Errorf("%s still set", k)
		}
	}
	if os.Getenv("XTMUX") != "kept" {
		t.Error("XTMUX was removed")
	}
}

func TestIterations(t *testing.T) {
	t.Setenv(SoakEnv, "")
	if got := Iterations(50); got != 50 {
		t.Errorf("Iterations(50) = %d without %s, want 50", got, SoakEnv)
	}
	t.Setenv(SoakEnv, "1")
	if got := Iterations(50); got != 500 {
		t.Errorf("Iterations(50) = %d with %s=1, want 500", got, SoakEnv)
	}
}
