package progstatus_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/registry"
	"github.com/panestate/panestate/session"
)

// kept is what a terminal keeps, record by record: id, state, kind, the
// application it shows (its own or inherited) and the message.
func kept(s *store) []string {
	var out []string
	for _, id := range s.ids() {
		r := s.recs[id]
		line := fmt.Sprintf("%s %s app=%s", id, r.State, s.app(id))
		if r.Kind != "" {
			line += " kind=" + r.Kind
		}
		if r.Msg != "" {
			line += fmt.Sprintf(" msg=%q", r.Msg)
		}
		out = append(out, line)
	}
	return out
}

// TestStoreKeepsRevision04Rules checks the test's own store against the
// rules it stands for, so that a lenient store cannot pass the adapter:
// children inherit app from their nearest ancestor, clear removes a
// record and everything beneath it, the least recently updated record is
// evicted past the limit, and an exit keeps only done and error.
func TestStoreKeepsRevision04Rules(t *testing.T) {
	s := store{limit: 64}
	for _, r := range []rec{
		{State: "working", ID: "a", App: "cargo"},
		{State: "working", ID: "a/b"},
		{State: "blocked", ID: "a/b/c", Kind: "question"},
		{State: "done", ID: "x/y"}, // no ancestor: no app
		{State: "idle", ID: "a/d", App: "other"},
	} {
		s.apply(r)
	}
	if diff := cmp.Diff(kept(&s), []string{
		"a working app=cargo", "a/b working app=cargo", "a/b/c blocked app=cargo kind=question", "a/d idle app=other", "x/y done app=",
	}); diff != "" {
		t.Errorf("inheritance (-got +want):\n%s", diff)
	}
	s.apply(rec{State: "clear", ID: "a/b"})
	if diff := cmp.Diff(s.ids(), []string{"a", "a/d", "x/y"}); diff != "" {
		t.Errorf("clear of a/b (-got +want):\n%s", diff)
	}
	s.exit()
	if diff := cmp.Diff(s.ids(), []string{"x/y"}); diff != "" {
		t.Errorf("after an exit (-got +want):\n%s", diff)
	}
	for i := range 70 {
		s.apply(rec{State: "working", ID: fmt.Sprintf("n%d", i)})
	}
	if len(s.recs) != 64 || s.recs["x/y"].State != "" || s.recs["n0"].State != "" || s.recs["n69"].State == "" {
		t.Errorf("past the limit: %d records kept, x/y %v, n0 %v; want 64, the oldest evicted", len(s.recs), s.recs["x/y"], s.recs["n0"])
	}
	s.apply(rec{State: "clear"})
	if len(s.recs) != 0 {
		t.Errorf("a clear without id left %v", s.ids())
	}
}

func withChildren(r adapter.Report, cs ...adapter.Child) adapter.Report {
	copy(r.Children[:], cs)
	return r
}

