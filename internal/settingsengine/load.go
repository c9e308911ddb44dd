package settingsengine

import (
	"errors"
	"sync"
	"time"
)

// trackedFile tracks one file across reloads: the last good content and the
// pending decisions (grace for a missing or empty file, retry for a bad one).
type trackedFile struct {
	path  string
	layer Layer
	store bool // the trust store, not a settings layer

	good  *layerContent // content in effect; nil = empty layer
	cond  FileCondition
	err   error
	stale bool
	fresh bool // accept what is read now without grace or retry

	retryWait time.Duration // the last pause before re-reading a file in error
	retryAt   time.Time     // when a file in error is read again; zero when not in error

	absentSince time.Time // first seen missing or empty while good != nil

	pendingErr [32]byte // a bad content waiting for its retry
	pendingAt  time.Time
	hasPending bool

	reportedErr [32]byte // the bad content already reported
	hasReported bool

	polling bool
	pollSig string
}

// loader holds the tracked files and computes Settings. It is used by one goroutine
// at a time: Load's caller, or a Watcher's event loop.
type loader struct {
	c        *config
	read     func(path string) readResult // readFile; tests replace it
	trust    *trustCaller                 // nil without Options.Trust
	global   *trackedFile
	project  *trackedFile // nil without a project root
	store    *trackedFile // nil unless the trust store decides
	decision trustDecision
	logged   *trustDecision
	settings Settings
}

func newLoader(c *config) *loader {
	l := &loader{c: c, read: readFile, global: &trackedFile{path: c.globalPath, layer: LayerGlobal, fresh: true}}
	if c.trust != nil {
		l.trust = &trustCaller{fn: c.trust, timeout: c.trustTimeout}
	}
	if c.projectRoot != "" {
		l.project = &trackedFile{path: c.projectPath, layer: LayerProject, fresh: true}
		if c.trust == nil && c.trustFile != "" {
			l.store = &trackedFile{path: c.trustFile, store: true, fresh: true}
		}
	}
	return l
}

// trackedFiles returns the tracked files whose files are read or watched.
func (l *loader) trackedFiles() []*trackedFile {
	out := []*trackedFile{l.global}
	if l.project != nil {
		out = append(out, l.project)
	}
	if l.store != nil {
		out = append(out, l.store)
	}
	return out
}

// reload re-reads every file and rebuilds the settings. It returns the time
// at which a pending grace or retry needs another reload, or the zero time.
func (l *loader) reload(now time.Time) time.Time {
	var wake time.Time
	at := func(t time.Time) {
		if !t.IsZero() && (wake.IsZero() || t.Before(wake)) {
			wake = t
		}
	}
	at(l.update(l.global, now))
	if l.project != nil {
		var store map[string]any
		var storeErr error
		if l.store != nil {
			at(l.update(l.store, now))
			// A bad store fails closed: fail drops its content, so an
			// error here is never paired with an older good store.
			if l.store.err != nil {
				storeErr = l.store.err
			} else if l.store.good != nil {
				store = l.store.good.raw
			}
		}
		d := resolveTrust(l.c, func() trustAnswer { return l.trust.ask(l.c.projectRoot) }, store, storeErr)
		if l.logged == nil || *l.logged != d {
			switch {
			case d.err != "":
				l.c.log.Warn("project settings ignored", "file", l.project.path, "reason", d.reason, "error", d.err)
			case !d.trusted:
				l.c.log.Info("project settings ignored", "file", l.project.path, "reason", d.reason)
			default:
				l.c.log.Debug("project settings trusted", "file", l.project.path, "reason", d.reason)
			}
			l.logged = &d
		}
		if d.trusted {
			if !l.decision.trusted {
				l.project.fresh = true
			}
			at(l.update(l.project, now))
		} else {
			*l.project = trackedFile{path: l.project.path, layer: LayerProject, cond: ConditionUntrusted, fresh: true, polling: l.project.polling, pollSig: l.project.pollSig}
		}
		l.decision = d
	}
	var project *layerContent
	if l.project != nil && l.decision.trusted {
		project = l.project.good
	}
	l.settings = build(l.c, l.global.good, project, l.files())
	return wake
}

