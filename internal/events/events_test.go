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
	if snap.Phase != session.PhaseWorking || snap.Prompts.Approval != 1 || snap.Tasks != 2 || snap.Identity.ID != "s1" {
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
		{`{"op":"phase","phase":"napping"}`, `panestate: events: in:1: phase: unknown phase "napping"`},
		{`{"op":"prompt_start","id":"p","kind":"APPROVAL"}`, `panestate: events: in:1: prompt_start: unknown prompt kind "APPROVAL"`},
		{`{"op":"workflows","availability":"up"}`, `panestate: events: in:1: workflows: unknown workflow availability "up"`},
		{`{"op":"workflows","roots":[{"id":"r1","status":""}]}`, `panestate: events: in:1: workflows: root "r1": unknown workflow status ""`},
		{`{"op":"identity","resume":["a","b\u0000"]}`, `panestate: events: in:1: identity: session: resume argument 1 contains a NUL byte`},
		{`{"op":"identity","resume":"mychat --resume"}`, `panestate: events: in:1: identity: json: cannot unmarshal string`},
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
			if store.Snapshot().Phase != session.PhaseWorking {
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

// TestPlayMapsTheProtocolWords: every name the protocol accepts lands on the
// session value it means; the wire names stay the protocol's own.
func TestPlayMapsTheProtocolWords(t *testing.T) {
	resume, err := session.Identity{ID: "s1", Path: "/s/s1.jsonl"}.WithResume("chat", "--resume", "s1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		lines string
		want  session.Snapshot
	}{
		{"phase awaiting", `{"op":"phase","phase":"awaiting"}`, session.Snapshot{Phase: session.PhaseWorking}},
		{"phase thinking", `{"op":"phase","phase":"thinking"}`, session.Snapshot{Phase: session.PhaseWorking}},
		{"phase streaming", `{"op":"phase","phase":"streaming"}`, session.Snapshot{Phase: session.PhaseWorking}},
		{"phase tool execution", `{"op":"phase","phase":"tool_execution"}`, session.Snapshot{Phase: session.PhaseWorking}},
		{"phase idle", `{"op":"phase","phase":"thinking"}` + "\n" + `{"op":"phase","phase":"idle"}`, session.Snapshot{}},
		{"phase none", `{"op":"phase","phase":"thinking"}` + "\n" + `{"op":"phase","phase":"none"}`, session.Snapshot{}},
		{"phase completed", `{"op":"phase","phase":"completed"}`, session.Snapshot{Phase: session.PhaseCompleted}},
		{"phase error", `{"op":"phase","phase":"error"}`, session.Snapshot{Phase: session.PhaseError}},
		{"prompt kinds", `{"op":"prompt_start","id":"a","kind":"approval"}
{"op":"prompt_start","id":"q","kind":"question"}
{"op":"prompt_start","id":"s","kind":"secret"}
{"op":"prompt_start","id":"m","kind":"menu"}
{"op":"prompt_end","id":"q"}`, session.Snapshot{Prompts: session.Prompts{Approval: 1, Input: 2}}},
		{"every running status", `{"op":"workflows","availability":"ready","roots":[{"id":"a","status":"executing"},{"id":"b","status":"automatic_continuation"},{"id":"c","status":"retrying"},{"id":"d","status":"stopping"},{"id":"e","status":"awaiting_input"},{"id":"f","status":"manual_intervention"},{"id":"g","status":"paused"}]}`,
			session.Snapshot{Workflows: session.Workflows{Executing: true, AutomaticContinuation: true, Retrying: true,
				Stopping: true, AwaitingInput: true, ManualIntervention: true, Paused: true}}},
		{"finished roots set nothing, not even attention", `{"op":"workflows","availability":"ready","roots":[{"id":"a","status":"completed","needs_attention":true},{"id":"b","status":"finished"},{"id":"c","status":"failed"},{"id":"d","status":"cancelled"},{"id":"e","status":"canceled"}]}`, session.Snapshot{}},
		{"attention of an unfinished root", `{"op":"workflows","roots":[{"id":"a","status":"paused","needs_attention":true}]}`,
			session.Snapshot{Workflows: session.Workflows{Paused: true, NeedsAttention: true}}},
		{"duplicate root ids count once, last wins", `{"op":"workflows","availability":"recovering","roots":[{"id":"a","status":"executing","needs_attention":true},{"id":"a","status":"paused"}]}`,
			session.Snapshot{Workflows: session.Workflows{Unknown: true, Paused: true}}},
		{"unavailable", `{"op":"workflows","availability":"unavailable"}`, session.Snapshot{Workflows: session.Workflows{Unknown: true}}},
		{"none after unavailable", `{"op":"workflows","availability":"unavailable"}` + "\n" + `{"op":"workflows","availability":"none"}`, session.Snapshot{}},
		{"a bad root changes nothing", `{"op":"workflows","roots":[{"id":"a","status":"executing"}]}` + "\n" +
			`{"op":"workflows","roots":[{"id":"b","status":"paused"},{"id":"c","status":"dancing"}]}`,
			session.Snapshot{Workflows: session.Workflows{Executing: true}}},
		{"identity", `{"op":"identity","session_id":"s1","session_path":"/s/s1.jsonl","resume":["chat","--resume","s1"]}`,
			session.Snapshot{Identity: resume}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			store := session.NewStore()
			p := &Player{Store: store, Name: "in", Prefix: "x", Stderr: &stderr}
			if err := p.Play(t.Context(), strings.NewReader(tt.lines+"\n")); err != nil {
				t.Fatal(err)
			}
			if got := store.Snapshot(); got != tt.want {
				t.Errorf("snapshot = %+v, want %+v", got, tt.want)
			}
			if tt.name != "a bad root changes nothing" && stderr.Len() > 0 {
				t.Errorf("stderr %q", stderr.String())
			}
		})
	}
}

// TestPlaySkipsALineTooLong: a line past maxLine is one bad line, reported
// with its number and skipped; the input goes on (it does not end the
// session, which would release the pane while the program runs).
func TestPlaySkipsALineTooLong(t *testing.T) {
	input := `{"op":"agent_settled"}` + "\n" +
		`{"op":"tasks","pad":"` + strings.Repeat("x", 2*maxLine) + `"}` + "\n" +
		`{"op":"agent_start"}` + "\n"
	var stderr bytes.Buffer
	store := session.NewStore()
	p := &Player{Store: store, Name: "in", Prefix: "panestate: events", Stderr: &stderr}
	if err := p.Play(t.Context(), strings.NewReader(input)); err != nil {
		t.Fatal(err)
	}
	if got, want := stderr.String(), "panestate: events: in:2: line longer than 1048576 bytes\n"; got != want {
		t.Errorf("stderr %.200q, want %q", got, want)
	}
	if store.Snapshot().Phase != session.PhaseWorking {
		t.Error("the line after the long one was not played")
	}
}