// TestSubagentsAsChildRecords drives the adapter with reports whose
// children change, parses every write strictly and applies it to a
// terminal's store: each subagent is a child record under the adapter's
// (id=mychat/<id>, inheriting app mychat), replaced as its state changes,
// removed when it finishes, all of them by the goodbye; the records never
// number more than 1 + adapter.MaxChildren.
func TestSubagentsAsChildRecords(t *testing.T) {
	a1 := adapter.Child{ID: "a1b2", State: adapter.StateWorking}
	a1Blocked := adapter.Child{ID: "a1b2", State: adapter.StateBlocked, Message: adapter.MessageWaitingForApproval}
	c3 := adapter.Child{ID: "019a:77", State: adapter.StateWorking} // ':' is no name byte
	sub := adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonSubagents}
	steps := []struct {
		name   string
		report adapter.Report
		want   []string
	}{
		{"the agent works", working, []string{"mychat working app=mychat"}},
		{"a subagent starts", withChildren(working, a1),
			[]string{"mychat working app=mychat", "mychat/a1b2 working app=mychat"}},
		{"a second one", withChildren(working, a1, c3),
			[]string{"mychat working app=mychat", "mychat/019a-77 working app=mychat", "mychat/a1b2 working app=mychat"}},
		{"the turn ends, the subagents work on", withChildren(sub, a1, c3),
			[]string{"mychat working app=mychat", "mychat/019a-77 working app=mychat", "mychat/a1b2 working app=mychat"}},
		{"one waits for approval", withChildren(sub, a1Blocked, c3),
			[]string{"mychat working app=mychat", "mychat/019a-77 working app=mychat",
				`mychat/a1b2 blocked app=mychat kind=permission msg="Waiting for approval"`}},
		{"the other finishes: the parent waits on the person", withChildren(approval, a1Blocked),
			[]string{`mychat blocked app=mychat kind=permission msg="Waiting for approval"`,
				`mychat/a1b2 blocked app=mychat kind=permission msg="Waiting for approval"`}},
		{"approved, it finishes", quiescent, []string{"mychat done app=mychat"}},
	}
	out := new(tty)
	a := open(t, params(out, "PANESTATE_PROGSTATUS=1"))
	var s store
	for _, st := range steps {
		if err := a.Report(t.Context(), st.report); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		for _, w := range out.take() {
			if err := s.feed([]byte(w)); err != nil {
				t.Fatalf("%s: %q: %v", st.name, w, err)
			}
		}
		if diff := cmp.Diff(kept(&s), st.want); diff != "" {
			t.Errorf("%s: the terminal keeps (-got +want):\n%s", st.name, diff)
		}
	}
	var many adapter.Report = working
	for i := range many.Children {
		many.Children[i] = adapter.Child{ID: fmt.Sprintf("s%d", i), State: adapter.StateWorking}
	}
	if err := a.Report(t.Context(), many); err != nil {
		t.Fatal(err)
	}
	if err := s.feed([]byte(strings.Join(out.take(), ""))); err != nil {
		t.Fatal(err)
	}
	if n := len(s.recs); n != 1+adapter.MaxChildren || 1+adapter.MaxChildren > 64/4 {
		t.Errorf("%d records for %d children; want %d, well under 64", n, adapter.MaxChildren, 1+adapter.MaxChildren)
	}
	if err := a.Release(t.Context()); err != nil {
		t.Fatal(err)
	}
	writes := out.take()
	if diff := cmp.Diff(writes, []string{goldenClear}); diff != "" {
		t.Errorf("the goodbye (-got +want):\n%s", diff)
	}
	if err := s.feed([]byte(strings.Join(writes, ""))); err != nil || len(s.recs) != 0 {
		t.Errorf("after the goodbye the terminal keeps %v (%v)", s.ids(), err)
	}
}

// TestChildRecordBytes gives the exact bytes of a subagent's records, as
// Charm's encoder writes a record without app.
func TestChildRecordBytes(t *testing.T) {
	out := new(tty)
	a := open(t, params(out, "PANESTATE_PROGSTATUS=1"))
	blocked := adapter.Child{ID: "a1b2", State: adapter.StateBlocked, Message: adapter.MessageWaitingForInput}
	for _, r := range []adapter.Report{
		withChildren(working, adapter.Child{ID: "a1b2", State: adapter.StateWorking}),
		withChildren(working, blocked),
		working,
	} {
		if err := a.Report(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		goldenWorking,
		"\x1b]7501;state=working:id=mychat/a1b2\a",
		"\x1b]7501;state=blocked:id=mychat/a1b2:kind=question:msg=V2FpdGluZyBmb3IgaW5wdXQ=\a",
		"\x1b]7501;state=clear:id=mychat/a1b2\a",
	}
	if diff := cmp.Diff(out.take(), want); diff != "" {
		t.Errorf("writes (-got +want):\n%s", diff)
	}
}

// notifiedTTY is a terminal whose writes a test can wait for.
type notifiedTTY struct {
	mu      sync.Mutex
	out     []byte
	changed chan struct{}
}

func (n *notifiedTTY) Write(b []byte) (int, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.out = append(n.out, b...)
	if n.changed != nil {
		close(n.changed)
		n.changed = nil
	}
	return len(b), nil
}

// keeps waits until the terminal keeps want (as kept shows it).
func (n *notifiedTTY) keeps(t *testing.T, step string, want ...string) {
	t.Helper()
	n.until(t, step, want, func(s *store) bool { return cmp.Equal(kept(s), want) })
}

// until waits until done holds for the records everything written so
// far leaves, and fails after 10 s with what the terminal keeps and want.
func (n *notifiedTTY) until(t *testing.T, step string, want any, done func(*store) bool) {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		n.mu.Lock()
		out := bytes.Clone(n.out)
		if n.changed == nil {
			n.changed = make(chan struct{})
		}
		changed := n.changed
		n.mu.Unlock()
		var s store
		err := s.feed(out)
		if err == nil && done(&s) {
			return
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("%s: the terminal keeps %v (%v); want %v", step, kept(&s), err, want)
		}
	}
}

