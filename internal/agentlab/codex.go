//go:build linux

package agentlab

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Codex is Codex CLI 0.169.0.
var Codex = Agent{Name: "codex", Bin: "codex", Package: "@openai/codex", Version: "0.169.0"}

// codexKeyEnv names the variable that holds the mock's API key.
const codexKeyEnv = "AGENTLAB_OPENAI_KEY"

// CodexOptions configure [SetupCodex].
type CodexOptions struct {
	// NoDaemon turns Codex's feature daemon_auto_start off: the TUI runs
	// its session itself, not in `codex app-server --managed-daemon`.
	NoDaemon bool
}

// SetupCodex prepares home for Codex talking to model (an [OpenAI]
// server): ~/.codex/config.toml names a model provider whose base_url is
// the mock's, with wire_api "responses" and its key in the environment,
// approval_policy "on-request" with the workspace-write sandbox (a
// command that asks for escalated permissions asks the person), the work
// directory trusted (a git repository, so that no trust dialog comes) and
// the update check off. Then `panestate install codex` adds the hooks to
// ~/.codex/hooks.json and trusts them in config.toml, as a user would:
// nothing here bypasses Codex's hook trust.
func SetupCodex(t testing.TB, home *Home, model *ModelServer, opts CodexOptions) {
	t.Helper()
	config := fmt.Sprintf(`model = "gpt-5.1"
model_provider = "agentlab"
approval_policy = "on-request"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[model_providers.agentlab]
name = "agentlab"
base_url = %q
env_key = %q
wire_api = "responses"

[projects.%q]
trust_level = "trusted"
`, model.URL+"/v1", codexKeyEnv, home.Work)
	if opts.NoDaemon {
		config += "\n[features]\ndaemon_auto_start = false\n"
	}
	home.WriteFile(t, filepath.Join(".codex", "config.toml"), []byte(config))
	home.Setenv(codexKeyEnv + "=sk-agentlab-0123456789")
	if git, err := exec.LookPath("git"); err == nil {
		_ = exec.Command(git, "init", "-q", home.Work).Run()
	}
	home.Install(t, "codex")
	t.Cleanup(func() { stopCodexDaemons(home) })
}

// CodexDaemons returns the processes of Codex's app-server daemon that
// Codex started from home (it installs the daemon under
// ~/.codex/packages/app-server-daemon).
func CodexDaemons(home *Home) []int {
	packages := filepath.Join(home.Dir, ".codex", "packages") + string(os.PathSeparator)
	return processes(func(exe string, _ []string) bool { return strings.HasPrefix(exe, packages) })
}

// stopCodexDaemons kills what Codex started under home and left running:
// its app-server daemon, which outlives the TUI by design, and removes the
// socket it listens on and that socket's lock file. Codex puts them in
// /tmp/codex-daemon-<uid>/ whatever TMPDIR says, and never removes them.
func stopCodexDaemons(home *Home) {
	for _, pid := range CodexDaemons(home) {
		socks := unixSockets(pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
		for _, s := range socks {
			if strings.Contains(filepath.Base(filepath.Dir(s)), "codex-daemon-") {
				_ = os.Remove(s)
				_ = os.Remove(s + ".lock")
			}
		}
	}
}

// unixSockets returns the paths of the Unix sockets that the process pid
// has open, from its descriptors and /proc/net/unix.
func unixSockets(pid int) []string {
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	inodes := map[string]bool{}
	for _, fd := range fds {
		link, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if inode, ok := strings.CutPrefix(link, "socket:["); ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	table, _ := os.ReadFile("/proc/net/unix")
	var paths []string
	for line := range strings.Lines(string(table)) {
		// Num RefCount Protocol Flags Type St Inode Path
		if f := strings.Fields(line); len(f) == 8 && inodes[f[6]] && strings.HasPrefix(f[7], "/") {
			paths = append(paths, f[7])
		}
	}
	return paths
}

// processes returns the processes whose executable and arguments match.
func processes(match func(exe string, args []string) bool) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, _ := os.Readlink("/proc/" + e.Name() + "/exe")
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if match(exe, strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// CodexProcess returns the Codex process in the pane: the native binary
// that the npm package's node script starts (the pane's program is that
// script), waiting for it to appear.
func (p *Pane) CodexProcess(t testing.TB) int {
	t.Helper()
	script := strconv.Itoa(p.PID(t))
	deadline := time.Now().Add(WaitTimeout)
	for {
		for _, pid := range processes(func(exe string, _ []string) bool { return filepath.Base(exe) == "codex" }) {
			if stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
				if f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:])); len(f) > 1 && f[1] == script {
					return pid
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("agentlab: no codex process under the pane's program %s", script)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// CodexCommand is a ToolCall of Codex's exec_command tool running cmd;
// escalated asks for permissions beyond the sandbox, which makes Codex ask
// the person (approval_policy on-request).
func CodexCommand(cmd string, escalated bool) ToolCall {
	in := map[string]any{"cmd": cmd}
	if escalated {
		in["sandbox_permissions"] = "require_escalated"
		in["justification"] = "The test asks for approval."
	}
	return ToolCall{Name: "exec_command", Input: in}
}
