package terminal

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/panestate/panestate/adapter"
)

// notifier is the desktop notification sequence a terminal understands.
type notifier uint8

const (
	notifyNone   notifier = iota // the terminal has no notification sequence we trust
	notifyOSC9                   // ESC ] 9 ; text ST (iTerm2)
	notifyOSC777                 // ESC ] 777 ; notify ; title ; body ST (rxvt's, adopted widely)
	notifyOSC99                  // ESC ] 99 ; ; text ST (kitty)
)

func (n notifier) String() string {
	switch n {
	case notifyOSC9:
		return "OSC 9"
	case notifyOSC777:
		return "OSC 777"
	case notifyOSC99:
		return "OSC 99"
	}
	return "none"
}

// profile is what the captured environment says about the terminal the host
// runs in.
type profile struct {
	// name names the terminal for Explain and errors, with its version when
	// known ("Ghostty 1.2.0").
	name string
	// shows is true when the terminal is known to show the OSC 9;4 states
	// this adapter sends; the adapter is then active without being forced.
	shows bool
	// why says, when shows is false, why the adapter stays off unless
	// forced. It completes "terminal: adapter inactive: ...".
	why string
	// notify is the notification sequence the terminal understands.
	notify notifier
	// tmux is true for tmux 3.7 or later, which keeps OSC 9;4 as the
	// pane's #{pane_pb_state} and forwards it to the terminal it runs in.
	tmux bool
}

// minimum versions whose TERM_PROGRAM_VERSION first shows OSC 9;4. Each
// entry's source is in docs/terminal.md.
var (
	minGhostty = version{major: 1, minor: 2}           // Ghostty 1.2.0 draws the progress bar; 1.0 and 1.1 parse and ignore it
	minITerm2  = version{major: 3, minor: 6, patch: 6} // iTerm2 3.6.6; older releases show OSC 9;4 as a "4;3" notification
	minVSCode  = version{major: 1, minor: 97}          // VS Code 1.97 (shown where the tab title has ${progress})
	minMintty  = version{major: 3, minor: 4, patch: 2} // mintty 3.4.2 maps OSC 9;4 onto its taskbar progress

	// iTerm2 nightlies are versioned 3.6.YYYYMMDD-nightly, so their third
	// number is a build date, which outranks 6. The support landed on
	// 2025-10-30; the first nightly sure to hold it is the next day's.
	minITerm2Nightly = 20251031

	// WezTerm versions are the build's commit date and time. ConEmu
	// progress support was committed on 2025-02-09 at 17:19, so builds from
	// earlier that day still show OSC 9;4 as a notification; the first day
	// whose every build has it is the next.
	minWezTerm = 20250210
)

// detect reads the terminal from env. It never fails: an unknown terminal is
// a profile that does not show progress.
func detect(env adapter.Env) profile {
	prog := env.Get("TERM_PROGRAM")
	ver := env.Get("TERM_PROGRAM_VERSION")
	switch prog {
	case "ghostty":
		return byVersion("Ghostty", ver, minGhostty, notifyOSC777)
	case "iTerm.app":
		return iterm2(ver)
	case "vscode":
		return byVersion("VS Code", ver, minVSCode, notifyNone)
	case "mintty":
		return byVersion("mintty", ver, minMintty, notifyNone)
	case "WezTerm":
		return wezterm(ver)
	case "tmux":
		return tmux(ver)
	}
	switch {
	case env.Get("WT_SESSION") != "":
		// Every Windows Terminal since 1.6 shows OSC 9;4; older ones
		// ignore it. OSC 777 notifications came later, and older releases
		// ignore those too.
		return profile{name: "Windows Terminal", shows: true, notify: notifyOSC777}
	case env.Get("ConEmuPID") != "" || env.Get("ConEmuANSI") == "ON":
		// ConEmu defined OSC 9;4. Its OSC 9 relatives are commands (9;2
		// opens a message box), not notifications, so none is sent.
		return profile{name: "ConEmu", shows: true}
	case env.Get("WEZTERM_PANE") != "":
		return wezterm(ver)
	case env.Get("KONSOLE_VERSION") != "":
		return profile{name: "Konsole " + env.Get("KONSOLE_VERSION"),
			why: "Konsole shows only percentages of OSC 9;4; it hides the indeterminate state and ignores the paused one"}
	case env.Get("KITTY_WINDOW_ID") != "" || env.Get("TERM") == "xterm-kitty":
		return profile{name: "kitty", notify: notifyOSC99,
			why: "kitty puts no version in the environment, and kitty before 0.38 shows OSC 9;4 as a notification"}
	}
	if prog != "" {
		return profile{name: prog, why: fmt.Sprintf("TERM_PROGRAM=%s is not a terminal known to show OSC 9;4 progress", adapter.Bound(prog, 40))}
	}
	return profile{name: "unknown", why: "no terminal known to show OSC 9;4 progress was detected (TERM_PROGRAM, WT_SESSION, ConEmuPID, WEZTERM_PANE are unset)"}
}

