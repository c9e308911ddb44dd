package terminal_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/adapters/terminal"
	"github.com/panestate/panestate/internal/optional"
)

// TestActivation lists, for each environment, whether the adapter applies
// without being forced, and why not. Check and Open must agree, and
// "enabled": true must turn on every one of them (what it cannot override is
// in TestNeverForcible).
func TestActivation(t *testing.T) {
	tests := []struct {
		name string
		env  adapter.Env
		why  string // "" when active; otherwise the inactive error
	}{
		{"ghostty 1.2.0", adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}, ""},
		{"ghostty tip build after 1.2", adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.3.0-main+0a1b2c3"}, ""},
		{"ghostty 1.1.3 does not draw progress", adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.1.3"},
			"terminal: adapter inactive: Ghostty 1.1.3 is older than Ghostty 1.2.0, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"ghostty 1.2.0 development build", adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0-main+abc"},
			"terminal: adapter inactive: Ghostty 1.2.0-main+abc is older than Ghostty 1.2.0, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"ghostty without a version", adapter.Env{"TERM_PROGRAM=ghostty"},
			"terminal: adapter inactive: Ghostty without a TERM_PROGRAM_VERSION; only 1.2.0 and later show OSC 9;4; set terminal.enabled to true to force it"},
		{"iterm2 3.6.6", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6"}, ""},
		{"iterm2 3.7.0", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.7.0"}, ""},
		{"iterm2 3.6.6beta1 predates the support", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.6beta1"},
			"terminal: adapter inactive: iTerm2 3.6.6beta1 is older than iTerm2 3.6.6, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"iterm2 3.5.14 would show a notification", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.5.14"},
			"terminal: adapter inactive: iTerm2 3.5.14 is older than iTerm2 3.6.6, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"iterm2 3.6 nightly before the support would show a notification", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.20251029-nightly"},
			"terminal: adapter inactive: iTerm2 3.6.20251029-nightly is a nightly build from before 20251031, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"iterm2 3.6 nightly after the support", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.6.20251101-nightly"}, ""},
		{"iterm2 3.7 nightly", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.7.20260501-nightly"}, ""},
		{"iterm2 3.5 nightly", adapter.Env{"TERM_PROGRAM=iTerm.app", "TERM_PROGRAM_VERSION=3.5.20250601-nightly"},
			"terminal: adapter inactive: iTerm2 3.5.20250601-nightly is older than iTerm2 3.6.6, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"wezterm nightly", adapter.Env{"TERM_PROGRAM=WezTerm", "TERM_PROGRAM_VERSION=20250301-120000-abcdef12"}, ""},
		{"wezterm 20240203 release", adapter.Env{"TERM_PROGRAM=WezTerm", "TERM_PROGRAM_VERSION=20240203-110809-5046fc22"},
			"terminal: adapter inactive: WezTerm 20240203-110809-5046fc22 was built before 20250210, the first build to understand OSC 9;4; set terminal.enabled to true to force it"},
		{"wezterm built the morning the support landed, before it", adapter.Env{"TERM_PROGRAM=WezTerm", "TERM_PROGRAM_VERSION=20250209-110809-5046fc22"},
			"terminal: adapter inactive: WezTerm 20250209-110809-5046fc22 was built before 20250210, the first build to understand OSC 9;4; set terminal.enabled to true to force it"},
		{"wezterm pane without a version", adapter.Env{"WEZTERM_PANE=3"},
			"terminal: adapter inactive: WezTerm without a dated TERM_PROGRAM_VERSION; builds before 20250210 show OSC 9;4 as a notification; set terminal.enabled to true to force it"},
		{"vscode 1.97", adapter.Env{"TERM_PROGRAM=vscode", "TERM_PROGRAM_VERSION=1.97.2"}, ""},
		{"vscode 1.96", adapter.Env{"TERM_PROGRAM=vscode", "TERM_PROGRAM_VERSION=1.96.4"},
			"terminal: adapter inactive: VS Code 1.96.4 is older than VS Code 1.97.0, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"mintty", adapter.Env{"TERM_PROGRAM=mintty", "TERM_PROGRAM_VERSION=3.7.4"}, ""},
		{"windows terminal", adapter.Env{"WT_SESSION=5b4e2f6a-0000-4000-8000-000000000000"}, ""},
		{"conemu by pid", adapter.Env{"ConEmuPID=4242"}, ""},
		{"conemu by ansi", adapter.Env{"ConEmuANSI=ON"}, ""},
		{"TERM_PROGRAM wins over an inherited WT_SESSION", adapter.Env{"WT_SESSION=x", "TERM_PROGRAM=vscode", "TERM_PROGRAM_VERSION=1.90.0"},
			"terminal: adapter inactive: VS Code 1.90.0 is older than VS Code 1.97.0, the first to show OSC 9;4; set terminal.enabled to true to force it"},
		{"konsole", adapter.Env{"KONSOLE_VERSION=260800"},
			"terminal: adapter inactive: Konsole shows only percentages of OSC 9;4; it hides the indeterminate state and ignores the paused one; set terminal.enabled to true to force it"},
		{"kitty", adapter.Env{"KITTY_WINDOW_ID=1", "TERM=xterm-kitty"},
			"terminal: adapter inactive: kitty puts no version in the environment, and kitty before 0.38 shows OSC 9;4 as a notification; set terminal.enabled to true to force it"},
		{"apple terminal", adapter.Env{"TERM_PROGRAM=Apple_Terminal"},
			"terminal: adapter inactive: TERM_PROGRAM=Apple_Terminal is not a terminal known to show OSC 9;4 progress; set terminal.enabled to true to force it"},
		{"nothing known", adapter.Env{"TERM=xterm-256color"},
			"terminal: adapter inactive: no terminal known to show OSC 9;4 progress was detected (TERM_PROGRAM, WT_SESSION, ConEmuPID, WEZTERM_PANE are unset); set terminal.enabled to true to force it"},
		{"inside tmux in ghostty", adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0", "TMUX=/tmp/tmux-1000/default,1,0"},
			"terminal: adapter inactive: inside tmux (TMUX is set) whose version is unknown (TERM_PROGRAM is not tmux); tmux before 3.7 drops OSC 9;4, and the tmux adapter reports there; set terminal.enabled to true to force it"},
		{"inside tmux 3.3a", adapter.Env{"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.3a", "TMUX=/tmp/tmux-1000/default,1,0"},
			"terminal: adapter inactive: inside tmux 3.3a is older than tmux 3.7, the first to show OSC 9;4; the tmux adapter reports there; set terminal.enabled to true to force it"},
		{"inside tmux 3.6b", adapter.Env{"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.6b", "TMUX=/tmp/tmux-1000/default,1,0"},
			"terminal: adapter inactive: inside tmux 3.6b is older than tmux 3.7, the first to show OSC 9;4; the tmux adapter reports there; set terminal.enabled to true to force it"},
		{"inside tmux 3.7", adapter.Env{"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.7", "TMUX=/tmp/tmux-1000/default,1,0"}, ""},
		{"inside tmux 3.7c", adapter.Env{"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.7c", "TMUX=/tmp/tmux-1000/default,1,0"}, ""},
		{"inside tmux 4.0", adapter.Env{"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=4.0", "TMUX=/tmp/tmux-1000/default,1,0"}, ""},
		{"inside a tmux built from master", adapter.Env{"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=next-3.8", "TMUX=/tmp/tmux-1000/default,1,0"}, ""},
		{"inside tmux without a version", adapter.Env{"TERM_PROGRAM=tmux", "TMUX=/tmp/tmux-1000/default,1,0"},
			"terminal: adapter inactive: inside tmux without a TERM_PROGRAM_VERSION; only 3.7 and later show OSC 9;4; the tmux adapter reports there; set terminal.enabled to true to force it"},
		{"tmux's TERM_PROGRAM outside tmux", adapter.Env{"TERM_PROGRAM=tmux", "TERM_PROGRAM_VERSION=3.7c"},
			"terminal: adapter inactive: TERM_PROGRAM is tmux, but TMUX is not set; set terminal.enabled to true to force it"},
		{"inside herdr in windows terminal", adapter.Env{"WT_SESSION=x", "HERDR_ENV=1"},
			"terminal: adapter inactive: inside a Herdr pane (HERDR_ENV=1), where the herdr adapter reports; set terminal.enabled to true to force it"},
		{"inside screen", adapter.Env{"WT_SESSION=x", "STY=4242.pts-0.host"},
			"terminal: adapter inactive: inside GNU screen (STY is set), which does not pass OSC 9;4 on; set terminal.enabled to true to force it"},
		{"inside zellij", adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0", "ZELLIJ=0"},
			"terminal: adapter inactive: inside zellij (ZELLIJ is set), whose handling of OSC 9;4 is not known; set terminal.enabled to true to force it"},
		{"dumb terminal", adapter.Env{"WT_SESSION=x", "TERM=dumb"},
			"terminal: adapter inactive: TERM is dumb; set terminal.enabled to true to force it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, section := range []string{``, `{"enabled": true}`} {
				p := params(new(tape), tt.env, section)
				want := tt.why
				if section != "" {
					want = ""
				}
				checkErr := terminal.Driver{}.Check(p)
				a, openErr := terminal.Driver{}.Open(t.Context(), p)
				for what, err := range map[string]error{"Check": checkErr, "Open": openErr} {
					got := ""
					if err != nil {
						got = err.Error()
						if !errors.Is(err, adapter.ErrInactive) {
							t.Errorf("%s with %q = %v; want an error wrapping ErrInactive", what, section, err)
						}
					}
					if diff := cmp.Diff(got, want); diff != "" {
						t.Errorf("%s with settings %q (-got +want):\n%s", what, section, diff)
					}
				}
				if (openErr == nil) != (a != nil) {
					t.Errorf("Open = %v, %v; want exactly one of an adapter and an error", a, openErr)
				}
			}
		})
	}
}

