package tmux

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/panestate/panestate/internal/testenv"
)

// waitOptions waits until pane's options are want (the chat delivers on
// its own goroutine, in another process) and fails with what they were
// otherwise.
func waitOptions(t *testing.T, s *server, pane, step string, want map[string]string) {
	t.Helper()
	var got map[string]string
	deadline := time.Now().Add(10 * time.Second)
	for {
		got = s.options(t, pane)
		if cmp.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s, pane options (-got +want):\n%s", step, cmp.Diff(got, want))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// typeLine types line into pane and presses Enter, as a person would.
func typeLine(t *testing.T, s *server, pane, line string) {
	t.Helper()
	s.run(t, "send-keys", "-t", pane, "-l", line, ";", "send-keys", "-t", pane, "Enter")
}

func TestChatInTmuxPane(t *testing.T) {
	requireTmux(t)
	chat := testenv.Chat(t)
	fakeHerdr := filepath.Join(fakeDir(t), "herdr")
	if err := os.Symlink(filepath.Join(filepath.Dir(fakeHerdr), Program), fakeHerdr); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// extra environment of the chat's pane
		env []string
		// settings in ~/.chat/agent/settings.json
		settings string
	}{
		// Either way the chat exits 0: a workspace failure (the hung
		// Herdr's release) is a diagnostic, never the chat's failure.
		{name: "tmux alone"},
		{
			// A Herdr pane inside tmux whose Herdr hangs, each call for its
			// whole 60 s deadline: the tmux pane still follows every step
			// within waitOptions' 10 s, which it could not if the tmux
			// adapter waited for the Herdr one.
			name: "alongside a hung Herdr",
			env: []string{"HERDR_ENV=1", "HERDR_BIN_PATH=" + fakeHerdr, "HERDR_PANE_ID=w1:p1",
				"HERDR_SOCKET_PATH=/nonexistent/herdr.sock", fakeModeEnv + "=hang"},
			settings: `{"herdr":{"timeout":"60s"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if tt.settings != "" {
				dir := filepath.Join(home, ".chat", "agent")
				if err := os.MkdirAll(dir, 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(tt.settings), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			env := append(os.Environ(), "HOME="+home)
			env = append(env, tt.env...)
			stderr := filepath.Join(home, "stderr.log")
			// The pane's shell waits for the chat and writes its exit status
			// to a file: tmux itself may leave the chat a zombie for a long
			// while after marking the pane dead (seen with 3.3a on a loaded
			// machine), so #{pane_dead_status} cannot be relied on.
			statusFile := filepath.Join(home, "status")
			cmd := chat + " -v --log-level debug --project " + home + " 2>" + stderr + "; echo $? >" + statusFile + ".tmp && mv " + statusFile + ".tmp " + statusFile
			s := startServer(t, env, cmd)
			pane := s.panes(t)[0]

			// Attach reports the idle session.
			waitOptions(t, s, pane, "start", want("idle", ""))
			steps := []struct {
				name  string
				lines []string
				want  map[string]string
			}{
				{"a turn starts", []string{`{"op":"agent_start"}`, `{"op":"phase","phase":"thinking"}`}, want("working", "")},
				{"an approval prompt", []string{`{"op":"phase","phase":"tool_execution"}`, `{"op":"prompt_start","id":"p1","kind":"approval"}`},
					want("blocked", "Waiting for approval")},
				{"the prompt is answered", []string{`{"op":"prompt_end","id":"p1"}`}, want("working", "")},
				{"the turn settles", []string{`{"op":"phase","phase":"completed"}`, `{"op":"agent_settled"}`}, want("idle", "")},
				{"quit", []string{`{"op":"quit"}`}, map[string]string{}},
			}
			for _, step := range steps {
				for _, line := range step.lines {
					typeLine(t, s, pane, line)
				}
				start := time.Now()
				waitOptions(t, s, pane, step.name, step.want)
				t.Logf("%s: options after %v", step.name, time.Since(start).Round(time.Millisecond))
				if step.name == "an approval prompt" {
					t.Logf("$ tmux show-options -p -t %s\n%s", pane, s.run(t, "show-options", "-p", "-t", pane))
				}
			}
			// The chat has ended once its shell wrote the status file.
			var status string
			deadline := time.Now().Add(30 * time.Second)
			for {
				b, err := os.ReadFile(statusFile)
				if err == nil {
					status = strings.TrimSpace(string(b))
					break
				}
				if time.Now().After(deadline) {
					// Say what the chat was doing: its log, its screen and
					// whether it still runs.
					log, _ := os.ReadFile(stderr)
					ps, _ := exec.Command("ps", "-eo", "pid,ppid,stat,etime,comm").Output()
					t.Fatalf("the chat did not end within 30s\nstderr:\n%s\nscreen:\n%s\nprocesses:\n%s",
						log, s.run(t, "capture-pane", "-p", "-t", pane), ps)
				}
				time.Sleep(10 * time.Millisecond) // another process: there is nothing to wait on
			}
			log, _ := os.ReadFile(stderr)
			if status != "0" {
				t.Errorf("chat exit status %s; want 0\nstderr:\n%s", status, log)
			}
			screen := s.run(t, "capture-pane", "-p", "-t", pane)
			if !strings.Contains(screen, "detached") {
				t.Errorf("the chat did not print \"detached\"; screen:\n%s", screen)
			}
			t.Logf("$ tmux capture-pane -p -t %s\n%s", pane, strings.TrimRight(screen, "\n"))
			// Nothing of the chat reached the pane's title.
			if title := s.run(t, "display-message", "-p", "-t", pane, "#{pane_title}"); strings.Contains(title, "blocked") || strings.Contains(title, "working") {
				t.Errorf("pane title %q shows the state", title)
			}
		})
	}
}

func TestChatWithHungTmux(t *testing.T) {
	// The chat runs as if in a tmux pane whose tmux client hangs (a fake
	// that ignores SIGTERM). The session goes on, the host quits within a
	// few deadlines, and the log carries the timeout diagnostic, not
	// tmux's words.
	chat := testenv.Chat(t)
	home := t.TempDir()
	dir := filepath.Join(home, ".chat", "agent")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.json"), []byte(`{"tmux":{"timeout":"200ms"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{
		`{"op":"agent_start"}`,
		`{"op":"prompt_start","id":"p1","kind":"approval"}`,
		`{"op":"prompt_end","id":"p1"}`,
		`{"op":"agent_settled"}`,
		`{"op":"quit"}`,
	}, "\n") + "\n"
	cmd := exec.Command(chat, "--project", home, "--log-level", "warn")
	cmd.Env = []string{"HOME=" + home, "PATH=" + fakeDir(t), fakeModeEnv + "=hang",
		EnvTmux + "=/nonexistent/tmux.sock,4242,0", EnvPane + "=%0"}
	cmd.Stdin = strings.NewReader(script)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	runErr := cmd.Run()
	took := time.Since(start)
	// A workspace failure is a diagnostic, never the chat's failure.
	if runErr != nil {
		t.Errorf("the chat with a hung tmux: %v; want exit 0\n%s", runErr, stderr.String())
	}
	// Each tmux call is killed at 200 ms (plus WaitDelay); the in-flight
	// report and the release are at most a few of them. A hang would keep
	// the chat for the fake's hour.
	if limit := 10 * time.Second; took > limit {
		t.Errorf("the chat took %v to quit with a hung tmux; want a few 200 ms deadlines (limit %v)", took, limit)
	}
	log := stderr.String()
	if !strings.Contains(log, "adapter diagnostic") || !strings.Contains(log, "kind=timeout") || !strings.Contains(log, "killed at the 200ms deadline") {
		t.Errorf("the chat's log has no tmux timeout diagnostic:\n%s", log)
	}
	if strings.Contains(log, "/nonexistent/tmux.sock") {
		t.Errorf("the chat's log echoes the tmux argv (the socket):\n%s", log)
	}
	t.Logf("quit after %v; log:\n%s", took.Round(time.Millisecond), log)
}
