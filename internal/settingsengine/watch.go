package settingsengine

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Watcher keeps the effective settings current while the files change. It
// owns one fsnotify watcher and two goroutines (the event loop and the
// callback runner), both stopped and waited for by [Watcher.Close]. During a
// reload a third one calls [Options.Trust]; the reload waits for it, for at
// most [TrustTimeout], and Close never does (see Options.Trust for one that
// hangs).
type Watcher struct {
	c        *config
	onChange func(Settings)
	cur      atomic.Pointer[Settings]

	stop      chan struct{}
	closeOnce sync.Once
	closeErr  error
	wg        sync.WaitGroup

	mu      sync.Mutex // guards pending
	pending *Settings
	kick    chan struct{} // size 1: a pending value is waiting

	// published (size 1) is signalled after every reload's result is
	// stored in cur, changed or not. Nothing in the package receives from
	// it; tests wait on it instead of polling Current.
	published chan struct{}

	// Owned by the event loop after Watch returns.
	l        *loader
	fsw      *fsnotify.Watcher // nil when fsnotify is unavailable
	add      func(dir string) error
	relevant []string
	badDirs  map[string]string      // dir -> error already logged
	watched  map[string]os.FileInfo // dir -> the directory the watch was added on
}

// hooks lets tests replace system calls.
type hooks struct {
	add          func(w *fsnotify.Watcher, dir string) error
	read         func(path string) readResult // replaces readFile
	trustTimeout time.Duration                // replaces TrustTimeout
}

// Watch loads the settings once, synchronously (so [Watcher.Current] is
// valid on return and onChange is not called for this initial state), then
// watches every layer file and the trust store.
//
// onChange, if not nil, runs on one goroutine, one call at a time, with the
// newest settings whenever the effective values change ([Settings.Equal]);
// intermediate values may be skipped. It must not call [Watcher.Close].
//
// The first load calls [Options.Trust] like every reload, so a trust
// function that hangs delays Watch by up to [TrustTimeout].
//
// Watch returns an error only for invalid options (wrapping [ErrOptions]);
// problems with the files are in [Settings.Files] and the logger. If the
// operating system refuses a watch, the affected files are polled every
// PollInterval instead. A watch the operating system accepts but that never
// reports anything (some network and FUSE file systems) is not detected.
func Watch(opts Options, onChange func(Settings)) (*Watcher, error) {
	return watch(opts, onChange, hooks{})
}

func watch(opts Options, onChange func(Settings), h hooks) (*Watcher, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if h.trustTimeout > 0 {
		c.trustTimeout = h.trustTimeout
	}
	w := &Watcher{
		c:         c,
		onChange:  onChange,
		stop:      make(chan struct{}),
		kick:      make(chan struct{}, 1),
		published: make(chan struct{}, 1),
		l:         newLoader(c),
		badDirs:   map[string]string{},
		watched:   map[string]os.FileInfo{},
	}
	if h.read != nil {
		w.l.read = h.read
	}
	if w.l.trust != nil {
		w.l.trust.stop = w.stop
	}
	w.fsw, err = fsnotify.NewWatcher()
	if err != nil {
		c.log.Warn("cannot watch settings files; polling them", "error", err, "interval", c.poll)
		w.fsw = nil
	} else {
		w.add = w.fsw.Add
		if h.add != nil {
			w.add = func(dir string) error { return h.add(w.fsw, dir) }
		}
	}
	// Watch before the first read, so nothing written after the read is
	// missed.
	w.rearm()
	wake := w.l.reload(time.Now())
	s := w.l.settings
	w.cur.Store(&s)
	w.wg.Add(2)
	go w.loop(wake)
	go w.deliver()
	return w, nil
}

// Current returns the effective settings now. It is safe for concurrent use
// and keeps working (returning the last value) after Close.
func (w *Watcher) Current() Settings { return *w.cur.Load() }

// Close stops watching and waits for the event loop and for a running
// onChange call to return; no onChange call starts after Close returns. It is
// idempotent and safe for concurrent use; every call returns the same
// result. It must not be called from onChange.
//
// Close never waits for the host's trust function: a call of
// [Options.Trust] that has not returned is left running (see
// [Options.Trust]), and its answer is dropped.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		close(w.stop)
		w.wg.Wait()
		if w.fsw != nil {
			if err := w.fsw.Close(); err != nil {
				w.closeErr = fmt.Errorf("settings: close watcher: %w", err)
			}
		}
	})
	return w.closeErr
}

