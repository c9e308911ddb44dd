package testenv

import (
	"bytes"
	"io"
	"os"
	"testing"
	"time"
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

func TestTmuxTakesTheNamedBinary(t *testing.T) {
	t.Setenv(EnvTmux, "/opt/tmux-3.7c/tmux")
	t.Setenv("PATH", "/usr/bin")
	if got := Tmux(t); got != "/opt/tmux-3.7c/tmux" {
		t.Errorf("Tmux = %q", got)
	}
	if got := os.Getenv("PATH"); got != "/opt/tmux-3.7c"+string(os.PathListSeparator)+"/usr/bin" {
		t.Errorf("PATH = %q; want the named tmux's directory first", got)
	}
}

func TestScreenWaitsForWhatArrives(t *testing.T) {
	s := NewScreen()
	var reads int
	s.OnRead = func(all []byte) { reads++ }
	r, w := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.CopyFrom(r)
	}()
	go func() {
		_, _ = w.Write([]byte("hello "))
		_, _ = w.Write([]byte("world"))
		w.Close()
	}()
	s.Wait(t, time.Minute, "hello world", func(b []byte) bool { return bytes.Equal(b, []byte("hello world")) })
	<-done
	if got := string(s.Bytes()); got != "hello world" || reads != 2 {
		t.Errorf("Bytes = %q after %d reads; want %q after 2", got, reads, "hello world")
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