func (l *loader) files() []FileStatus {
	var out []FileStatus
	for _, s := range []*trackedFile{l.global, l.project, l.store} {
		if s == nil {
			continue
		}
		fs := FileStatus{Layer: s.layer, Path: s.path, Condition: s.cond, Stale: s.stale, Polling: s.polling, TrustStore: s.store}
		if s.err != nil {
			fs.Err = s.err.Error()
		}
		if s.layer == LayerProject {
			fs.TrustReason = l.decision.reason
			if l.decision.err != "" {
				fs.Err = l.decision.err
			}
		}
		out = append(out, fs)
	}
	return out
}

// err joins the errors of the files in error.
func (l *loader) err() error {
	var errs []error
	for _, s := range l.trackedFiles() {
		if s.err != nil {
			errs = append(errs, s.err)
		}
	}
	return errors.Join(errs...)
}

// update reads s once and applies the grace and retry rules.
func (l *loader) update(s *trackedFile, now time.Time) (wake time.Time) {
	fresh := s.fresh
	s.fresh = false
	r := l.read(s.path)
	switch r.kind {
	case readMissing, readEmpty:
		s.hasPending = false
		s.retryWait, s.retryAt = 0, time.Time{}
		if !fresh && s.good != nil {
			if s.absentSince.IsZero() {
				s.absentSince = now
			}
			if due := s.absentSince.Add(l.c.grace); now.Before(due) {
				return due
			}
		}
		if s.err != nil {
			switch {
			case s.store:
				l.c.log.Info("trust store removed or emptied; no project is trusted by it", "file", s.path)
			case r.kind == readEmpty:
				l.c.log.Info("settings file emptied; its layer is empty", "file", s.path)
			default:
				l.c.log.Info("settings file removed; its layer is empty", "file", s.path)
			}
		}
		s.hasReported = false
		s.good, s.err, s.stale, s.absentSince = nil, nil, false, time.Time{}
		s.cond = ConditionMissing
		if r.kind == readEmpty {
			s.cond = ConditionEmpty
		}
		return time.Time{}
	case readFailed:
		s.absentSince = time.Time{}
		return l.fail(s, r.hash, r.err, fresh, now)
	}
	s.absentSince = time.Time{}
	if s.good != nil && s.good.hash == r.hash && s.cond == ConditionLoaded {
		s.hasPending = false
		return time.Time{}
	}
	m, err := parse(s.path, r.data)
	if err != nil {
		return l.fail(s, r.hash, err, fresh, now)
	}
	s.retryWait, s.retryAt = 0, time.Time{}
	var lc *layerContent
	if s.store {
		lc = &layerContent{raw: m}
	} else {
		lc = extract(l.c, s.path, m)
		for _, w := range lc.warnings {
			l.c.log.Warn("ignored settings value", "file", w.File, "key", w.Key, "problem", w.Message)
		}
	}
	lc.hash = r.hash
	l.recovered(s)
	s.good, s.err, s.stale, s.hasPending = lc, nil, false, false
	s.cond = ConditionLoaded
	return time.Time{}
}

func (l *loader) recovered(s *trackedFile) {
	if s.err != nil {
		if s.store {
			l.c.log.Info("trust store recovered", "file", s.path)
		} else {
			l.c.log.Info("settings file recovered", "file", s.path)
		}
	}
	s.hasReported = false
}

