package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/panestate/panestate/internal/hook"
)

// selfCommand is how the agents' hooks run this program: "panestate" when
// that name on PATH is this program, its absolute path otherwise.
var selfCommand = func(env []string) string {
	exe, err := os.Executable()
	if err != nil {
		return appName
	}
	for _, dir := range filepath.SplitList(lookup(env, "PATH")) {
		if dir == "" {
			continue
		}
		if fi, err := os.Stat(filepath.Join(dir, appName)); err == nil {
			if self, err := os.Stat(exe); err == nil && os.SameFile(fi, self) {
				return appName
			}
			break
		}
	}
	return exe
}

// notes are what a person must know beyond the hooks.
var notes = map[hook.Agent]string{
	hook.Codex: "codex runs the sessions of its TUI in a background daemon (feature daemon_auto_start, on by default), " +
		"whose hooks carry the environment of the pane that started it: panestate shows them in the pane whose Codex TUI " +
		"started the daemon, while that TUI runs; with Codex in several panes, set `daemon_auto_start = false` under " +
		"[features] in config.toml so that each TUI runs its own session and its own pane shows it",
	// Gemini CLI 0.61.0 loads no hook, those of ~/.gemini/settings.json
	// included, in a folder it does not trust.
	hook.Gemini: "gemini runs these hooks only in folders you trust (its \"Do you trust the files in this folder?\" dialog, or ~/.gemini/trustedFolders.json) and with hooksConfig.enabled not false",
}

// codexUntrusted is what --print-config says of Codex's hook trust.
const codexUntrusted = "codex runs these hooks only once trusted: `panestate install codex` records the trust in config.toml; " +
	"pasted by hand, trust them in the TUI (\"Hooks need review\", then \"Trust all\") or run codex exec with --dangerously-bypass-hook-trust"

// staticInstall is the install command of docs/agents.md, which builds a
// static binary (from a clone: the module is not published yet).
const staticInstall = "CGO_ENABLED=0 go install ./cmd/panestate (in a clone of panestate)"

// linkingNote is what the commands a person runs (install,
// --print-config, doctor) say when this binary is dynamically linked:
// each hook then starts slower (BenchmarkHook, listening/cgo), by more
// than the hook's own work. Nothing in the module can make a plain `go
// install` static (package net links libc whenever cgo is on), so the
// person is told the command that does. It is "" for a static binary.
func linkingNote() string {
	if !dynamicallyLinked() {
		return ""
	}
	return "this panestate is dynamically linked (built with cgo), which adds 1-3 ms to every hook's start; a static one: " + staticInstall
}

// printConfig is `panestate hook --print-config <agent>`: the hooks to
// paste, on stdout; a note, if any, on stderr.
func printConfig(name string, stdout, stderr io.Writer, env []string) int {
	agent, err := hook.ParseAgent(name)
	if err != nil {
		fmt.Fprintf(stderr, "panestate: %v\n", err)
		return 2
	}
	b, err := hook.Config(agent, selfCommand(env))
	if err != nil {
		fmt.Fprintf(stderr, "panestate: %v\n", err)
		return 1
	}
	fmt.Fprintf(stderr, "panestate: add this to ~/%s\n", hook.SettingsFile(agent))
	if agent == hook.Codex {
		fmt.Fprintf(stderr, "panestate: %s\n", codexUntrusted)
	}
	if n := notes[agent]; n != "" {
		fmt.Fprintf(stderr, "panestate: %s\n", n)
	}
	if n := linkingNote(); n != "" {
		fmt.Fprintf(stderr, "panestate: %s\n", n)
	}
	_, _ = stdout.Write(b)
	return 0
}

