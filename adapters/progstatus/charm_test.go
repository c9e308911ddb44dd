//go:build unix

package progstatus_test

import (
	"context"
	"errors"
	"os"
	"slices"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/creack/pty"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/progstatus"
)

// teaStatus is the conversion docs/progstatus.md gives a Bubble Tea host:
// panestate's record, field by field, as a tea.ProgramStatus; nil stays
// nil (the goodbye: Bubble Tea then clears the record it wrote).
func teaStatus(s *progstatus.Status) *tea.ProgramStatus {
	if s == nil {
		return nil
	}
	return &tea.ProgramStatus{State: tea.ProgramState(s.State), ID: s.ID, App: s.App,
		Kind: tea.ProgramStatusKind(s.Kind), Message: s.Message}
}

// viewed collects what an adapter hands to Driver.View.
type viewed struct {
	mu  sync.Mutex
	got []*progstatus.Status
}

func (v *viewed) view(s *progstatus.Status) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.got = append(v.got, s)
}

// TestBytesAreCharms checks, record by record, that what the adapter
// writes to the terminal is byte for byte what Charm's encoder
// (github.com/charmbracelet/x/ansi v0.11.9, the one Bubble Tea v2.1.1
// uses) writes for the record the adapter hands a host's View, and that
// the goodbye is Charm's ClearProgramStatusID.
func TestBytesAreCharms(t *testing.T) {
	reports := []adapter.Report{quiescent, working, approval, input, attention, quiescent}
	out, v := new(tty), new(viewed)
	written := open(t, params(out, "PANESTATE_PROGSTATUS=1"))
	a, err := progstatus.Driver{View: v.view}.Open(t.Context(), params(nil))
	if err != nil {
		t.Fatalf("Open with View and no terminal: %v", err)
	}
	for _, r := range reports {
		for _, x := range []adapter.Adapter{written, a} {
			if err := x.Report(t.Context(), r); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, x := range []adapter.Releaser{written, a.(adapter.Releaser)} {
		if err := x.Release(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	seqs := out.take()
	if len(seqs) != len(v.got) || len(seqs) != len(reports)+1 {
		t.Fatalf("%d writes, %d views; want %d each", len(seqs), len(v.got), len(reports)+1)
	}
	for i, s := range v.got {
		want := ansi.ClearProgramStatusID("mychat")
		if s != nil {
			want = ansi.SetProgramStatus(*teaStatus(s))
			if got := string(s.Sequence()); got != want {
				t.Errorf("Status %+v: Sequence %q; Charm's encoder writes %q", *s, got, want)
			}
		} else if i != len(v.got)-1 {
			t.Errorf("view %d is nil before the goodbye", i)
		}
		if seqs[i] != want {
			t.Errorf("write %d: %q; Charm's encoder writes %q", i, seqs[i], want)
		}
	}
}

// statusMsg carries panestate's record into the Bubble Tea program.
type statusMsg struct{ s *tea.ProgramStatus }

// chatModel is a host's UI: a line of text and a program status, either
// panestate's record (statusMsg) or the host's own.
type chatModel struct{ status *tea.ProgramStatus }

func (m chatModel) Init() tea.Cmd { return nil }

func (m chatModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if s, ok := msg.(statusMsg); ok {
		m.status = s.s
	}
	return m, nil
}

func (m chatModel) View() tea.View {
	v := tea.NewView("chat")
	v.ProgramStatus = m.status
	return v
}

// onePTY is a Bubble Tea program and a panestate adapter writing to one
// pty, as a Go host runs them, with the terminal's side read into out.
type onePTY struct {
	tty  *os.File // the program's side, handed to both
	prog *tea.Program
	term notifiedTTY // what the terminal's side read
}

func startOnePTY(t *testing.T) *onePTY {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pty: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	o := &onePTY{tty: tty}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			_, _ = o.term.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	o.prog = tea.NewProgram(chatModel{}, tea.WithInput(nil), tea.WithOutput(tty), tea.WithoutSignalHandler(),
		tea.WithWindowSize(80, 24), tea.WithEnvironment([]string{"TERM=xterm-256color"}))
	ran := make(chan error, 1)
	go func() {
		_, err := o.prog.Run()
		ran <- err
	}()
	t.Cleanup(func() {
		o.prog.Quit()
		if err := <-ran; err != nil && !errors.Is(err, tea.ErrProgramKilled) {
			t.Errorf("Bubble Tea: %v", err)
		}
		_ = tty.Close()
		_ = ptmx.Close()
		<-read
	})
	return o
}

// records waits until the records the terminal keeps, after everything
// written so far, are want (by id, state, kind, app and message), and
// fails after 10 s with what they were.
func (o *onePTY) records(t *testing.T, step string, want ...rec) {
	t.Helper()
	o.term.until(t, step, want, func(s *store) bool {
		var got []rec
		for _, id := range s.ids() {
			got = append(got, s.recs[id])
		}
		return slices.Equal(got, want)
	})
}

// TestBubbleTeaAndPanestateOnOnePTY runs a Bubble Tea v2.1.1 program and
// panestate's adapter side by side on one pty and reads what the
// terminal keeps after every step, with the 0.4 store rules: one record,
// in the right state, throughout.
func TestBubbleTeaAndPanestateOnOnePTY(t *testing.T) {
	mychat := func(state, kind, msg string) rec {
		return rec{State: state, ID: "mychat", Kind: kind, App: "mychat", Msg: msg}
	}
	steps := []struct {
		name   string
		report adapter.Report
		want   rec
	}{
		{"idle", quiescent, mychat("idle", "", "")},
		{"working", working, mychat("working", "", "")},
		{"approval", approval, mychat("blocked", "permission", "Waiting for approval")},
		{"working again", working, mychat("working", "", "")},
		{"done", quiescent, mychat("done", "", "")},
	}

	t.Run("the host's view writes panestate's record", func(t *testing.T) {
		o := startOnePTY(t)
		send := func(s *progstatus.Status) { o.prog.Send(statusMsg{teaStatus(s)}) }
		p := params(nil, "PANESTATE_PROGSTATUS=1")
		p.Terminal = o.tty // handed over as a host does: the adapter must write nothing to it
		a, err := progstatus.Driver{View: send}.Open(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		defer a.(adapter.Closer).Close(context.Background())
		for _, st := range steps {
			if err := a.Report(t.Context(), st.report); err != nil {
				t.Fatal(err)
			}
			o.records(t, st.name, st.want)
		}
		if err := a.(adapter.Releaser).Release(t.Context()); err != nil {
			t.Fatal(err)
		}
		o.records(t, "goodbye")
	})

	t.Run("the host writes its own record, and says so", func(t *testing.T) {
		o := startOnePTY(t)
		d := progstatus.Driver{HostWrites: true}
		if _, err := d.Open(t.Context(), params(&tty{}, "PANESTATE_PROGSTATUS=1")); !errors.Is(err, adapter.ErrInactive) {
			t.Fatalf("Open with HostWrites: %v; want ErrInactive", err)
		}
		own := &tea.ProgramStatus{State: tea.ProgramStateWorking, App: "mychat"}
		o.prog.Send(statusMsg{own})
		o.records(t, "the host's own", rec{State: "working", App: "mychat"})
	})

	t.Run("without either, two writers keep two records", func(t *testing.T) {
		o := startOnePTY(t)
		p := params(nil, "PANESTATE_PROGSTATUS=1")
		p.Terminal = o.tty
		a, err := progstatus.Driver{}.Open(t.Context(), p)
		if err != nil {
			t.Fatal(err)
		}
		defer a.(adapter.Closer).Close(context.Background())
		o.prog.Send(statusMsg{&tea.ProgramStatus{State: tea.ProgramStateIdle, App: "mychat"}})
		if err := a.Report(t.Context(), working); err != nil {
			t.Fatal(err)
		}
		o.records(t, "two writers", rec{State: "idle", App: "mychat"}, mychat("working", "", ""))
	})
}