// fail handles a bad read. The error counts only if it is still there after
// RetryAfter (a slow writer leaves a partial file for a moment); until then
// nothing changes. Then it is reported once per content. A settings file
// keeps its last good content; the trust store does not (a bad store means
// untrusted, as [TrustStore.Trust] says). A file in error is read again on
// a capped backoff (see retry) until it reads, whether or not an event says
// it changed.
func (l *loader) fail(s *trackedFile, hash [32]byte, err error, fresh bool, now time.Time) time.Time {
	already := s.hasReported && s.reportedErr == hash
	due := s.hasPending && s.pendingErr == hash && !now.Before(s.pendingAt)
	if !fresh && !already && !due {
		if !s.hasPending || s.pendingErr != hash {
			s.pendingErr, s.pendingAt, s.hasPending = hash, now.Add(l.c.retry), true
		}
		return s.pendingAt
	}
	s.hasPending = false
	if s.store {
		s.good = nil
	}
	if !already {
		if s.store {
			l.c.log.Error("trust store not used; the project is untrusted", "file", s.path, "error", err)
		} else {
			l.c.log.Error("settings file not used", "file", s.path, "error", err, "kept_last_good", s.good != nil)
		}
		s.reportedErr, s.hasReported = hash, true
	}
	s.err, s.stale = err, s.good != nil
	s.cond = ConditionError
	if errors.Is(err, ErrTooLarge) {
		s.cond = ConditionTooLarge
	}
	return l.retry(s, now)
}

// maxRetryWait caps the backoff between reads of a file in error.
const maxRetryWait = 30 * time.Second

// retry returns when the file in error is read next: RetryAfter after it
// was reported, then twice the previous pause each time it is still bad, at
// most maxRetryWait (or RetryAfter, if that is longer). A reload for another
// reason before then keeps the schedule. Most repairs come with an event (a
// save, a chmod); the retry catches those that do not (a parent
// directory's permissions, an ACL, a file system mounted again).
func (l *loader) retry(s *trackedFile, now time.Time) time.Time {
	if !s.retryAt.IsZero() && now.Before(s.retryAt) {
		return s.retryAt
	}
	s.retryWait = min(max(2*s.retryWait, l.c.retry), max(maxRetryWait, l.c.retry))
	s.retryAt = now.Add(s.retryWait)
	return s.retryAt
}

// Load reads the layer files once and returns the effective settings. The
// returned error joins one [*FileError] per file that could not be read or
// parsed (its layer is then empty; the Settings are still usable), or wraps
// [ErrOptions] for invalid options. A missing file is an empty layer, not an
// error. Load is safe for concurrent use and leaves nothing running, with
// one exception: a call of [Options.Trust] that has not returned after
// [TrustTimeout] is left to finish on its own (see [Options.Trust]).
func Load(opts Options) (Settings, error) {
	c, err := newConfig(opts)
	if err != nil {
		return Settings{}, err
	}
	l := newLoader(c)
	l.reload(time.Now())
	return l.settings, l.err()
}

// A Reader reads the layer files on demand with one set of [Options], like
// [Load], for a caller that reads again and again (a status view, a
// doctor). Unlike Load it keeps its calls of [Options.Trust]: while one has
// not returned after [TrustTimeout], Read counts the project as untrusted at
// once instead of waiting again and leaving another goroutine in the host's
// function, and asks again once it has returned. Every Read reads every file
// afresh, as Load does; it keeps no last good content.
//
// Read is safe for concurrent use; calls run one at a time. A Reader starts
// nothing but the trust calls and needs no closing.
type Reader struct {
	mu    sync.Mutex
	c     *config
	trust *trustCaller // nil without Options.Trust
}

// NewReader checks opts as Load does; the error wraps [ErrOptions].
func NewReader(opts Options) (*Reader, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return newReader(c), nil
}

func newReader(c *config) *Reader {
	r := &Reader{c: c}
	if c.trust != nil {
		r.trust = &trustCaller{fn: c.trust, timeout: c.trustTimeout}
	}
	return r
}

// Read reads the files and returns the effective settings and errors, as
// [Load] does. It waits for the trust function for at most [TrustTimeout],
// and not at all while an earlier call of this Reader's has not returned;
// a Read that runs at the same time as another waits for it first.
func (r *Reader) Read() (Settings, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := newLoader(r.c)
	l.trust = r.trust
	l.reload(time.Now())
	return l.settings, l.err()
}
