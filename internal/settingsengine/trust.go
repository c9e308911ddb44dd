package settingsengine

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
)

// TrustStore reads an Atomic-style trust store: a JSON object that maps a
// project's canonical absolute path to a decision, kept by the host (Atomic
// keeps it at ~/.atomic/agent/trust.json, see [DefaultTrustFile]). The saved
// decision of the project directory or its nearest ancestor wins: true is
// trusted; false, "ask" (the library cannot prompt), any other value, no
// entry, a missing file or a malformed file are untrusted. null entries are
// skipped. The store is only read, never written.
//
// Setting [Options.TrustFile] uses a TrustStore and also watches the file.
// Trust is safe for concurrent use.
type TrustStore struct {
	Path string
}

// Trust reports whether projectRoot is trusted; it has the signature of
// [Options.Trust]. The error is set when the store cannot be read or parsed,
// and the project is then untrusted.
func (t TrustStore) Trust(projectRoot string) (bool, error) {
	m, err := readTrustStore(t.Path)
	if err != nil {
		return false, err
	}
	ok, _ := decideTrust(m, projectRoot)
	return ok, nil
}

// readTrustStore returns the store's object; a missing or empty file is an
// empty store.
func readTrustStore(path string) (map[string]any, error) {
	r := readFile(path)
	switch r.kind {
	case readFailed:
		return nil, r.err
	case readData:
		return parse(path, r.data)
	}
	return nil, nil
}