// TestSubagentsThroughTheRegistry runs a session's subagents through the
// reducer and the registry: the progstatus adapter shows them as child
// records, the parent working while they work on after the turn and
// blocked, never idle, while one waits on the person; an adapter that does
// not show children (a Herdr or tmux pane) gets the parent's reduced state
// only, and no report for a change in the children alone.
func TestSubagentsThroughTheRegistry(t *testing.T) {
	term := new(notifiedTTY)
	pane := adaptertest.NewRecorder()
	reg, err := registry.New(registry.Options{
		App:            "mychat",
		Host:           tuiRoot,
		Env:            []string{"PANESTATE_PROGSTATUS=1", "HOME=" + t.TempDir(), "TERM=xterm-256color"},
		Terminal:       term,
		StaticSettings: true,
		Drivers:        map[string]adapter.Driver{"progstatus": progstatus.Driver{}, "pane": adaptertest.NewDriver(pane)},
	})
	if err != nil {
		t.Fatal(err)
	}
	src := session.NewStore()
	if err := reg.Attach(t.Context(), src); err != nil {
		t.Fatal(err)
	}
	defer reg.Detach(context.Background())
	paneShows := func(step string, want adapter.Report) {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
		defer cancel()
		if err := pane.Wait(ctx, func(rs []adapter.Report) bool { return len(rs) > 0 && rs[len(rs)-1] == want }); err != nil {
			last, _ := pane.Last()
			t.Fatalf("%s: the pane's adapter last got %v; want %v", step, last, want)
		}
	}

	term.keeps(t, "attached", "mychat idle app=mychat")
	src.AgentStart()
	src.SubagentStart("a1b2")
	term.keeps(t, "a subagent starts", "mychat working app=mychat", "mychat/a1b2 working app=mychat")
	paneShows("a subagent starts", adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonSubagents})
	src.AgentSettled()
	term.keeps(t, "the turn ends, the subagent works on", "mychat working app=mychat", "mychat/a1b2 working app=mychat")
	src.SubagentPrompt("a1b2", session.PromptApproval)
	term.keeps(t, "it waits for approval",
		`mychat blocked app=mychat kind=permission msg="Waiting for approval"`,
		`mychat/a1b2 blocked app=mychat kind=permission msg="Waiting for approval"`)
	paneShows("it waits for approval", adapter.Report{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForApproval})
	src.SubagentWorking("a1b2")
	src.SubagentEnd("a1b2")
	term.keeps(t, "it finishes", "mychat done app=mychat")
	paneShows("it finishes", adapter.Report{State: adapter.StateIdle, Reason: adapter.ReasonQuiescent})
	reports := pane.Reports()
	for i, r := range reports {
		if r.Children.Len() != 0 {
			t.Errorf("the pane's adapter got children: %v", r.Children)
		}
		if i > 0 && r == reports[i-1] {
			t.Errorf("the pane's adapter got %v twice running: a change in the children alone", r)
		}
	}
}
