package settingsengine

import (
	"github.com/panestate/panestate/settings"

	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// noFlap fails if any callback showed herdr decided by another layer than
// want: a save must never switch the adapter off and on.
func noFlap(t *testing.T, r *recorder, want Layer) {
	t.Helper()
	for i, s := range r.all() {
		if _, from := s.Enabled("herdr", true); from != want {
			t.Errorf("callback %d: herdr decided by %v, want %v (the save flapped)", i, from, want)
		}
	}
}

// waitCallback waits until the last onChange call satisfies ok.
func waitCallback(t *testing.T, r *recorder, ok func(Settings) bool) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		if got := r.all(); len(got) > 0 && ok(got[len(got)-1]) {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("the last callback never showed the final settings (%d callbacks)", len(r.all()))
		}
	}
}

func TestWatchSaveStyles(t *testing.T) {
	for _, st := range saveStyles {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			if st.prog != "" {
				need(t, st.prog)
			}
			f := newFixture(t)
			// A file that stays empty past the grace counts, as it should;
			// write truncates before it writes, and on a loaded machine the
			// writer can stall between the two for longer than the fixture's
			// short grace. The default grace keeps those stalls from
			// counting; no save here leaves the file empty at its end.
			f.opts.Grace = DefaultGrace
			write(t, f.project, doc(true, "v1"))
			w, r := startWatch(t, f.opts)
			waitHerdr(t, w, true, "v1", LayerProject)

			st.save(t, f.project, doc(false, "v2"))
			waitHerdr(t, w, false, "v2", LayerProject)

			// The watcher still sees a later edit.
			write(t, f.project, doc(true, "v3"))
			waitHerdr(t, w, true, "v3", LayerProject)
			waitCallback(t, r, isHerdr(true, "v3", LayerProject))
			noFlap(t, r, LayerProject)
		})
	}
}

func TestWatchDeleteForGood(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	write(t, f.project, doc(false, "v1"))
	w, _ := startWatch(t, f.opts)
	waitHerdr(t, w, false, "v1", LayerProject)
	if err := os.Remove(f.project); err != nil {
		t.Fatal(err)
	}
	waitFor(t, w, "defaults after grace", func(s Settings) bool {
		_, from := s.Enabled("herdr", true)
		return from == LayerDefault && s.Section("herdr") == nil && s.Files()[1].Condition == ConditionMissing
	})
	if err := w.Current().Files()[1].Err; err != "" {
		t.Errorf("missing file reported an error: %s", err)
	}
	write(t, f.project, doc(false, "v2"))
	waitHerdr(t, w, false, "v2", LayerProject)
}

func TestWatchEmptyFileAfterGrace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	write(t, f.project, doc(false, "v1"))
	w, _ := startWatch(t, f.opts)
	write(t, f.project, "")
	waitFor(t, w, "empty layer", func(s Settings) bool {
		_, from := s.Enabled("herdr", true)
		return from == LayerDefault && s.Files()[1].Condition == ConditionEmpty
	})
	write(t, f.project, doc(true, "v2"))
	waitHerdr(t, w, true, "v2", LayerProject)
}

func TestWatchDirectoryCreatedLater(t *testing.T) {
	t.Parallel()
	t.Run("project one level", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		w, _ := startWatch(t, f.opts)
		write(t, f.project, doc(false, "v1")) // mkdir .app and write in one process
		waitHerdr(t, w, false, "v1", LayerProject)
		write(t, f.project, doc(true, "v2"))
		waitHerdr(t, w, true, "v2", LayerProject)
	})
	t.Run("global two levels", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		w, _ := startWatch(t, f.opts)
		write(t, f.global, doc(false, "g1")) // mkdir -p .app/agent and write
		waitHerdr(t, w, false, "g1", LayerGlobal)
		write(t, f.global, doc(true, "g2"))
		waitHerdr(t, w, true, "g2", LayerGlobal)
	})
}

