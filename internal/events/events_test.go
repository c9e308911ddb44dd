package events

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/session"
)

func TestPlayFeedsTheStore(t *testing.T) {
	const input = `# a turn
{"op":"identity","session_id":"s1","resume":["agent","--resume","s1"]}
{"op":"agent_start"}
{"op":"prompt_start","id":"p1","kind":"approval"}

{"op":"tasks","running":2}
{"op":"quit"}
{"op":"agent_settled"}
`
	var verbose, stderr bytes.Buffer
	store := session.NewStore()
	p := &Player{Store: store, Name: "stdin", Prefix: "panestate: events", Verbose: &verbose, Stderr: &stderr}
	if err := p.Play(t.Context(), strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	snap := store.Snapshot()
	if !snap.AgentRunning || snap.Prompts.Approval != 1 || snap.Tasks != 2 || snap.Identity.ID != "s1" {
		t.Errorf("snapshot %+v: want running, one approval, 2 tasks, session s1 (and nothing after quit)", snap)
	}
	want := []string{"line 2: identity", "line 3: agent_start", "line 4: prompt_start", "line 6: tasks", "line 7: quit"}
	var got []string
	for line := range strings.Lines(verbose.String()) {
		op, _, _ := strings.Cut(line, " ->")
		got = append(got, op)
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("verbose ops (-got +want):\n%s", diff)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestPlayReportsAndSkipsBadLines(t *testing.T) {
	tests := []struct {
		line, want string
	}{
		{`not json`, "panestate: events: in:1: not a JSON object with an op"},
		{`{"op":"dance"}`, `panestate: events: in:1: unknown op "dance"`},
		{`{"op":"agent_start","x":1}`, "panestate: events: in:1: agent_start: json: unknown field"},
		{`{"op":"phase","phase":"napping"}`, "panestate: events: in:1: phase: "},
		{`{"op":"prompt_start","kind":"approval"}`, `panestate: events: in:1: prompt_start: missing "id"`},
		{`{"op":"tasks","running":-1}`, `panestate: events: in:1: tasks: "running" must be`},
		{`{"op":"sleep","ms":-5}`, `panestate: events: in:1: sleep: "ms" must be`},
		{`{}`, `panestate: events: in:1: missing "op"`},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var stderr bytes.Buffer
			store := session.NewStore()
			p := &Player{Store: store, Name: "in", Prefix: "panestate: events", Stderr: &stderr}
			if err := p.Play(t.Context(), strings.NewReader(tt.line+"\n"+`{"op":"agent_start"}`+"\n")); err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(stderr.String(), tt.want) {
				t.Errorf("stderr %q, want it to start %q", stderr.String(), tt.want)
			}
			if !store.Snapshot().AgentRunning {
				t.Error("the line after the bad one was not played")
			}
		})
	}
}

func TestPlayFailsOnAnUnreadableInputOrAnEndedContext(t *testing.T) {
	var stderr bytes.Buffer
	p := &Player{Store: session.NewStore(), Name: "in", Prefix: "x", Stderr: &stderr}
	boom := errors.New("boom")
	if err := p.Play(t.Context(), iotest.ErrReader(boom)); !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "in:1: ") {
		t.Errorf("unreadable: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.Play(ctx, strings.NewReader(`{"op":"sleep","ms":60000}`+"\n")); !errors.Is(err, context.Canceled) {
		t.Errorf("ended context: %v", err)
	}
}
