package main

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/hashicorp/go-hclog"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapter/adaptertest"
	"github.com/panestate/panestate/session"
)

// params returns what the registry would pass to the driver for an
// interactive session of "chat" in an xterm.
func params(settings string) adapter.Params {
	p := adapter.Params{
		Name:     "title",
		App:      "chat",
		Logger:   hclog.NewNullLogger(),
		Env:      adapter.Env{"TERM=xterm-256color"},
		Host:     session.Host{Interactive: true, Root: true},
		Diagnose: func(adapter.Diagnostic) {},
	}
	if settings != "" {
		p.Settings = []byte(settings)
	}
	return p
}

// syncBuffer is a bytes.Buffer safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestConformance(t *testing.T) {
	adaptertest.Run(t, func(t *testing.T) adapter.Adapter {
		a, err := TitleDriver{Out: new(syncBuffer)}.Open(t.Context(), params(""))
		if err != nil {
			t.Fatal(err)
		}
		return a
	})
}

func TestOpen(t *testing.T) {
	for _, tc := range []struct {
		name         string
		change       func(p *adapter.Params)
		settings     string
		wantInactive bool
		wantErr      string // "" for success
		wantTitle    string // after a working report
	}{
		{name: "defaults", wantTitle: "\x1b]2;chat: working\a"},
		{name: "prefix setting", settings: `{"prefix":"my chat"}`, wantTitle: "\x1b]2;my chat: working\a"},
		{name: "no TERM", change: func(p *adapter.Params) { p.Env = nil }, wantTitle: "\x1b]2;chat: working\a"},
		{
			name:         "print mode",
			change:       func(p *adapter.Params) { p.Host.Interactive = false },
			wantInactive: true,
			wantErr:      "title: adapter inactive: not an interactive root session: the host is not interactive (a print, JSON or RPC run, or no UI)",
		},
		{
			name:         "subagent",
			change:       func(p *adapter.Params) { p.Host.Root = false },
			wantInactive: true,
			wantErr:      "title: adapter inactive: not an interactive root session: the host is not the root session (a subagent or a workflow stage)",
		},
		{
			name:         "dumb terminal",
			change:       func(p *adapter.Params) { p.Env = adapter.Env{"TERM=dumb"} },
			wantInactive: true,
			wantErr:      "title: adapter inactive: TERM is dumb, the terminal has no title",
		},
		{
			name:     "control character in prefix",
			settings: `{"prefix":"chat\u0007\u001b]2;pwned"}`,
			wantErr:  `title: settings: prefix "chat\a\x1b]2;pwned" must be at most 64 characters, without control characters`,
		},
		{name: "malformed settings", settings: `{"prefix":7}`, wantErr: "title: settings: json: cannot unmarshal number into Go struct field titleSettings.prefix of type string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := params(tc.settings)
			if tc.change != nil {
				tc.change(&p)
			}
			var out syncBuffer
			d := TitleDriver{Out: &out}
			a, err := d.Open(t.Context(), p)
			if checkErr := d.Check(p); (checkErr == nil) != (tc.wantErr == "") || (checkErr != nil && checkErr.Error() != tc.wantErr) {
				t.Errorf("Check = %v; want %q, what Open says", checkErr, tc.wantErr)
			}
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr || errors.Is(err, adapter.ErrInactive) != tc.wantInactive {
					t.Fatalf("Open error = %v; want %q (inactive: %v)", err, tc.wantErr, tc.wantInactive)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.(*TitleAdapter).Close(context.Background())
			if err := a.Report(t.Context(), adapter.Report{State: adapter.StateWorking, Reason: adapter.ReasonExecuting}); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.wantTitle {
				t.Errorf("title %q; want %q", got, tc.wantTitle)
			}
		})
	}
}

func TestNilOut(t *testing.T) {
	if _, err := (TitleDriver{}).Open(t.Context(), params("")); err == nil || errors.Is(err, adapter.ErrInactive) {
		t.Errorf("Open with no Out = %v; want an error that is not ErrInactive", err)
	}
}

func TestTitles(t *testing.T) {
	var out syncBuffer
	a, err := TitleDriver{Out: &out}.Open(t.Context(), params(""))
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	for _, r := range []adapter.Report{
		{State: adapter.StateWorking, Reason: adapter.ReasonBackgroundTasks, Message: adapter.MessageWorkflowNeedsAttention},
		{State: adapter.StateBlocked, Reason: adapter.ReasonAwaitingInput, Message: adapter.MessageWaitingForInput},
		{State: adapter.StateIdle, Reason: adapter.ReasonPaused},
	} {
		if err := a.Report(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	ta := a.(*TitleAdapter)
	if err := ta.Release(ctx); err != nil {
		t.Fatal(err)
	}
	got := ta.Details()
	if err := ta.Close(ctx); err != nil {
		t.Fatal(err)
	}
	want := "\x1b]2;chat: working - Workflow needs attention\a" +
		"\x1b]2;chat: blocked - Waiting for input\a" +
		"\x1b]2;chat: idle\a" +
		"\x1b]2;\a"
	if out.String() != want {
		t.Errorf("titles %q; want %q", out.String(), want)
	}
	if got["title"] != `""` || got["writes"] != "4" {
		t.Errorf("Details = %v; want title \"\" and 4 writes", got)
	}
}

// TestDriverAgreesWithOpen checks, with adaptertest.RunDriver, that Check
// says what Open does, and that an inactive Open starts nothing.
func TestDriverAgreesWithOpen(t *testing.T) {
	dumb := params("")
	dumb.Env = adapter.Env{"TERM=dumb"}
	adaptertest.RunDriver(t, TitleDriver{Out: new(syncBuffer)}, map[string]adapter.Params{
		"defaults":           params(""),
		"prefix":             params(`{"prefix":"my chat"}`),
		"control character":  params(`{"prefix":"chat\u0007"}`),
		"malformed settings": params(`{"prefix":7}`),
		"dumb terminal":      dumb,
	})
}
