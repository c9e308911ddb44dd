package main

import (
	"bytes"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

func TestEventsReportsTheProtocolAndReleasesAtTheEnd(t *testing.T) {
	h := herdrtest.StartT(t, herdrtest.Options{InView: []string{"w1:p1"}})
	r, w := io.Pipe()
	var stdout, stderr bytes.Buffer
	done := make(chan int)
	go func() { done <- run([]string{"events", "-v"}, r, &stdout, &stderr, h.PaneEnv(t.TempDir())) }()
	steps := []struct {
		line string
		want herdrtest.Status
	}{
		// The pane shows the attach's idle before the agent starts: a
		// change published before the first delivery begins is merged
		// with it (the newest state wins), so without this wait a loaded
		// machine may never send that idle.
		{`{"op":"identity","session_id":"s1"}`, herdrtest.StatusIdle},
		{`{"op":"agent_start"}`, herdrtest.StatusWorking},
		{`{"op":"dance"}`, herdrtest.StatusWorking},
		{`{"op":"prompt_start","id":"p1","kind":"approval"}`, herdrtest.StatusBlocked},
		{`{"op":"prompt_end","id":"p1"}`, herdrtest.StatusWorking},
		{`{"op":"agent_settled"}`, herdrtest.StatusIdle},
	}
	for _, s := range steps {
		if _, err := io.WriteString(w, s.line+"\n"); err != nil {
			t.Fatal(err)
		}
		if s.want != "" {
			waitStatus(t, h, s.line, s.want)
		}
	}
	w.Close()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	waitStatus(t, h, "the end of the input", "")
	if got, want := stderr.String(), "panestate: events: stdin:3: unknown op \"dance\"\n"; got != want {
		t.Errorf("stderr %q, want %q", got, want)
	}
	if diff := cmp.Diff(reportedStates(t, h), []string{"idle", "working", "blocked", "working", "idle", "released"}); diff != "" {
		t.Errorf("states (-got +want):\n%s", diff)
	}
	if !bytes.Contains(stdout.Bytes(), []byte("line 4: prompt_start -> blocked")) {
		t.Errorf("stdout %q lacks the -v lines", stdout.String())
	}
}