func TestWatchDirectoryRemovedAndRecreated(t *testing.T) {
	t.Parallel()
	t.Run("after grace", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		write(t, f.project, doc(false, "v1"))
		w, _ := startWatch(t, f.opts)
		if err := os.RemoveAll(filepath.Dir(f.project)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, w, "defaults", func(s Settings) bool { _, from := s.Enabled("herdr", true); return from == LayerDefault })
		write(t, f.project, doc(true, "v2"))
		waitHerdr(t, w, true, "v2", LayerProject)
		write(t, f.project, doc(false, "v3"))
		waitHerdr(t, w, false, "v3", LayerProject)
	})
	t.Run("within one debounce", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		write(t, f.project, doc(false, "v1"))
		w, r := startWatch(t, f.opts)
		if err := os.RemoveAll(filepath.Dir(f.project)); err != nil {
			t.Fatal(err)
		}
		write(t, f.project, doc(true, "v2"))
		waitHerdr(t, w, true, "v2", LayerProject)
		write(t, f.project, doc(false, "v3"))
		waitHerdr(t, w, false, "v3", LayerProject)
		noFlap(t, r, LayerProject)
	})
}

func TestWatchSymlinks(t *testing.T) {
	t.Parallel()
	symlink := func(t *testing.T, target, link string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, link); err != nil {
			t.Skipf("symbolic links unavailable: %v", err)
		}
	}
	t.Run("file", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		target := filepath.Join(f.dir, "dots", "settings.json")
		write(t, target, doc(true, "v1"))
		symlink(t, "../../dots/settings.json", f.project)
		w, _ := startWatch(t, f.opts)
		waitHerdr(t, w, true, "v1", LayerProject)
		write(t, target, doc(false, "v2"))
		waitHerdr(t, w, false, "v2", LayerProject)
		saveStyles[3].save(t, target, doc(true, "v3")) // rename over the target
		waitHerdr(t, w, true, "v3", LayerProject)
	})
	t.Run("directory", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		target := filepath.Join(f.dir, "dots", "app")
		write(t, filepath.Join(target, "settings.json"), doc(true, "v1"))
		symlink(t, target, filepath.Dir(f.project))
		w, _ := startWatch(t, f.opts)
		waitHerdr(t, w, true, "v1", LayerProject)
		write(t, filepath.Join(target, "settings.json"), doc(false, "v2"))
		waitHerdr(t, w, false, "v2", LayerProject)
		write(t, filepath.Join(target, "settings.json"), doc(true, "v3"))
		waitHerdr(t, w, true, "v3", LayerProject)
	})
	t.Run("repoint", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		a, b := filepath.Join(f.dir, "dots", "a.json"), filepath.Join(f.dir, "dots", "b.json")
		write(t, a, doc(true, "a1"))
		write(t, b, doc(false, "b1"))
		symlink(t, a, f.project)
		w, _ := startWatch(t, f.opts)
		waitHerdr(t, w, true, "a1", LayerProject)
		if err := os.Remove(f.project); err != nil {
			t.Fatal(err)
		}
		symlink(t, b, f.project)
		waitHerdr(t, w, false, "b1", LayerProject)
		write(t, b, doc(true, "b2"))
		waitHerdr(t, w, true, "b2", LayerProject)
		write(t, a, doc(false, "a2")) // the old target no longer matters
		write(t, b, doc(false, "b3"))
		waitHerdr(t, w, false, "b3", LayerProject)
	})
	t.Run("kubernetes data swap", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t)
		dir := filepath.Dir(f.project)
		version := func(name, content string) {
			write(t, filepath.Join(dir, name, "settings.json"), content)
			symlink(t, name, filepath.Join(dir, "..data_tmp"))
			if err := os.Rename(filepath.Join(dir, "..data_tmp"), filepath.Join(dir, "..data")); err != nil {
				t.Fatal(err)
			}
		}
		version("..v1", doc(true, "v1"))
		symlink(t, "..data/settings.json", f.project)
		w, r := startWatch(t, f.opts)
		waitHerdr(t, w, true, "v1", LayerProject)
		version("..v2", doc(false, "v2"))
		if err := os.RemoveAll(filepath.Join(dir, "..v1")); err != nil {
			t.Fatal(err)
		}
		waitHerdr(t, w, false, "v2", LayerProject)
		write(t, filepath.Join(dir, "..v2", "settings.json"), doc(true, "v3"))
		waitHerdr(t, w, true, "v3", LayerProject)
		version("..v3", doc(false, "v4"))
		if err := os.RemoveAll(filepath.Join(dir, "..v2")); err != nil {
			t.Fatal(err)
		}
		waitHerdr(t, w, false, "v4", LayerProject)
		noFlap(t, r, LayerProject)
	})
}