// deliver runs onChange serially with the newest pending settings.
func (w *Watcher) deliver() {
	defer w.wg.Done()
	for {
		select {
		case <-w.stop:
			return
		case <-w.kick:
		}
		w.mu.Lock()
		s := w.pending
		w.pending = nil
		w.mu.Unlock()
		if s == nil || w.onChange == nil {
			continue
		}
		select {
		case <-w.stop:
			return
		default:
		}
		w.onChange(*s)
	}
}

func (w *Watcher) publish(s Settings) {
	old := w.cur.Swap(&s)
	select {
	case w.published <- struct{}{}:
	default:
	}
	if old.Equal(s) {
		return
	}
	w.mu.Lock()
	w.pending = &s
	w.mu.Unlock()
	select {
	case w.kick <- struct{}{}:
	default:
	}
}

// loop is the event loop: it debounces file events, reloads, and runs the
// grace/retry wake-ups and the polling.
func (w *Watcher) loop(wake time.Time) {
	defer w.wg.Done()
	debounce := time.NewTimer(time.Hour)
	debounce.Stop()
	defer debounce.Stop()
	wakeT := time.NewTimer(time.Hour)
	wakeT.Stop()
	defer wakeT.Stop()
	setWake := func(t time.Time) {
		if t.IsZero() {
			wakeT.Stop()
			return
		}
		wakeT.Reset(max(time.Until(t), time.Millisecond))
	}
	setWake(wake)
	// One ticker, every PollInterval, checks the polled files and whether
	// a watched directory was moved or replaced (see dirsMoved).
	ticker := time.NewTicker(w.c.poll)
	defer ticker.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w.fsw != nil {
		events, errs = w.fsw.Events, w.fsw.Errors
	}
	cycle := func() {
		w.rearm()
		setWake(w.l.reload(time.Now()))
		select {
		case <-w.stop: // Close came during the reload: keep the last value
			return
		default:
		}
		w.publish(w.l.settings)
	}
	for {
		// The answer of a trust call that had hung, once it returns.
		var trustLate <-chan trustAnswer
		if w.l.trust != nil {
			trustLate = w.l.trust.hung
		}
		select {
		case <-w.stop:
			return
		case a := <-trustLate:
			w.l.trust.returned(a)
			cycle()
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			// Every event counts, a Chmod too: a file made readable
			// again (chmod 644 after chmod 000) sends only that.
			if !w.isRelevant(ev.Name) {
				continue
			}
			debounce.Reset(w.c.debounce)
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			// An overflow or a backend error: events may be lost, so
			// reload everything.
			w.c.log.Warn("file watcher error; reloading settings", "error", err)
			debounce.Reset(w.c.debounce)
		case <-debounce.C:
			cycle()
		case <-wakeT.C:
			cycle()
		case <-ticker.C:
			if w.pollChanged() || w.dirsMoved() {
				debounce.Reset(w.c.debounce)
			}
		}
	}
}

