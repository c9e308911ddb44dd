package progstatus_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/progstatus"
	"github.com/panestate/panestate/internal/optional"
	"github.com/panestate/panestate/session"
)

// TestWhenActive checks when the adapter turns on, through Check and Open
// alike: the probe's answer, the setting, and what holds even when forced.
func TestWhenActive(t *testing.T) {
	tests := []struct {
		name     string
		env      []string
		forced   bool
		noTTY    bool
		host     *session.Host
		active   bool
		whyMatch string // part of the error, or of Details' "active because"
	}{
		{"probe answered", []string{"PANESTATE_PROGSTATUS=1"}, false, false, nil, true, "answered the OSC 7501 query"},
		{"probe not answered", []string{"PANESTATE_PROGSTATUS=0"}, false, false, nil, false, "did not answer"},
		{"probe not answered, forced", []string{"PANESTATE_PROGSTATUS=0"}, true, false, nil, true, "progstatus.enabled is true"},
		{"probe value garbled", []string{"PANESTATE_PROGSTATUS=yes"}, false, false, nil, false, "neither 1 nor 0"},
		{"not probed, unknown terminal", []string{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6"}, false, false, nil, false, "did not probe"},
		{"not probed, forced", nil, true, false, nil, true, "progstatus.enabled is true"},
		{"no terminal handed over", []string{"PANESTATE_PROGSTATUS=1"}, true, true, nil, false, "no terminal"},
		{"not an interactive root", []string{"PANESTATE_PROGSTATUS=1"}, true, false,
			&session.Host{Interactive: true}, false, "not the root session"},
		{"inside Herdr, even forced", []string{"HERDR_ENV=1", "PANESTATE_PROGSTATUS=1"}, true, false, nil, false, "Herdr"},
		{"TERM=dumb, even forced", []string{"TERM=dumb", "PANESTATE_PROGSTATUS=1"}, true, false, nil, false, "dumb"},
		{"inside tmux, probe ignored", []string{"TMUX=/tmp/t,1,0", "PANESTATE_PROGSTATUS=1"}, false, false, nil, false, "allow-passthrough"},
		{"inside tmux, forced", []string{"TMUX=/tmp/t,1,0"}, true, false, nil, true, "progstatus.enabled is true"},
		{"inside screen", []string{"STY=1.pts-0", "PANESTATE_PROGSTATUS=1"}, false, false, nil, false, "screen"},
		{"inside screen, forced", []string{"STY=1.pts-0"}, true, false, nil, true, "progstatus.enabled is true"},
		{"inside zellij, probe answered", []string{"ZELLIJ=0", "ZELLIJ_SESSION_NAME=work", "PANESTATE_PROGSTATUS=1"}, false, false, nil, true, "zellij"},
		{"inside zellij, session name only, probe answered", []string{"ZELLIJ_SESSION_NAME=work", "PANESTATE_PROGSTATUS=1"}, false, false, nil, true, "zellij"},
		{"inside zellij, probe not answered", []string{"ZELLIJ=0", "PANESTATE_PROGSTATUS=0"}, false, false, nil, false, "zellij"},
		{"inside zellij, not probed", []string{"ZELLIJ=0"}, false, false, nil, false, "did not probe"},
		{"inside zellij, forced", []string{"ZELLIJ=0"}, true, false, nil, true, "progstatus.enabled is true, inside zellij"},
		{"inside zellij, TERM=dumb", []string{"ZELLIJ=0", "TERM=dumb"}, true, false, nil, false, "dumb"},
		{"tmux inside zellij: tmux's rules", []string{"ZELLIJ=0", "TMUX=/tmp/t,1,0", "PANESTATE_PROGSTATUS=1"}, false, false, nil, false, "allow-passthrough"},
		{"inside a Herdr 2 terminal, probe answered", []string{"HC_TERMINAL_ID=t-42", "PANESTATE_PROGSTATUS=1"}, false, false, nil, true, "Herdr 2"},
		{"inside a Herdr 2 terminal, not probed", []string{"HC_TERMINAL_ID=t-42"}, false, false, nil, false, "Herdr 2"},
		{"inside a Herdr 2 terminal, forced", []string{"HC_TERMINAL_ID=t-42"}, true, false, nil, true, "inside a Herdr 2 terminal"},
		{"Herdr 2 before legacy Herdr's variable", []string{"HC_TERMINAL_ID=t-42", "HERDR_ENV=1", "PANESTATE_PROGSTATUS=1"}, false, false, nil, true, "Herdr 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := new(tty)
			if tt.noTTY {
				out = nil
			}
			p := params(out, tt.env...)
			p.Forced = tt.forced
			if tt.host != nil {
				p.Host = *tt.host
			}
			checkErr := progstatus.Driver{}.Check(p)
			a, err := progstatus.Driver{}.Open(t.Context(), p)
			if (checkErr == nil) != (err == nil) {
				t.Errorf("Check says %v but Open says %v", checkErr, err)
			}
			if !tt.active {
				if !errors.Is(err, adapter.ErrInactive) {
					t.Fatalf("Open: %v; want ErrInactive", err)
				}
				if !strings.Contains(err.Error(), tt.whyMatch) {
					t.Errorf("Open: %v; want it to say %q", err, tt.whyMatch)
				}
				if w := out; w != nil && len(w.take()) != 0 {
					t.Errorf("an inactive adapter wrote to the terminal")
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer optional.Close(t.Context(), a)
			if why := optional.Details(a)["active because"]; !strings.Contains(why, tt.whyMatch) {
				t.Errorf("Details say active because %q; want %q", why, tt.whyMatch)
			}
		})
	}
}

// TestSettings checks the section: nothing besides "enabled", and a
// section that is not an object is an error for Open and Check alike.
func TestSettings(t *testing.T) {
	for _, tt := range []struct {
		section string
		ok      bool
	}{{"", true}, {"{}", true}, {`{"unknown": 1}`, true}, {"[]", false}, {`"on"`, false}} {
		t.Run(tt.section, func(t *testing.T) {
			p := params(new(tty), "PANESTATE_PROGSTATUS=1")
			p.Settings = []byte(tt.section)
			verr := progstatus.Driver{}.Check(p)
			a, err := progstatus.Driver{}.Open(t.Context(), p)
			if err == nil {
				optional.Close(t.Context(), a)
			}
			if (err == nil) != tt.ok || (verr == nil) != tt.ok {
				t.Errorf("Open: %v, Check: %v; want ok %v", err, verr, tt.ok)
			}
		})
	}
}

// TestScrubEnv checks that a tool subprocess does not inherit the probe's
// result.
func TestScrubEnv(t *testing.T) {
	got := progstatus.Driver{}.ScrubEnv(adapter.Env{"A=1", "PANESTATE_PROGSTATUS=1", "B=2"})
	if strings.Join(got, " ") != "A=1 B=2" {
		t.Errorf("ScrubEnv = %v", got)
	}
}
