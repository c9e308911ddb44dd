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
// and no flag rewrites them. Each file is a JSON array of cases like this one
// (the // remarks explain the fields; they are not part of the format):
//
//	{
//	  "name": "agent parked on approval",
//	  "snapshot": {
//	    "agent_running": true,            // default false
//	    "phase": "thinking",              // session.Phase name; default "none"
//	    "prompts": {"approval": 1},       // approval, question, secret, menu
//	    "workflows": {                    // counts per status, and:
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
		Finished              int    `json:"finished"`
		NeedsAttention        int    `json:"needs_attention"`
	} `json:"workflows"`
	Tasks int `json:"tasks"`
}

type goldenReport struct {
	State   string `json:"state"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func (g goldenSnapshot) snapshot() (session.Snapshot, error) {
	phase := session.PhaseNone
	if g.Phase != "" {
		if err := phase.UnmarshalText([]byte(g.Phase)); err != nil {
			return session.Snapshot{}, err
		}
	}
	var avail session.Availability
	if err := avail.UnmarshalText([]byte(g.Workflows.Availability)); err != nil {
		return session.Snapshot{}, err
	}
	w := g.Workflows
	return session.Snapshot{
		AgentRunning: g.AgentRunning,
		Phase:        phase,
		Prompts:      session.Prompts(g.Prompts),
		Workflows: session.Workflows{
			Availability: avail,
			Executing:    w.Executing, AutomaticContinuation: w.AutomaticContinuation,
			Retrying: w.Retrying, Stopping: w.Stopping,
			AwaitingInput: w.AwaitingInput, ManualIntervention: w.ManualIntervention,
			Paused: w.Paused, Finished: w.Finished, NeedsAttention: w.NeedsAttention,
		},
		Tasks: g.Tasks,
	}, nil
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