// canonicalRoot returns root made absolute with symbolic links resolved when
// possible.
func canonicalRoot(root string) string {
	abs, err := filepath.Abs(root)
	if err != nil {
		abs = filepath.Clean(root)
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	return abs
}

// decideTrust looks up root and its ancestors in the store and says why.
func decideTrust(store map[string]any, root string) (bool, string) {
	clean := make(map[string]any, len(store))
	for k, v := range store {
		if filepath.IsAbs(k) {
			clean[filepath.Clean(k)] = v
		}
	}
	for p := canonicalRoot(root); ; {
		if v, ok := clean[p]; ok && v != nil {
			switch v {
			case true:
				return true, fmt.Sprintf("trust store: %s is trusted", p)
			case false:
				return false, fmt.Sprintf("trust store: %s is not trusted", p)
			case "ask":
				return false, fmt.Sprintf("trust store: %s is \"ask\", which counts as untrusted because the library cannot prompt", p)
			default:
				return false, fmt.Sprintf("trust store: %s has an invalid decision (%s), which counts as untrusted", p, describe(v))
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false, "trust store: no decision for the project or any parent directory"
		}
		p = parent
	}
}

// trustDecision is the outcome of resolving trust for the project layer.
type trustDecision struct {
	trusted bool
	reason  string
	err     string
}

// TrustTimeout bounds every call of [Options.Trust]: a call that has not
// returned by then counts as untrusted (see [Options.Trust]).
const TrustTimeout = 500 * time.Millisecond

// trustAnswer is the outcome of one call of the host's trust function.
type trustAnswer struct {
	trusted bool
	err     error
	panic   string // the panic value, when the function panicked
	late    bool   // no answer within the timeout, or an earlier call is still running
	busy    bool   // not called: the process-wide calls are all taken by earlier ones
}

// callTrust calls fn and turns a panic into an answer: a panic in the
// host's function must never crash the host from the watcher's goroutine.
func callTrust(fn func(string) (bool, error), root string) (a trustAnswer) {
	defer func() {
		if r := recover(); r != nil {
			a = trustAnswer{panic: fmt.Sprint(r)}
		}
	}()
	ok, err := fn(root)
	return trustAnswer{trusted: ok, err: err}
}

// trustCaller runs the host's trust function on a goroutine of its own and
// waits for it for at most timeout, so that a hung function can neither
// wedge a [Watcher]'s event loop nor delay [Watcher.Close]. It is used by
// one goroutine at a time (the loader's, or a [Reader]'s under its lock).
//
// At most one call per caller runs at a time. A call that times out stays
// in the host's function: nothing can stop it. Until it returns, ask
// answers "late" without starting another call. When it returns, its
// answer is sent on hung (size one, so the goroutine never blocks), and the
// Watcher's event loop, which selects on hung, hands it to the next ask and
// reloads (a Reader's next ask finds it there and asks again). The goroutine touches nothing else, so it may outlive the
// Watcher; Close does not wait for it.
//
// Every call holds one of the process-wide runningTrust while it is in the
// host's function, so at most maxTrustCalls goroutines are ever in host
// trust functions, however many Watchers, Readers and Load calls ask at
// once.
type trustCaller struct {
	fn      func(string) (bool, error)
	timeout time.Duration
	stop    <-chan struct{} // the Watcher's stop channel; nil for Load

	calls sync.WaitGroup   // running calls; tests wait on it
	hung  chan trustAnswer // non-nil while a call that timed out still runs
	late  *trustAnswer     // the answer of a hung call that has returned since
}

// ask returns the host's answer for root, the answer of a call that had
// hung and has returned since, or a late or busy answer. It returns within
// timeout, or as soon as stop is closed.
func (t *trustCaller) ask(root string) trustAnswer {
	if t.late != nil {
		a := *t.late
		t.late = nil
		return a
	}
	if t.hung != nil {
		select {
		case <-t.hung: // returned just now: ask again, the answer may be old
			t.hung = nil
		default:
			return trustAnswer{late: true}
		}
	}
	if hungTrust.Load() >= maxTrustCalls {
		return trustAnswer{busy: true} // every place is held by a hung call
	}
	// One timer bounds both the wait for a place (held by calls that are
	// slow, not yet hung) and the call itself.
	timer := time.NewTimer(t.timeout)
	defer timer.Stop()
	select {
	case runningTrust <- struct{}{}:
	case <-timer.C:
		return trustAnswer{busy: true}
	case <-t.stop:
		return trustAnswer{late: true}
	}
	ch := make(chan trustAnswer, 1)
	var state atomic.Int32 // callRunning, then callAnswered or callAbandoned
	t.calls.Go(func() {
		a := callTrust(t.fn, root)
		if !state.CompareAndSwap(callRunning, callAnswered) {
			hungTrust.Add(-1) // abandoned by its waiter: no longer hung
		}
		<-runningTrust
		ch <- a
	})
	select {
	case a := <-ch:
		t.calls.Wait() // the goroutine is past its send: nothing outlives the call
		return a
	case <-timer.C:
	case <-t.stop:
	}
	if !state.CompareAndSwap(callRunning, callAbandoned) {
		// It answered just now.
		a := <-ch
		t.calls.Wait()
		return a
	}
	hungTrust.Add(1)
	t.hung = ch
	return trustAnswer{late: true}
}

// States of one trust call.
const (
	callRunning int32 = iota
	callAnswered
	callAbandoned
)

// maxTrustCalls bounds the calls of host trust functions in the whole
// process: running ones and those that timed out and have not returned.
const maxTrustCalls = 4

// runningTrust and hungTrust are process-wide by design: a goroutine stuck
// in the host's function belongs to no Watcher or Load call that could
// bound it (each Watcher or Reader starts at most one at a time; Load,
// called again and again by a host, and possibly from several goroutines
// at once, would start one per call).
//
// A call holds a place (a send on runningTrust) from before it starts until
// it returns; a caller that finds no free place waits for one within its
// timeout. hungTrust counts the calls that timed out and still hold a
// place: when they hold all of them, ask answers "busy" at once instead of
// waiting.
var (
	runningTrust = make(chan struct{}, maxTrustCalls)
	hungTrust    atomic.Int32
)

// returned records the answer of a hung call that has returned, for the
// next ask.
func (t *trustCaller) returned(a trustAnswer) {
	t.hung, t.late = nil, &a
}

// resolveTrust asks the host's Trust func through ask, or decides from the
// trust store content (store, storeErr), or denies.
func resolveTrust(c *config, ask func() trustAnswer, store map[string]any, storeErr error) trustDecision {
	switch {
	case c.trust != nil:
		a := ask()
		switch {
		case a.panic != "":
			return trustDecision{reason: "the host's trust function panicked, so the project is untrusted", err: "settings: trust function panicked: " + a.panic}
		case a.late:
			return trustDecision{reason: fmt.Sprintf("the host's trust function did not return within %v, so the project is untrusted", c.trustTimeout), err: "settings: trust function timed out"}
		case a.busy:
			return trustDecision{reason: fmt.Sprintf("the host's trust function was not called, because earlier calls in this process have not returned (at most %d run at once), so the project is untrusted", maxTrustCalls), err: "settings: trust function busy"}
		case a.err != nil:
			return trustDecision{reason: "the host's trust function failed", err: a.err.Error()}
		case a.trusted:
			return trustDecision{trusted: true, reason: "the host's trust function trusts the project"}
		}
		return trustDecision{reason: "the host's trust function does not trust the project"}
	case c.trustFile != "":
		if storeErr != nil {
			return trustDecision{reason: "the trust store cannot be read, so the project is untrusted: " + storeErr.Error(), err: storeErr.Error()}
		}
		ok, why := decideTrust(store, c.projectRoot)
		return trustDecision{trusted: ok, reason: why}
	}
	return trustDecision{reason: "no trust function or trust store configured; projects are untrusted by default"}
}
