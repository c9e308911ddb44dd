package progstatus

import (
	"context"
	"strings"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/cmdrun"
)

// passthroughTimeout bounds the one tmux call that reads allow-passthrough.
const passthroughTimeout = 500 * time.Millisecond

// passthrough asks the tmux server the host runs in whether the host's
// pane forwards DCS passthrough (allow-passthrough, tmux 3.3 and later),
// with one tmux client run under the captured environment: "on", "off",
// or "unknown (...)" when it cannot tell. It is a hint for Explain and a
// diagnostic, never a reason to stay off: the person forced the adapter
// on, and may turn passthrough on later without restarting the agent.
func passthrough(ctx context.Context, env adapter.Env) string {
	socket, _, _ := strings.Cut(env.Get("TMUX"), ",")
	pane := env.Get("TMUX_PANE")
	if socket == "" || pane == "" {
		return "unknown (TMUX or TMUX_PANE is not set)"
	}
	bin, err := cmdrun.LookPath(env, "tmux")
	if err != nil {
		return "unknown (no tmux on the captured PATH)"
	}
	r := cmdrun.Runner{Path: bin, Env: env, Timeout: passthroughTimeout}
	out, err := r.Run(ctx, "-S", socket, "display-message", "-p", "-t", pane, "#{allow-passthrough}")
	if err != nil {
		return "unknown (tmux did not answer)"
	}
	switch strings.TrimSpace(string(out.Stdout)) {
	case "1", "on", "all":
		return "on"
	case "0", "off":
		return "off"
	case "":
		return "unknown (tmux has no allow-passthrough option: older than 3.3)"
	}
	return "unknown"
}