// isRelevant reports whether an event about name can change a watched file:
// the file itself, a symbolic link on its way, its resolved target, or a
// directory above one of them.
func (w *Watcher) isRelevant(name string) bool {
	name = filepath.Clean(name)
	if filepath.Dir(name) == name {
		return true
	}
	prefix := name + string(filepath.Separator)
	for _, p := range w.relevant {
		if p == name || strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// rearm reconciles the watched directories with the wanted ones: for each
// file, the nearest existing directory above every hop of its symbolic link
// chain. It repeats after adding a watch, because a directory may have
// appeared between computing the wanted set and adding the watch.
//
// A watch follows the directory it was added on, not its name: after an
// ancestor is renamed (mv ws ws.old) and the path is created again, the
// watch list still shows the name but the watch sees the moved directory.
// So rearm also re-adds a watch whose name now leads to another directory
// (os.SameFile against the identity recorded when it was added).
func (w *Watcher) rearm() {
	files := w.l.trackedFiles()
	for range 8 {
		wanted := map[string][]*trackedFile{}
		var relevant []string
		for _, s := range files {
			for _, q := range symlinkChain(s.path) {
				relevant = append(relevant, q)
				d := nearestExisting(filepath.Dir(q))
				wanted[d] = append(wanted[d], s)
			}
		}
		w.relevant = relevant
		if w.fsw == nil {
			for _, s := range files {
				s.polling = true
			}
			return
		}
		have := map[string]bool{}
		list := w.fsw.WatchList()
		// fsnotify drops a watch by itself when its directory is
		// deleted or moved; forget those identities too.
		for d := range w.watched {
			if !slices.Contains(list, d) {
				delete(w.watched, d)
			}
		}
		for _, d := range list {
			if _, ok := wanted[d]; !ok {
				_ = w.fsw.Remove(d) // already gone when the directory was deleted
				delete(w.watched, d)
				continue
			}
			if w.moved(d) {
				_ = w.fsw.Remove(d)
				delete(w.watched, d)
				continue
			}
			have[d] = true
		}
		for _, s := range files {
			s.polling = false
		}
		added := false
		for d, ss := range wanted {
			if have[d] {
				continue
			}
			// The identity is taken before the watch is added: if the
			// directory is replaced in between, the next check sees a
			// mismatch and adds the watch again.
			fi, statErr := os.Stat(d)
			err := statErr
			if err == nil {
				err = w.add(d)
			}
			if err != nil {
				for _, s := range ss {
					s.polling = true
				}
				if w.badDirs[d] != err.Error() {
					w.c.log.Warn("cannot watch directory; polling", "dir", d, "error", err, "interval", w.c.poll)
					w.badDirs[d] = err.Error()
				}
				continue
			}
			delete(w.badDirs, d)
			// On Windows SameFile reads the file index lazily, by path;
			// read it now, while the path names this directory.
			_ = os.SameFile(fi, fi)
			w.watched[d] = fi
			added = true
		}
		if !added {
			return
		}
	}
}

// moved reports whether the watched directory d is gone or now names
// another directory than the one its watch was added on.
func (w *Watcher) moved(d string) bool {
	old, ok := w.watched[d]
	if !ok {
		return true
	}
	fi, err := os.Stat(d)
	return err != nil || !os.SameFile(old, fi)
}

// dirsMoved reports whether any watched directory was moved or replaced
// since its watch was added. It is a handful of stat calls, run every
// PollInterval: no event reports the rename of an unwatched ancestor.
func (w *Watcher) dirsMoved() bool {
	for d := range w.watched {
		if w.moved(d) {
			return true
		}
	}
	return false
}

// pollChanged reports whether a polled file looks different since the last
// poll.
func (w *Watcher) pollChanged() bool {
	changed := false
	for _, s := range w.l.trackedFiles() {
		if !s.polling {
			continue
		}
		var b strings.Builder
		for _, q := range symlinkChain(s.path) {
			fi, err := os.Lstat(q)
			if err != nil {
				fmt.Fprintf(&b, "%s:-;", q)
				continue
			}
			fmt.Fprintf(&b, "%s:%v:%d:%d;", q, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		}
		if sig := b.String(); sig != s.pollSig {
			s.pollSig = sig
			changed = true
		}
	}
	return changed
}

// nearestExisting returns d or its nearest existing ancestor directory.
func nearestExisting(d string) string {
	for {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return d
		}
		d = parent
	}
}

// symlinkChain lists the paths an event about p can arrive under: each
// symbolic link met while resolving p (a link to the file, a linked
// directory, a Kubernetes "..data" link) and the final path. Every listed
// path's directory is free of symbolic links, so watching those directories
// sees every change of the resolved file.
func symlinkChain(p string) []string {
	var out []string
	for range 40 {
		link, target, rest, ok := firstSymlink(p)
		if !ok {
			break
		}
		out = append(out, link)
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(link), target)
		}
		p = filepath.Join(target, rest)
	}
	return append(out, filepath.Clean(p))
}

// firstSymlink finds the first component of p, from the root, that is a
// symbolic link.
func firstSymlink(p string) (link, target, rest string, ok bool) {
	i := len(filepath.VolumeName(p))
	for i < len(p) && os.IsPathSeparator(p[i]) {
		i++
	}
	for i < len(p) {
		j := i
		for j < len(p) && !os.IsPathSeparator(p[j]) {
			j++
		}
		prefix := p[:j]
		fi, err := os.Lstat(prefix)
		if err != nil {
			return "", "", "", false
		}
		if fi.Mode()&os.ModeSymlink != 0 {
			t, err := os.Readlink(prefix)
			if err != nil {
				return "", "", "", false
			}
			if j < len(p) {
				rest = p[j+1:]
			}
			return prefix, t, rest, true
		}
		i = j + 1
	}
	return "", "", "", false
}