func TestWatchKeepLastGoodThenRecover(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var logs logBuffer
	f.opts.Logger = newLogger(&logs)
	write(t, f.project, doc(false, "v1"))
	w, r := startWatch(t, f.opts)
	write(t, f.project, `{"herdr": {"enabled": tru`)
	waitFor(t, w, "error reported after the retry", func(s Settings) bool {
		fs := s.Files()[1]
		return fs.Condition == ConditionError && fs.Stale && strings.Contains(fs.Err, ":1:")
	})
	if !isHerdr(false, "v1", LayerProject)(w.Current()) {
		t.Fatalf("last good settings not kept")
	}
	write(t, f.project, `{"herdr": {"enabled": tru`) // same bad content: not reported again
	write(t, f.global, doc(true, "g"))               // a change to wait for
	waitFor(t, w, "global change", func(s Settings) bool { return s.Files()[0].Condition == ConditionLoaded })
	write(t, f.project, doc(true, "v2"))
	waitHerdr(t, w, true, "v2", LayerProject)
	if fs := w.Current().Files()[1]; fs.Condition != ConditionLoaded || fs.Err != "" || fs.Stale {
		t.Errorf("after recovery: %+v", fs)
	}
	if n := logs.count("settings file not used"); n != 1 {
		t.Errorf("error logged %d times, want 1:\n%s", n, logs.b.String())
	}
	if n := logs.count("settings file recovered"); n != 1 {
		t.Errorf("recovery logged %d times, want 1", n)
	}
	noFlap(t, r, LayerProject)
}

func TestWatchWarnOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var logs logBuffer
	f.opts.Logger = newLogger(&logs)
	bad := `{"herdr":{"enabled":"yes","colour":"red","agent":"a"}}`
	write(t, f.project, bad)
	w, _ := startWatch(t, f.opts)
	if got := len(w.Current().Warnings()); got != 2 {
		t.Fatalf("warnings = %v, want 2", w.Current().Warnings())
	}
	for i := range 3 {
		write(t, f.project, bad)                               // same content again
		write(t, f.global, doc(i%2 == 0, "g"))                 // force a reload we can observe
		waitFor(t, w, "global change", func(s Settings) bool { // the project's "yes" is ignored, so the global decides
			on, from := s.Enabled("herdr", false)
			return from == LayerGlobal && on == (i%2 == 0)
		})
	}
	if n := logs.count("ignored settings value"); n != 2 {
		t.Errorf("warnings logged %d times, want 2 (once per warning):\n%s", n, logs.b.String())
	}
	if got := len(w.Current().Warnings()); got != 2 {
		t.Errorf("current warnings = %v, want 2", w.Current().Warnings())
	}
}

func TestWatchTrustStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.opts.Trust = nil
	f.opts.TrustFile = settings.DefaultTrustFile(f.home, "app")
	write(t, f.opts.TrustFile, `{"`+f.proj+`": "ask"}`)
	write(t, f.project, doc(false, "p"))
	w, _ := startWatch(t, f.opts)
	if fs := w.Current().Files()[1]; fs.Condition != ConditionUntrusted || !strings.Contains(fs.TrustReason, `"ask"`) {
		t.Fatalf("ask: %+v", fs)
	}
	write(t, f.opts.TrustFile, `{"`+filepath.Dir(f.proj)+`": true}`)
	waitHerdr(t, w, false, "p", LayerProject)
	write(t, f.opts.TrustFile, `{"`+filepath.Dir(f.proj)+`": true, "`+f.proj+`": false}`)
	waitFor(t, w, "revoked", func(s Settings) bool { _, from := s.Enabled("herdr", true); return from == LayerDefault })
	if fs := w.Current().Files()[1]; fs.Condition != ConditionUntrusted {
		t.Errorf("revoked: %+v", fs)
	}
}

