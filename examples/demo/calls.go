package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/panestate/panestate/adapters/herdr/herdrtest"
)

// transportText renders what the Herdr adapter's Explain says of its
// transport: the setting, the route of the last call, and the server's
// version and protocol from its ping.
func transportText(details map[string]string) string {
	if details == nil {
		return "(the herdr adapter never ran)"
	}
	s := fmt.Sprintf("setting %s, used %s", details["transport"], details["transport_used"])
	if v := details["server_version"]; v != "(unknown)" {
		s += fmt.Sprintf("; the server's ping: Herdr %s, protocol %s", v, details["server_protocol"])
	} else {
		s += "; no ping answered"
	}
	return s
}

// requestText renders a call as Herdr received it: a socket request's
// method and params, or a CLI invocation's argv. The temporary directory
// shows as $TMP.
func (d *demo) requestText(c herdrtest.Call) string {
	var s string
	if c.Transport == herdrtest.TransportSocket {
		s = c.Method + " " + string(c.Params)
	} else {
		s = argv(c.Args)
	}
	return strings.ReplaceAll(s, d.root, "$TMP")
}

// printResume says where the resume command went. With the emulator it
// reads the server's log: each request that carried the command, and the
// report before it that made this reporter the pane's holder. With a real
// Herdr it says what the adapter's Explain says.
func (d *demo) printResume(calls []herdrtest.Call) {
	w := d.out
	if d.emu == nil {
		state, version := d.details["resume"], d.details["server_version"]
		if state == "pending" && version != "(unknown)" && !resumeSupported(version) {
			fmt.Fprintf(w, "  resume        not sent: Herdr %s predates 0.9.2 (the herdr adapter's Explain: %s)\n", version, state)
			return
		}
		fmt.Fprintf(w, "  resume        %s (the herdr adapter's Explain)\n", state)
		return
	}
	var carried []int
	for i, c := range calls {
		if c.ResumeArgv() != nil {
			carried = append(carried, i)
		}
	}
	if len(carried) == 0 {
		if resumeSupported(d.emu.Version()) {
			fmt.Fprintf(w, "  resume        not sent: no request carried it, though Herdr %s takes one\n", d.emu.Version())
		} else {
			fmt.Fprintf(w, "  resume        not sent: Herdr %s predates 0.9.2; no request carried it\n", d.emu.Version())
		}
		return
	}
	fmt.Fprintln(w, "  resume        sent once per claim, after the pane was held (#n: the order Herdr received requests)")
	for _, i := range carried {
		c := calls[i]
		words, _ := json.Marshal(c.ResumeArgv())
		fmt.Fprintf(w, "                %s, then #%d carries resume_argv %s%s\n", holderBefore(calls[:i]), c.Arrival, words, codeText(c))
	}
	if kept, ok := d.emu.ResumeArgv(d.emu.Pane); ok {
		fmt.Fprintf(w, "                Herdr keeps: %s\n", argvText(kept))
	} else {
		fmt.Fprintln(w, "                Herdr keeps none")
	}
}

// holderBefore describes the last request before a resume request that
// changed the pane: a report that made this reporter its holder, or
// anything else, which would mean the command went to a pane not held.
func holderBefore(earlier []herdrtest.Call) string {
	for i := len(earlier) - 1; i >= 0; i-- {
		c := earlier[i]
		if c.Arrival == 0 || !c.Applied {
			continue
		}
		if c.Command == "pane report-agent" {
			state, _ := c.Flag("state")
			return fmt.Sprintf("#%d report-agent %s holds the pane", c.Arrival, state)
		}
		return fmt.Sprintf("#%d %s left the pane free (not held!)", c.Arrival, c.Command)
	}
	return "no report held the pane (not held!)"
}

// codeText renders a request's error code, if the server answered one.
func codeText(c herdrtest.Call) string {
	if c.Code == "" {
		return ""
	}
	return " (answered " + c.Code + ")"
}

// resumeSupported reports whether a Herdr version takes a resume command:
// 0.9.2 and later, not counting a pre-release of 0.9.2 (as the adapter
// decides).
func resumeSupported(version string) bool {
	var v [3]int
	core, _, pre := strings.Cut(version, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return false
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return false
		}
		v[i] = n
	}
	if v == [3]int{0, 9, 2} && pre {
		return false
	}
	return v[0] > 0 || v[1] > 9 || v[1] == 9 && v[2] >= 2
}

// argvText renders words as a person would type them.
func argvText(words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shellQuote(w)
	}
	return strings.Join(out, " ")
}