// TestNeverForcible lists what "enabled": true cannot override.
func TestNeverForcible(t *testing.T) {
	ghostty := adapter.Env{"TERM_PROGRAM=ghostty", "TERM_PROGRAM_VERSION=1.2.0"}
	tests := []struct {
		name string
		p    func() adapter.Params
		want string
	}{
		{"no terminal handed over", func() adapter.Params {
			return params(nil, ghostty, `{"enabled": true}`)
		}, "terminal: adapter inactive: the host handed over no terminal (registry.Options.Terminal is nil)"},
		{"print mode", func() adapter.Params {
			p := params(new(tape), ghostty, `{"enabled": true}`)
			p.Host.Interactive = false
			return p
		}, "terminal: adapter inactive: not an interactive root session: the host is not interactive (a print, JSON or RPC run, or no UI)"},
		{"subagent", func() adapter.Params {
			p := params(new(tape), ghostty, `{"enabled": true}`)
			p.Host.Root = false
			return p
		}, "terminal: adapter inactive: not an interactive root session: the host is not the root session (a subagent or a workflow stage)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.p()
			for what, err := range map[string]error{"Check": terminal.Driver{}.Check(p), "Open": openErr(t, p)} {
				if !errors.Is(err, adapter.ErrInactive) {
					t.Errorf("%s = %v; want an error wrapping ErrInactive", what, err)
					continue
				}
				if diff := cmp.Diff(err.Error(), tt.want); diff != "" {
					t.Errorf("%s (-got +want):\n%s", what, diff)
				}
			}
		})
	}
}

func openErr(t *testing.T, p adapter.Params) error {
	_, err := terminal.Driver{}.Open(t.Context(), p)
	return err
}

func TestDriverDeclarations(t *testing.T) {
	def, keys := optional.Settings(terminal.Driver{})
	if !def {
		t.Error("enabled by default = false; the adapter decides from the environment and must be on by default")
	}
	if diff := cmp.Diff(keys, []string{"enabled", "refresh", "notify"}); diff != "" {
		t.Errorf("settings keys (-got +want):\n%s", diff)
	}
}
