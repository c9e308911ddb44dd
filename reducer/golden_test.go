package reducer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/session"
)

// The golden files in testdata are hand-written: they are the specification,
// and no flag rewrites them. They speak the hosts' own vocabulary (the Jazz
// phases, the Atomic prompt kinds and root workflow statuses), which the
// harness maps onto package session the way a host does. Each file is a
// JSON array of cases like this one (the // remarks explain the fields; they
// are not part of the format):
//
//	{
//	  "name": "agent parked on approval",
//	  "snapshot": {
//	    "agent_running": true,            // Store.AgentStart; default false
//	    "phase": "thinking",              // Store.SetPhase: a Jazz phase (see phases); default "none"
//	    "prompts": {"approval": 1},       // approval, question, secret, menu
//	    "workflows": {                    // how many unfinished roots are in each status, and:
//	      "availability": "ready",        // "", "none", "ready", "unavailable", "recovering"
//	      "executing": 1, "needs_attention": 1
//	    },
//	    "tasks": 2
//	  },
//	  "want": {"state": "blocked", "reason": "awaiting_input", "message": "Waiting for approval"}
//	}
//
// "want": null means Reduce must return no new report; "message" may be left
// out when there is none. Unknown fields are errors, so a typo cannot make a
// case vacuous.

type goldenCase struct {
	Name     string          `json:"name"`
	Snapshot goldenSnapshot  `json:"snapshot"`
	Want     json.RawMessage `json:"want"`
}

type goldenSnapshot struct {
	AgentRunning bool   `json:"agent_running"`
	Phase        string `json:"phase"`
	Prompts      struct {
		Approval int `json:"approval"`
		Question int `json:"question"`
		Secret   int `json:"secret"`
		Menu     int `json:"menu"`
	} `json:"prompts"`
	Workflows struct {
		Availability          string `json:"availability"`
		Executing             int    `json:"executing"`
		AutomaticContinuation int    `json:"automatic_continuation"`
		Retrying              int    `json:"retrying"`
		Stopping              int    `json:"stopping"`
		AwaitingInput         int    `json:"awaiting_input"`
		ManualIntervention    int    `json:"manual_intervention"`
		Paused                int    `json:"paused"`
		Finished              int    `json:"finished"` // sets nothing: a finished root is no work
		NeedsAttention        int    `json:"needs_attention"`
	} `json:"workflows"`
	Tasks int `json:"tasks"`
}

type goldenReport struct {
	State   string `json:"state"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// phases maps the Jazz phase names onto session's phases.
var phases = map[string]session.Phase{
	"": session.PhaseIdle, "none": session.PhaseIdle, "idle": session.PhaseIdle,
	"awaiting": session.PhaseWorking, "thinking": session.PhaseWorking,
	"streaming": session.PhaseWorking, "tool_execution": session.PhaseWorking,
	"completed": session.PhaseCompleted, "error": session.PhaseError,
}

// unknownStream maps the availability names onto Workflows.Unknown.
var unknownStream = map[string]bool{"": false, "none": false, "ready": false, "unavailable": true, "recovering": true}

// inputCount is the Input count of question, secret and menu prompts:
// the sum of the positive counts, or, when none is positive, the lowest
// count (so that a negative count still reaches Reduce).
func inputCount(counts ...int) int {
	sum, low := 0, 0
	for _, n := range counts {
		if n > 0 {
			sum += n
		}
		low = min(low, n)
	}
	if sum > 0 {
		return sum
	}
	return low
}

// snapshot feeds the case through a session.Store, as a host would, and
// returns the store's snapshot with the counts a store never holds
// (negative ones) written in.
func (g goldenSnapshot) snapshot() (session.Snapshot, error) {
	phase, ok := phases[g.Phase]
	if !ok {
		return session.Snapshot{}, fmt.Errorf("unknown phase %q", g.Phase)
	}
	unknown, ok := unknownStream[g.Workflows.Availability]
	if !ok {
		return session.Snapshot{}, fmt.Errorf("unknown availability %q", g.Workflows.Availability)
	}
	w := g.Workflows
	var st session.Store
	if g.AgentRunning {
		st.AgentStart()
	}
	st.SetPhase(phase)
	st.SetWorkflows(session.Workflows{
		Unknown:   unknown,
		Executing: w.Executing > 0, AutomaticContinuation: w.AutomaticContinuation > 0,
		Retrying: w.Retrying > 0, Stopping: w.Stopping > 0,
		AwaitingInput: w.AwaitingInput > 0, ManualIntervention: w.ManualIntervention > 0,
		Paused: w.Paused > 0, NeedsAttention: w.NeedsAttention > 0,
	})
	s := st.Snapshot()
	s.Prompts = session.Prompts{Approval: g.Prompts.Approval, Input: inputCount(g.Prompts.Question, g.Prompts.Secret, g.Prompts.Menu)}
	s.Tasks = g.Tasks
	return s, nil
}

// report decodes a case's "want"; nil means no report.
func (c goldenCase) report() (*adapter.Report, error) {
	if len(c.Want) == 0 {
		return nil, fmt.Errorf("missing \"want\" (use null for no report)")
	}
	if bytes.Equal(bytes.TrimSpace(c.Want), []byte("null")) {
		return nil, nil
	}
	var g goldenReport
	dec := json.NewDecoder(bytes.NewReader(c.Want))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, fmt.Errorf("want: %w", err)
	}
	var r adapter.Report
	var ok bool
	if r.State, ok = lookup(g.State, adapter.State.String); !ok || !(adapter.Report{State: r.State}).Valid() {
		return nil, fmt.Errorf("unknown state %q", g.State)
	}
	if r.Reason, ok = lookup(g.Reason, adapter.Reason.String); !ok {
		return nil, fmt.Errorf("unknown reason %q", g.Reason)
	}
	if r.Message, ok = lookup(g.Message, adapter.Message.String); !ok {
		return nil, fmt.Errorf("unknown message %q", g.Message)
	}
	return &r, nil
}

// lookup finds the value of a uint8 enum whose String is name.
func lookup[T ~uint8](name string, str func(T) string) (T, bool) {
	for i := range 256 {
		if str(T(i)) == name {
			return T(i), true
		}
	}
	return 0, false
}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	seen := map[string]string{}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var cases []goldenCase
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cases); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		base := filepath.Base(file)
		for _, c := range cases {
			total++
			if c.Name == "" {
				t.Errorf("%s: a case has no name", base)
				continue
			}
			if prev, dup := seen[c.Name]; dup {
				t.Errorf("%s: case %q already defined in %s", base, c.Name, prev)
			}
			seen[c.Name] = base
			t.Run(base+"/"+c.Name, func(t *testing.T) {
				s, err := c.Snapshot.snapshot()
				if err != nil {
					t.Fatalf("snapshot: %v", err)
				}
				want, err := c.report()
				if err != nil {
					t.Fatal(err)
				}
				checkReduce(t, s, want)
			})
		}
	}
	if total < 20 {
		t.Errorf("found %d golden cases in testdata; want at least 20", total)
	}
}