func TestWatchTrustReresolvedWhenProjectFileAppears(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var trusted atomic.Bool
	f.opts.Trust = func(string) (bool, error) { return trusted.Load(), nil }
	w, _ := startWatch(t, f.opts)
	if fs := w.Current().Files()[1]; fs.Condition != ConditionUntrusted {
		t.Fatalf("start: %+v", fs)
	}
	trusted.Store(true) // the host trusts the project now; no file event yet
	write(t, f.project, doc(false, "late"))
	waitHerdr(t, w, false, "late", LayerProject)
}

func TestWatchPollingFallback(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	denied := filepath.Dir(f.project)
	write(t, f.project, doc(true, "v1"))
	h := hooks{add: func(fw *fsnotify.Watcher, dir string) error {
		if dir == denied {
			return &os.PathError{Op: "inotify_add_watch", Path: dir, Err: syscall.EACCES}
		}
		return fw.Add(dir)
	}}
	w, _ := startWatchHooks(t, f.opts, h)
	if fs := w.Current().Files(); !fs[1].Polling || fs[0].Polling {
		t.Fatalf("polling flags: %+v", fs)
	}
	write(t, f.project, doc(false, "v2"))
	waitHerdr(t, w, false, "v2", LayerProject)
	saveStyles[3].save(t, f.project, doc(true, "v3"))
	waitHerdr(t, w, true, "v3", LayerProject)
}

func TestWatchCloseIdempotentAndNoCallbackAfterClose(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	write(t, f.project, doc(true, "v1"))
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	var closed atomic.Bool
	w, err := Watch(f.opts, func(s Settings) {
		if closed.Load() {
			t.Error("onChange called after Close returned")
		}
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
	})
	if err != nil {
		t.Fatal(err)
	}
	write(t, f.project, doc(false, "v2"))
	<-entered // onChange is running and blocked
	done := make(chan error, 1)
	go func() { done <- w.Close() }()
	select {
	case <-done:
		t.Fatal("Close returned while onChange was running")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	closed.Store(true)
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	write(t, f.project, doc(true, "v3"))
	if !isHerdr(false, "v2", LayerProject)(w.Current()) {
		t.Errorf("Current after Close is not the last value")
	}
}

func TestWatchInvalidOptions(t *testing.T) {
	_, err := Watch(Options{}, nil)
	if !errors.Is(err, ErrOptions) {
		t.Fatalf("err = %v, want ErrOptions", err)
	}
}

func TestWatchMalformedTrustStoreFailsClosed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var logs logBuffer
	f.opts.Logger = newLogger(&logs)
	f.opts.Trust = nil
	f.opts.TrustFile = settings.DefaultTrustFile(f.home, "app")
	trusted := `{"` + f.proj + `": true}`
	write(t, f.opts.TrustFile, trusted)
	write(t, f.project, doc(false, "p"))
	w, _ := startWatch(t, f.opts)
	if !isHerdr(false, "p", LayerProject)(w.Current()) {
		t.Fatalf("start: the trusted project layer is not applied: %+v", w.Current().Files())
	}
	// A half-written revocation: the store is malformed.
	write(t, f.opts.TrustFile, `{"`+f.proj+`": false,`)
	waitFor(t, w, "the project untrusted", func(s Settings) bool {
		_, from := s.Enabled("herdr", true)
		return from == LayerDefault && s.Files()[1].Condition == ConditionUntrusted
	})
	s := w.Current()
	proj, store := s.Files()[1], s.Files()[2]
	if proj.Condition != ConditionUntrusted || !strings.Contains(proj.TrustReason, "cannot be read") || !strings.Contains(proj.TrustReason, "unexpected end") || proj.Err == "" {
		t.Errorf("project status %+v", proj)
	}
	if !store.TrustStore || store.Condition != ConditionError || store.Stale || !strings.Contains(store.Err, "unexpected end") {
		t.Errorf("trust store status %+v", store)
	}
	// TrustStore.Trust agrees with the watcher.
	if ok, err := (TrustStore{Path: f.opts.TrustFile}).Trust(f.proj); ok || err == nil {
		t.Errorf("TrustStore.Trust = %v, %v; want untrusted with an error", ok, err)
	}
	// The same good content as before is read again, not remembered.
	write(t, f.opts.TrustFile, trusted)
	waitHerdr(t, w, false, "p", LayerProject)
	if ts := w.Current().Files()[2]; ts.Condition != ConditionLoaded || ts.Err != "" {
		t.Errorf("trust store after repair: %+v", ts)
	}
	if n := logs.count("trust store not used; the project is untrusted"); n != 1 {
		t.Errorf("error logged %d times, want 1:\n%s", n, logs.b.String())
	}
	if n := logs.count("trust store recovered"); n != 1 {
		t.Errorf("recovery logged %d times, want 1", n)
	}
}

