package settingsengine

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// faultTimeout replaces TrustTimeout in these tests: long enough that a
// trust function that returns at once never times out on a loaded machine,
// short enough to keep the tests fast.
const faultTimeout = 200 * time.Millisecond

// hangingTrust returns a trust function that blocks while hang reports true,
// until release is called, and counts its calls. The test's cleanup
// releases it, so no goroutine stays in it after the test.
//
// A test that uses it must not be parallel: a hung call holds one of the
// process-wide trust call places (maxTrustCalls), and enough of them at once
// would make every parallel test's trust calls busy. Non-parallel tests
// run one at a time and before the parallel ones, and each waits for its
// released calls, so every such test starts with no place taken; it checks
// that here.
// requireNoTrustCalls fails the test if a trust call of an earlier test
// still holds a process-wide place.
func requireNoTrustCalls(t *testing.T) {
	t.Helper()
	if n := hungTrust.Load(); n != 0 || len(runningTrust) != 0 {
		t.Fatalf("%d trust calls hung and %d places taken before the test: an earlier test left a call running", n, len(runningTrust))
	}
}

func hangingTrust(t *testing.T, hang func() bool) (trust func(string) (bool, error), release func(), calls *atomic.Int32) {
	t.Helper()
	requireNoTrustCalls(t)
	ch := make(chan struct{})
	var once sync.Once
	release = func() { once.Do(func() { close(ch) }) }
	t.Cleanup(release)
	calls = new(atomic.Int32)
	trust = func(string) (bool, error) {
		calls.Add(1)
		if hang() {
			<-ch
		}
		return true, nil
	}
	return trust, release, calls
}

