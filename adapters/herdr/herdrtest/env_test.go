package herdrtest

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// ClearEnv unsets every HERDR_* and TMUX* variable for the test, and
// nothing else, and the test's end brings them back.
func TestClearEnv(t *testing.T) {
	set := map[string]string{
		"HERDR_PANE_ID": "w1:p1", "HERDR_SOCKET_PATH": "/tmp/h.sock", "TMUX": "/tmp/tmux-1/default,1,0",
		"TMUX_PANE": "%1", "TMUX_TMPDIR": "/tmp", "HERDRX": "kept", "MY_TMUX": "kept",
	}
	for k, v := range set {
		t.Setenv(k, v)
	}
	lookup := func() map[string]string {
		got := map[string]string{}
		for k := range set {
			if v, ok := os.LookupEnv(k); ok {
				got[k] = v
			}
		}
		return got
	}
	t.Run("cleared", func(t *testing.T) {
		ClearEnv(t)
		if diff := cmp.Diff(lookup(), map[string]string{"HERDRX": "kept", "MY_TMUX": "kept"}); diff != "" {
			t.Errorf("environment after ClearEnv (-got +want):\n%s", diff)
		}
	})
	if diff := cmp.Diff(lookup(), set); diff != "" {
		t.Errorf("environment after the test that cleared it (-got +want):\n%s", diff)
	}
}

// A Wait whose ctx has no deadline (t.Context()) ends after WaitTimeout
// with context.DeadlineExceeded and the last view, instead of hanging until
// go test's timeout; a ctx with a deadline keeps its own. Not parallel: it
// shortens waitTimeout, which parallel tests (run after it) read.
func TestWaitWithoutADeadlineEnds(t *testing.T) {
	h := StartT(t, Options{})
	saved := waitTimeout
	waitTimeout = time.Nanosecond
	defer func() { waitTimeout = saved }()

	last, err := h.Wait(context.Background(), h.Pane, func(AgentInfo) bool { return false })
	if !errors.Is(err, context.DeadlineExceeded) || last.Found {
		t.Errorf("Wait without a deadline = %+v, %v; want the last view (no agent) and context.DeadlineExceeded", last, err)
	}
	if _, err := h.WaitCalls(context.Background(), func([]Call) bool { return false }); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitCalls without a deadline = %v, want context.DeadlineExceeded", err)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
	defer cancel()
	want, _ := ctx.Deadline()
	bounded, stop := withWaitTimeout(ctx)
	defer stop()
	if got, ok := bounded.Deadline(); !ok || !got.Equal(want) {
		t.Errorf("a ctx with a deadline got deadline %v, %t; want its own, %v", got, ok, want)
	}
}