// minTmux is the first tmux that parses OSC 9;4 (its CHANGES, 3.6b to 3.7:
// #{pane_pb_state} and #{pane_pb_progress}, forwarded to the outer
// terminal).
var minTmux = version{major: 3, minor: 7}

// tmux is the profile of the tmux a pane runs in, from the
// TERM_PROGRAM_VERSION tmux sets in its panes: "3.7", "3.7c" (a letter is
// a patch release, not a pre-release), "next-3.8" (a build of master,
// which holds everything of 3.7).
func tmux(ver string) profile {
	v, ok := parseVersion(strings.TrimPrefix(ver, "next-"))
	if !ok {
		return profile{name: "tmux", why: fmt.Sprintf("tmux without a TERM_PROGRAM_VERSION; only %d.%d and later show OSC 9;4", minTmux.major, minTmux.minor)}
	}
	p := profile{name: "tmux " + adapter.Bound(ver, 40)}
	p.shows = v.major > minTmux.major || v.major == minTmux.major && v.minor >= minTmux.minor
	p.tmux = p.shows
	if !p.shows {
		p.why = fmt.Sprintf("%s is older than tmux %d.%d, the first to show OSC 9;4", p.name, minTmux.major, minTmux.minor)
	}
	return p
}

// byVersion is the profile of a terminal that shows progress from min on.
func byVersion(name, ver string, min version, n notifier) profile {
	v, ok := parseVersion(ver)
	if !ok {
		return profile{name: name, notify: n,
			why: fmt.Sprintf("%s without a TERM_PROGRAM_VERSION; only %s and later show OSC 9;4", name, min)}
	}
	p := profile{name: name + " " + adapter.Bound(ver, 40), notify: n, shows: !v.less(min)}
	if !p.shows {
		p.why = fmt.Sprintf("%s is older than %s %s, the first to show OSC 9;4", p.name, name, min)
	}
	return p
}

// iterm2 is iTerm2's profile: by release number, except that a 3.6
// nightly, whose third number is its build date, shows OSC 9;4 only when
// built after the support landed.
func iterm2(ver string) profile {
	p := byVersion("iTerm2", ver, minITerm2, notifyOSC9)
	v, ok := parseVersion(ver)
	if ok && v.major == minITerm2.major && v.minor == minITerm2.minor && v.patch >= 10_000_000 && v.patch < minITerm2Nightly {
		p.shows = false
		p.why = fmt.Sprintf("%s is a nightly build from before %d, the first to show OSC 9;4", p.name, minITerm2Nightly)
	}
	return p
}

// wezterm is WezTerm's profile. Its versions look like
// 20240203-110809-5046fc22. It keeps the state for tab titles its Lua
// configuration formats; it draws nothing of its own.
func wezterm(ver string) profile {
	date, _, _ := strings.Cut(ver, "-")
	d, err := strconv.Atoi(date)
	if err != nil || len(date) != 8 {
		return profile{name: "WezTerm", notify: notifyOSC777,
			why: fmt.Sprintf("WezTerm without a dated TERM_PROGRAM_VERSION; builds before %d show OSC 9;4 as a notification", minWezTerm)}
	}
	p := profile{name: "WezTerm " + adapter.Bound(ver, 40), notify: notifyOSC777, shows: d >= minWezTerm}
	if !p.shows {
		p.why = fmt.Sprintf("%s was built before %d, the first build to understand OSC 9;4", p.name, minWezTerm)
	}
	return p
}

// version is a dotted release number. pre marks a pre-release or
// development build (3.6.6beta1, 1.3.0-main+abc), which sorts before the
// release it leads to.
type version struct {
	major, minor, patch int
	pre                 bool
}

func (v version) String() string { return fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch) }

// less reports whether v is older than w.
func (v version) less(w version) bool {
	switch {
	case v.major != w.major:
		return v.major < w.major
	case v.minor != w.minor:
		return v.minor < w.minor
	case v.patch != w.patch:
		return v.patch < w.patch
	}
	return v.pre && !w.pre
}

// parseVersion reads "1", "1.2" or "1.2.3", followed by anything that is not
// a digit or a dot (then a pre-release).
func parseVersion(s string) (version, bool) {
	var nums [3]int
	n := 0
	i := 0
	for n < 3 {
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || j-i > 9 {
			return version{}, false
		}
		nums[n], _ = strconv.Atoi(s[i:j])
		n++
		i = j
		if i < len(s) && s[i] == '.' && n < 3 {
			i++
			continue
		}
		break
	}
	return version{major: nums[0], minor: nums[1], patch: nums[2], pre: i < len(s)}, true
}