// runInstall is `panestate install <agent>`: it adds the hooks to the
// agent's settings file, keeping everything else, with a backup of the
// file as it was.
func runInstall(args []string, stdout, stderr io.Writer, env []string) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, "panestate: install takes one agent: claude-code, codex or gemini\n")
		return 2
	}
	agent, err := hook.ParseAgent(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "panestate: %v\n", err)
		return 2
	}
	home := lookup(env, "HOME")
	if runtime.GOOS == "windows" {
		home = lookup(env, "USERPROFILE")
	}
	if !filepath.IsAbs(home) {
		fmt.Fprint(stderr, "panestate: install: no home directory (HOME)\n")
		return 1
	}
	path := filepath.Join(home, filepath.FromSlash(hook.SettingsFile(agent)))
	if agent == hook.Codex {
		dir, err := codexHome(env, home)
		if err != nil {
			fmt.Fprintf(stderr, "panestate: install: %v\n", err)
			return 1
		}
		path = filepath.Join(dir, "hooks.json")
	}
	now := time.Now()
	msg, err := install(agent, path, selfCommand(env), now)
	if err != nil {
		fmt.Fprintf(stderr, "panestate: install: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "%s\n", msg)
	if agent == hook.Codex {
		msg, err := trustCodexHooks(path, now)
		if err != nil {
			fmt.Fprintf(stderr, "panestate: install: %v\n", err)
			fmt.Fprintf(stdout, "note: %s\n", codexUntrusted)
			return 1
		}
		fmt.Fprintf(stdout, "%s\n", msg)
	}
	if n := notes[agent]; n != "" {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	if n := linkingNote(); n != "" {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	return 0
}

// install adds the hooks to the settings file at path and says what it
// did. The file (the one a link points to, when path is a link) is replaced
// atomically, with its mode; the old content is kept in
// path.panestate-<time>.bak.
func install(agent hook.Agent, path, command string, now time.Time) (string, error) {
	// A settings file that is a link (dotfiles kept in a repository) stays
	// one: the file it points to is the one changed (or made), its backup
	// beside it.
	path, old, mode, err := readSettings(path)
	if err != nil {
		return "", err
	}
	content, changed, err := hook.Install(agent, command, old)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if !changed {
		return fmt.Sprintf("%s already runs panestate's hooks: nothing changed", path), nil
	}
	backup, err := replaceFile(path, old, content, mode, now)
	if err != nil {
		return "", err
	}
	if backup == "" {
		return fmt.Sprintf("%s: created with panestate's hooks", path), nil
	}
	return fmt.Sprintf("%s: panestate's hooks added (the file as it was: %s)", path, backup), nil
}

// readSettings reads the file at path (the one a link points to), for a
// change: the file's path, its content (nil when it does not exist yet)
// and its mode (0600 for a new file).
func readSettings(path string) (string, []byte, fs.FileMode, error) {
	path, err := linkTarget(path)
	if err != nil {
		return "", nil, 0, err
	}
	old, mode, err := readRegular(path)
	if err != nil {
		return "", nil, 0, err
	}
	return path, old, mode, nil
}

// replaceFile replaces the file at path, whose content was old (nil: no
// file), with content, atomically and with mode, and keeps old in
// path.panestate-<time>.bak, whose path it returns ("" when there was no
// file).
func replaceFile(path string, old, content []byte, mode fs.FileMode, now time.Time) (string, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return "", err
	}
	backup := ""
	if old != nil {
		backup = path + ".panestate-" + now.UTC().Format("20060102T150405Z") + ".bak"
		if err := os.WriteFile(backup, old, mode); err != nil {
			return "", err
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(content); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return "", err
	}
	if err := tmp.Close(); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", err
	}
	return backup, nil
}

// codexHome is the directory Codex keeps its settings in, spelled as
// Codex 0.169.0 spells it in its hook trust keys: $CODEX_HOME with its
// links resolved (Codex requires it to exist), or ~/.codex as it is.
func codexHome(env []string, home string) (string, error) {
	if dir := lookup(env, "CODEX_HOME"); dir != "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return "", err
		}
		resolved, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return "", fmt.Errorf("CODEX_HOME: %w", err)
		}
		return resolved, nil
	}
	return filepath.Join(home, ".codex"), nil
}

// trustCodexHooks records, in the config.toml beside the hooks.json at
// hooksPath, Codex's trust of each panestate hook in that file, as Codex
// 0.169.0 records it when the person trusts them in its TUI, so that Codex
// runs them without asking; and says what it did.
func trustCodexHooks(hooksPath string, now time.Time) (string, error) {
	hooks, err := os.ReadFile(hooksPath)
	if err != nil {
		return "", err
	}
	trusts, skipped, err := hook.CodexTrusts(hooksPath, hooks)
	if err != nil {
		return "", fmt.Errorf("%s: %w", hooksPath, err)
	}
	path, old, mode, err := readSettings(filepath.Join(filepath.Dir(hooksPath), "config.toml"))
	if err != nil {
		return "", err
	}
	content, changed, err := hook.RecordCodexTrust(old, trusts)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	var msg string
	switch {
	case !changed:
		msg = fmt.Sprintf("%s already trusts panestate's %d hooks: nothing changed", path, len(trusts))
	default:
		backup, err := replaceFile(path, old, content, mode, now)
		if err != nil {
			return "", err
		}
		msg = fmt.Sprintf("%s: panestate's %d hooks trusted, as Codex records it", path, len(trusts))
		if backup != "" {
			msg += " (the file as it was: " + backup + ")"
		}
	}
	if skipped > 0 {
		msg += fmt.Sprintf("; %d panestate hooks changed by hand are not: trust them in Codex's TUI (\"Hooks need review\")", skipped)
	}
	return msg, nil
}

// maxSettings bounds the settings file install reads: the agents'
// settings files are a few kilobytes; what is larger is refused rather
// than read, held in memory and backed up.
const maxSettings = 4 << 20

// readRegular reads the settings file at path (nil when there is none)
// and returns its mode. What is there and is not a regular file (a FIFO,
// which would hold the open, a device such as /dev/zero, which never
// ends) is refused before it is opened, and a file over maxSettings
// before it is read.
func readRegular(path string) ([]byte, fs.FileMode, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o600, nil
	case err != nil:
		return nil, 0, err
	case !fi.Mode().IsRegular():
		return nil, 0, fmt.Errorf("%s: not a regular file (%s): refused", path, fi.Mode().Type())
	case fi.Size() > maxSettings:
		return nil, 0, fmt.Errorf("%s: larger than %d MiB (%d bytes): refused, settings files are a few kilobytes", path, maxSettings>>20, fi.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	// Read what was checked: a file swapped in since is refused.
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		return nil, 0, fmt.Errorf("%s: changed while install read it: try again", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxSettings+1))
	if err != nil {
		return nil, 0, err
	}
	if len(b) > maxSettings {
		return nil, 0, fmt.Errorf("%s: larger than %d MiB: refused, settings files are a few kilobytes", path, maxSettings>>20)
	}
	return b, fi.Mode().Perm(), nil
}

// maxLinks bounds the links linkTarget follows.
const maxLinks = 40

// linkTarget returns the file that path names once every link on the way
// is followed, also when that file does not exist yet (a link made before
// its target): path itself when it is no link.
func linkTarget(path string) (string, error) {
	for range maxLinks {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			// Relative to the link's directory, as the system reads it.
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", err
			}
			target = filepath.Join(dir, target)
		}
		path = target
	}
	return "", fmt.Errorf("%s: more than %d links", path, maxLinks)
}