func TestLoadTrustPanicIsUntrusted(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var logs logBuffer
	f.opts.Logger = newLogger(&logs)
	f.opts.Trust = func(string) (bool, error) { panic("host bug") }
	write(t, f.project, doc(false, "p"))
	s, err := Load(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	fs := s.Files()[1]
	if fs.Condition != ConditionUntrusted || !strings.Contains(fs.TrustReason, "panicked") || !strings.Contains(fs.Err, "host bug") {
		t.Errorf("project status %+v, want untrusted because the trust function panicked", fs)
	}
	if _, from := s.Enabled("herdr", true); from != LayerDefault {
		t.Errorf("herdr decided by %v, want the default: the untrusted project must not apply", from)
	}
	if n := logs.count("host bug"); n != 1 {
		t.Errorf("the panic was logged %d times, want 1:\n%s", n, logs.b.String())
	}
}

func TestWatchTrustPanicOnReloadIsUntrustedWithOneWarning(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var logs logBuffer
	f.opts.Logger = newLogger(&logs)
	var panicking atomic.Bool
	var calls atomic.Int32
	f.opts.Trust = func(string) (bool, error) {
		calls.Add(1)
		if panicking.Load() {
			panic("host bug")
		}
		return true, nil
	}
	write(t, f.project, doc(false, "v1"))
	w, _ := startWatchHooks(t, f.opts, hooks{trustTimeout: faultTimeout})
	waitHerdr(t, w, false, "v1", LayerProject)

	panicking.Store(true)
	write(t, f.project, doc(false, "v2"))
	waitFor(t, w, "the project untrusted after the panic", func(s Settings) bool {
		fs := s.Files()[1]
		return fs.Condition == ConditionUntrusted && strings.Contains(fs.TrustReason, "panicked") && strings.Contains(fs.Err, "host bug")
	})
	// Two more reloads, each of which calls Trust and panics again.
	before := calls.Load()
	for i, on := range []bool{true, false} {
		write(t, f.global, doc(on, fmt.Sprint("g", i)))
		waitHerdr(t, w, on, fmt.Sprint("g", i), LayerGlobal)
	}
	if got := calls.Load() - before; got < 2 {
		t.Fatalf("Trust called %d times in two reloads, want at least 2", got)
	}
	if n := logs.count("host bug"); n != 1 {
		t.Errorf("the panic was logged %d times, want 1:\n%s", n, logs.b.String())
	}
	// The host fixes its function: the next reload trusts the project again.
	panicking.Store(false)
	write(t, f.project, doc(true, "v3"))
	waitHerdr(t, w, true, "v3", LayerProject)
}

func TestWatchTrustHangOnReload(t *testing.T) {
	f := newFixture(t)
	var logs logBuffer
	f.opts.Logger = newLogger(&logs)
	var hanging atomic.Bool
	trust, release, calls := hangingTrust(t, hanging.Load)
	f.opts.Trust = trust
	write(t, f.project, doc(false, "v1"))
	w, _ := startWatchHooks(t, f.opts, hooks{trustTimeout: faultTimeout})
	// Close first, so that the event loop starts no call while the test
	// waits for the released one.
	t.Cleanup(func() { release(); _ = w.Close(); w.l.trust.calls.Wait() })
	waitHerdr(t, w, false, "v1", LayerProject)

	hanging.Store(true)
	write(t, f.project, doc(false, "v2"))
	waitFor(t, w, "the project untrusted while Trust hangs", func(s Settings) bool {
		fs := s.Files()[1]
		return fs.Condition == ConditionUntrusted && strings.Contains(fs.TrustReason, "did not return within 200ms") && fs.Err != ""
	})
	// The watcher is not wedged: global edits still apply, and no second
	// call into the hung function starts.
	n := calls.Load()
	for i, on := range []bool{true, false} {
		write(t, f.global, doc(on, fmt.Sprint("g", i)))
		waitHerdr(t, w, on, fmt.Sprint("g", i), LayerGlobal)
	}
	if got := calls.Load(); got != n {
		t.Errorf("Trust called %d more times while a call hung, want 0", got-n)
	}
	if got := logs.count("trust function timed out"); got != 1 {
		t.Errorf("the hang was logged %d times, want 1:\n%s", got, logs.b.String())
	}
	// The hung call returns "trusted": its late answer applies, with no
	// file event.
	release()
	waitHerdr(t, w, false, "v2", LayerProject)
}

func TestWatchTrustHangBoundsWatchAndNotClose(t *testing.T) {
	f := newFixture(t)
	trust, release, _ := hangingTrust(t, func() bool { return true })
	f.opts.Trust = trust
	write(t, f.project, doc(false, "v1"))
	w, err := watch(f.opts, nil, hooks{trustTimeout: faultTimeout})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(); _ = w.Close(); w.l.trust.calls.Wait() })
	if fs := w.Current().Files()[1]; fs.Condition != ConditionUntrusted || !strings.Contains(fs.TrustReason, "did not return") {
		t.Errorf("Watch with a hung Trust: project status %+v, want untrusted", fs)
	}
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for the hung trust function")
	}
	// The goroutine in the host's function ends when the function returns.
	release()
	w.l.trust.calls.Wait()
}

