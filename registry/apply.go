package registry

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/panestate/panestate/adapter"
	"github.com/panestate/panestate/internal/settingsengine"
	"github.com/panestate/panestate/settings"
)

// This file carries out decide's answers: it opens, swaps and stops
// adapters. It runs on Attach's goroutine and on the settings watcher's
// callback goroutine, never both at once for one generation (a settings
// change waits for Attach to end), and gives up when a Detach preempts it.

// onSettings is the settings watcher's callback for the attachment of
// generation gen. It runs on the watcher's goroutine.
func (r *Registry) onSettings(gen uint64, cur settingsengine.Settings) {
	o, ok := r.beginApply(gen)
	if !ok {
		return
	}
	defer r.endOp(o, attachmentApplying)
	r.apply(o.ctx, gen, cur)
}

// apply makes the adapters match cur, one adapter after the other.
func (r *Registry) apply(ctx context.Context, gen uint64, cur settingsengine.Settings) {
	if !r.useSettings(gen, cur) {
		return
	}
	for _, s := range r.entries {
		enabled, from := cur.Enabled(s.name, s.def)
		seen := viewOf(cur, s)
		f, ok := r.entryFacts(gen, s, enabled, from, seen)
		if !ok {
			return
		}
		if f.life == LifecycleInactive && enabled && !f.changed {
			f.applies = r.check(s, cur) == nil
		}
		r.carryOut(ctx, gen, s, decide(f), change{cur: cur, seen: seen, from: from})
	}
}

// change is what a settings change brings to one adapter.
type change struct {
	cur  settingsengine.Settings
	seen view
	from settings.Layer // the layer that decided "enabled"
}

// carryOut does what decide said for s.
func (r *Registry) carryOut(ctx context.Context, gen uint64, s *entry, act action, c change) {
	cur, seen := c.cur, c.seen
	switch act {
	case actNothing, actKeep:
	case actMarkDisabled:
		r.settle(gen, s, LifecycleDisabled, disabledWhy(c.from), seen)
	case actOpen:
		a, err := r.open(ctx, s, cur)
		if err != nil {
			if errors.Is(err, adapter.ErrInactive) {
				r.log.Debug("adapter does not apply here", "adapter", s.name, "reason", err)
			} else {
				r.log.Warn("adapter failed to open", "adapter", s.name, "error", err)
			}
			r.settle(gen, s, notOpened(err), err.Error(), seen)
			return
		}
		if r.start(gen, s, a, seen, nil) {
			r.log.Info("adapter attached", "adapter", s.name)
		}
	case actReopen:
		a, err := r.open(ctx, s, cur)
		if err != nil {
			r.log.Warn("adapter settings changed but the new settings failed; keeping the running adapter", "adapter", s.name, "error", err)
			// Do not retry the same bad settings on every reload.
			r.rejectSettings(gen, s, err.Error(), seen)
			return
		}
		old := r.take(gen, s, LifecycleActive, "")
		if old == nil {
			closePreempted(a) // preempted, or the adapter stopped meanwhile
			return
		}
		// The old adapter's delivery in flight is withdrawn; its fate
		// waits for the successor: closed without a release once the
		// successor runs (which waits for it before its first call, so
		// their calls never cross), released if a Detach preempts the swap.
		old.stop(fateUndecided, time.Now())
		if r.start(gen, s, a, seen, old) {
			r.log.Info("adapter re-opened with new settings", "adapter", s.name)
		} else {
			// A Detach took the old worker over (it is still live) and
			// decided its release; this makes sure of it.
			old.stop(fateRelease, time.Now())
		}
	case actStop:
		r.log.Info("adapter disabled by settings", "adapter", s.name, "layer", string(c.from))
		w := r.take(gen, s, LifecycleDisabled, disabledWhy(c.from))
		if w == nil {
			return
		}
		r.markSeen(gen, s, seen)
		// The delivery in flight is withdrawn, and the release follows
		// it. Wait for the release before anything else opens, so that a
		// claim that follows never crosses it; a Detach cuts the wait
		// short and takes the worker over. An adapter that has not
		// returned by the end of the budget (plus the grace a cancelled
		// call gets) is not waited for: it stays live, and is released
		// when it returns, or by the next Detach.
		w.stop(fateRelease, time.Now())
		bound := time.NewTimer(r.budget + cancelGrace)
		defer bound.Stop()
		select {
		case <-w.done:
		case <-ctx.Done():
		case <-bound.C:
			r.log.Warn("the adapter turned off did not return within the release budget; going on", "adapter", s.name, "budget", r.budget)
		}
	}
}

// notOpened is the lifecycle of an adapter whose Check or Open failed with
// err.
func notOpened(err error) Lifecycle {
	if errors.Is(err, adapter.ErrInactive) {
		return LifecycleInactive
	}
	return LifecycleOpenFailed
}

func disabledWhy(from settings.Layer) string {
	if from == settings.LayerDefault {
		return "off by default; set \"enabled\": true in its settings section to turn it on"
	}
	return fmt.Sprintf("disabled by %s settings", from)
}

func (r *Registry) open(ctx context.Context, s *entry, cur settingsengine.Settings) (a adapter.Adapter, err error) {
	if r.guard(s, "Open", func() { a, err = s.driver.Open(ctx, r.params(s, cur)) }) {
		return nil, fmt.Errorf("registry: adapter %s panicked in Open", s.name)
	}
	if err == nil && a == nil {
		err = fmt.Errorf("registry: driver %s returned a nil adapter", s.name)
	}
	return a, err
}