func TestWatchBadFileThenGoneLog(t *testing.T) {
	tests := []struct {
		name, log string
		state     FileCondition
		remove    func(t *testing.T, path string)
	}{
		{name: "removed", log: "settings file removed; its layer is empty", state: ConditionMissing, remove: func(t *testing.T, path string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		}},
		{name: "emptied", log: "settings file emptied; its layer is empty", state: ConditionEmpty, remove: func(t *testing.T, path string) { write(t, path, "") }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var logs logBuffer
			f.opts.Logger = newLogger(&logs)
			write(t, f.project, `{"herdr":`)
			w, _ := startWatch(t, f.opts)
			if fs := w.Current().Files()[1]; fs.Condition != ConditionError {
				t.Fatalf("start: %+v", fs)
			}
			tc.remove(t, f.project)
			waitFor(t, w, string(tc.state), func(s Settings) bool { return s.Files()[1].Condition == tc.state })
			if n := logs.count(tc.log); n != 1 {
				t.Errorf("%q logged %d times, want 1:\n%s", tc.log, n, logs.b.String())
			}
			if n := logs.count("recovered"); n != 0 {
				t.Errorf("a file that went away was logged as recovered:\n%s", logs.b.String())
			}
		})
	}
}

func TestWatchAncestorRenamed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ws := filepath.Join(f.dir, "ws")
	f.proj = filepath.Join(ws, "proj")
	f.project = filepath.Join(f.proj, ".app", "settings.json")
	f.opts.ProjectRoot = f.proj
	write(t, f.project, doc(false, "v1"))
	w, _ := startWatch(t, f.opts)
	waitHerdr(t, w, false, "v1", LayerProject)

	// Move the whole workspace away and create it again: the watch on the
	// old .app directory moved with it.
	if err := os.Rename(ws, filepath.Join(f.dir, "ws.old")); err != nil {
		t.Fatal(err)
	}
	write(t, f.project, doc(true, "v2"))
	waitHerdr(t, w, true, "v2", LayerProject)
	// Edits of the new file keep arriving.
	write(t, f.project, doc(false, "v3"))
	waitHerdr(t, w, false, "v3", LayerProject)
	saveStyles[3].save(t, f.project, doc(true, "v4")) // rename into place
	waitHerdr(t, w, true, "v4", LayerProject)
	// The old tree no longer matters.
	write(t, filepath.Join(f.dir, "ws.old", "proj", ".app", "settings.json"), doc(false, "old"))
	write(t, f.global, doc(false, "g")) // a change to wait for
	waitFor(t, w, "global change", func(s Settings) bool { return s.Files()[0].Condition == ConditionLoaded })
	if !isHerdr(true, "v4", LayerProject)(w.Current()) {
		t.Errorf("the moved-away file was read: %s", w.Current().Section("herdr"))
	}
}