// TestWatchCloseEndsAWaitForTrust closes a Watcher while its event loop
// waits for a trust call in a reload. With an hour's timeout, only Close
// can end that wait.
func TestWatchCloseEndsAWaitForTrust(t *testing.T) {
	f := newFixture(t)
	var hanging atomic.Bool
	entered := make(chan struct{}, 1)
	trust, release, _ := hangingTrust(t, func() bool {
		if !hanging.Load() {
			return false
		}
		entered <- struct{}{}
		return true
	})
	f.opts.Trust = trust
	write(t, f.project, doc(false, "v1"))
	w, err := watch(f.opts, nil, hooks{trustTimeout: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { release(); _ = w.Close(); w.l.trust.calls.Wait() })
	hanging.Store(true)
	write(t, f.project, doc(false, "v2"))
	<-entered // the reload is waiting for the hung call
	closed := make(chan error, 1)
	go func() { closed <- w.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Error(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a trust call in progress")
	}
	if !isHerdr(false, "v1", LayerProject)(w.Current()) {
		t.Errorf("a reload interrupted by Close published %s, want the last value kept", w.Current().Section("herdr"))
	}
}

func TestWatchErroredFileIsRetriedWithoutAnEvent(t *testing.T) {
	tests := []struct {
		name string
		// breakIt makes the project file's reads fail and returns once
		// the error shows.
		breakIt func(t *testing.T, f *fixture, w *Watcher, broken *atomic.Bool)
		stale   bool
	}{
		{name: "bad at start", stale: false, breakIt: func(t *testing.T, f *fixture, w *Watcher, broken *atomic.Bool) {}},
		{name: "bad after a reload", stale: true, breakIt: func(t *testing.T, f *fixture, w *Watcher, broken *atomic.Bool) {
			broken.Store(true)
			write(t, f.global, doc(true, "g")) // a reload that reads the project file too
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			var broken atomic.Bool
			broken.Store(!tc.stale)
			h := hooks{read: func(path string) readResult {
				if path == f.project && broken.Load() {
					return failed(path, errors.New("injected read error"))
				}
				return readFile(path)
			}}
			write(t, f.project, doc(false, "v1"))
			w, _ := startWatchHooks(t, f.opts, h)
			tc.breakIt(t, f, w, &broken)
			waitFor(t, w, "the read error", func(s Settings) bool {
				fs := s.Files()[1]
				return fs.Condition == ConditionError && fs.Stale == tc.stale && strings.Contains(fs.Err, "injected read error")
			})
			// The file reads again, and nothing on disk changes: only the
			// retry can see it.
			broken.Store(false)
			waitFor(t, w, "the file read again", func(s Settings) bool {
				fs := s.Files()[1]
				return fs.Condition == ConditionLoaded && !fs.Stale && fs.Err == "" && isHerdr(false, "v1", LayerProject)(s)
			})
		})
	}
}

func TestRetryBackoffDoublesUpToTheCap(t *testing.T) {
	tests := []struct {
		name  string
		retry time.Duration
		want  []time.Duration
	}{
		{name: "default", retry: DefaultRetryAfter, want: []time.Duration{
			time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second,
			maxRetryWait, maxRetryWait, maxRetryWait,
		}},
		{name: "retry longer than the cap", retry: time.Minute, want: []time.Duration{time.Minute, time.Minute, time.Minute}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newConfig(Options{App: "app", Home: t.TempDir(), Sections: testSections, RetryAfter: tc.retry})
			if err != nil {
				t.Fatal(err)
			}
			l := newLoader(c)
			l.read = func(path string) readResult { return failed(path, errors.New("injected read error")) }
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			wake := l.reload(now) // the first read reports at once
			if l.global.cond != ConditionError {
				t.Fatalf("condition %v, want error", l.global.cond)
			}
			var got []time.Duration
			for range tc.want {
				if wake.IsZero() {
					t.Fatal("no retry scheduled for a file in error")
				}
				got = append(got, wake.Sub(now))
				// A reload for another reason before then keeps the
				// schedule.
				if early := l.reload(now.Add(wake.Sub(now) / 2)); !early.Equal(wake) {
					t.Fatalf("an early reload moved the retry from %v to %v", wake, early)
				}
				now = wake
				wake = l.reload(now)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("pauses between retries (-got +want):\n%s", diff)
			}
			// Once the file reads, the schedule is dropped.
			write(t, c.globalPath, doc(true, "g"))
			l.read = readFile
			if wake := l.reload(now); !wake.IsZero() || l.global.cond != ConditionLoaded {
				t.Errorf("after the file reads: wake %v, condition %v; want no retry, loaded", wake, l.global.cond)
			}
			// A later error starts again from RetryAfter (after the
			// pause for a slow writer, since the file was good).
			l.read = func(path string) readResult { return failed(path, errors.New("another read error")) }
			pending := l.reload(now)
			if got := pending.Sub(now); got != tc.retry {
				t.Fatalf("a new error is checked again after %v, want RetryAfter %v", got, tc.retry)
			}
			if wake := l.reload(pending); wake.Sub(pending) != tc.retry {
				t.Errorf("after a new error the first retry is %v away, want RetryAfter %v", wake.Sub(pending), tc.retry)
			}
		})
	}
}

// TestHungTrustCallsAreCappedProcessWide is not parallel, like every test
// that uses hangingTrust: it counts the process-wide hung calls.
func TestHungTrustCallsAreCappedProcessWide(t *testing.T) {
	f := newFixture(t)
	trust, release, calls := hangingTrust(t, func() bool { return true })
	f.opts.Trust = trust
	write(t, f.project, doc(false, "p"))
	c, err := newConfig(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	c.trustTimeout = 20 * time.Millisecond
	// Each loader is one Load call.
	var loaders []*loader
	for i := range maxTrustCalls + 2 {
		l := newLoader(c)
		l.reload(time.Now())
		// The first calls time out; the others are not made.
		want := "did not return"
		if i >= maxTrustCalls {
			want = "was not called"
		}
		if fs := l.settings.Files()[1]; fs.Condition != ConditionUntrusted || !strings.Contains(fs.TrustReason, want) {
			t.Fatalf("Load %d: project status %+v, want untrusted because the trust function %s", i, fs, want)
		}
		loaders = append(loaders, l)
	}
	release()
	for _, l := range loaders {
		l.trust.calls.Wait()
	}
	// Every call that started has returned and counted itself by now.
	if got := calls.Load(); got != maxTrustCalls {
		t.Errorf("%d calls of the hung function, want %d: no call starts while %d hang", got, maxTrustCalls, maxTrustCalls)
	}
	if n := hungTrust.Load(); n != 0 {
		t.Fatalf("%d calls still counted as hung after they returned", n)
	}
	// The function answers now: the next Load asks it again.
	s, err := Load(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	if fs := s.Files()[1]; fs.Condition != ConditionLoaded {
		t.Errorf("after the hung calls returned: project status %+v, want trusted and loaded", fs)
	}
	if got := calls.Load(); got != maxTrustCalls+1 {
		t.Errorf("%d calls, want %d", got, maxTrustCalls+1)
	}
}

// TestHungTrustCapHoldsForConcurrentCalls is not parallel, for the same
// reason as TestHungTrustCallsAreCappedProcessWide. Calls that start at the
// same moment must not each pass the cap's check before any of them counts
// as hung.
func TestHungTrustCapHoldsForConcurrentCalls(t *testing.T) {
	f := newFixture(t)
	trust, release, calls := hangingTrust(t, func() bool { return true })
	f.opts.Trust = trust
	write(t, f.project, doc(false, "p"))
	c, err := newConfig(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	c.trustTimeout = faultTimeout
	// Each loader is one Load call; they all ask at once.
	loaders := make([]*loader, 2*maxTrustCalls)
	var wg sync.WaitGroup
	for i := range loaders {
		loaders[i] = newLoader(c)
		wg.Go(func() { loaders[i].reload(time.Now()) })
	}
	wg.Wait()
	for i, l := range loaders {
		if fs := l.settings.Files()[1]; fs.Condition != ConditionUntrusted {
			t.Errorf("Load %d: project status %+v, want untrusted: the trust function hangs", i, fs)
		}
	}
	release()
	for _, l := range loaders {
		l.trust.calls.Wait()
	}
	// Every call that started has now returned and counted itself. The
	// others waited for a place that no call gave back.
	if got := calls.Load(); got != maxTrustCalls {
		t.Errorf("%d calls of the hung function were started at once, want %d", got, maxTrustCalls)
	}
	if n := hungTrust.Load(); n != 0 {
		t.Errorf("%d calls still counted as hung after they returned", n)
	}
}

// TestTrustCallsBeyondTheCapWaitForOneToReturn is not parallel, for the same
// reason as TestHungTrustCallsAreCappedProcessWide. More calls at once than
// the cap, of a function that is slow but answers, all get its answer:
// the cap bounds the goroutines, it does not refuse a healthy function.
func TestTrustCallsBeyondTheCapWaitForOneToReturn(t *testing.T) {
	requireNoTrustCalls(t)
	f := newFixture(t)
	gate := make(chan struct{})
	entered := make(chan struct{}, 2*maxTrustCalls)
	var mu sync.Mutex
	inside, most := 0, 0 // calls in the function now, and at most
	f.opts.Trust = func(string) (bool, error) {
		mu.Lock()
		inside++
		most = max(most, inside)
		mu.Unlock()
		entered <- struct{}{}
		<-gate
		mu.Lock()
		inside--
		mu.Unlock()
		return true, nil
	}
	write(t, f.project, doc(false, "p"))
	c, err := newConfig(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	c.trustTimeout = time.Hour // only the answers end the calls
	loaders := make([]*loader, 2*maxTrustCalls)
	var wg sync.WaitGroup
	for i := range loaders {
		loaders[i] = newLoader(c)
		wg.Go(func() { loaders[i].reload(time.Now()) })
	}
	for range maxTrustCalls {
		<-entered // the cap is reached: the other calls wait for a place
	}
	close(gate)
	wg.Wait()
	for i, l := range loaders {
		if fs := l.settings.Files()[1]; fs.Condition != ConditionLoaded {
			t.Errorf("Load %d: project status %+v, want trusted and loaded", i, fs)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if most > maxTrustCalls {
		t.Errorf("%d calls ran at once, want at most %d", most, maxTrustCalls)
	}
}

func TestReaderAsksAHungTrustFunctionOnce(t *testing.T) {
	f := newFixture(t)
	var hanging atomic.Bool
	hanging.Store(true)
	trust, release, calls := hangingTrust(t, hanging.Load)
	f.opts.Trust = trust
	write(t, f.project, doc(false, "p"))
	c, err := newConfig(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	c.trustTimeout = faultTimeout
	r := newReader(c)
	for i := range 3 {
		s, _ := r.Read()
		if fs := s.Files()[1]; fs.Condition != ConditionUntrusted || !strings.Contains(fs.TrustReason, "did not return") {
			t.Fatalf("Read %d: project status %+v, want untrusted: the trust function hangs", i, fs)
		}
	}
	hanging.Store(false)
	release()
	r.trust.calls.Wait()
	if got := calls.Load(); got != 1 {
		t.Errorf("%d calls while the first one hung, want 1: Read must not call again until it returns", got)
	}
	// The function answers now: the next Read asks it again and trusts.
	s, err := r.Read()
	if err != nil {
		t.Fatal(err)
	}
	if fs := s.Files()[1]; fs.Condition != ConditionLoaded || !isHerdr(false, "p", LayerProject)(s) {
		t.Errorf("after the hung call returned: project status %+v, want trusted and loaded", fs)
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("%d calls, want 2", got)
	}
}

func TestReaderReadsAfreshAndConcurrently(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	write(t, f.project, doc(false, "v1"))
	r, err := NewReader(f.opts)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if s, err := r.Read(); err != nil || !isHerdr(false, "v1", LayerProject)(s) {
				t.Errorf("concurrent Read: %s, %v; want v1 from the project", s.Section("herdr"), err)
			}
		})
	}
	wg.Wait()
	write(t, f.project, doc(true, "v2"))
	if s, err := r.Read(); err != nil || !isHerdr(true, "v2", LayerProject)(s) {
		t.Errorf("Read after an edit: %s, %v; want v2 from the project", s.Section("herdr"), err)
	}
	if _, err := NewReader(Options{}); !errors.Is(err, ErrOptions) {
		t.Errorf("NewReader with no App: %v, want ErrOptions", err)
	}
}
